// SPDX-License-Identifier: Apache-2.0
// Explanations: the derivation behind a collective's predicted time as typed steps (formula,
// every number plugged in with its unit and source, the result), built from the same code
// paths that make the prediction (docs/explain.md). Plans: include/linksim/plan_explain.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "linksim/collectives.hpp"

namespace linksim {

/// One number plugged into a formula. `value` is in SI units named by `unit`: "s", "B/s",
/// "bytes", "FLOP", "FLOP/s", or "" for a pure number (a count, a factor, a fraction).
struct ExplainTerm {
  std::string symbol;  ///< as the formula names it: "alpha", "S", "B_link"
  double value = 0;
  std::string unit;
  std::string source;  ///< where it comes from: a catalog entry, NCCL's tuning.cc, the route
};

/// One line of the derivation on the board: formula, terms, result.
struct ExplainStep {
  std::string title;    ///< "latency term", "bandwidth term", ...
  std::string formula;  ///< "alpha = base + (steps - inter) x lat_intra + inter x lat_net"
  std::vector<ExplainTerm> terms;
  ExplainTerm result;              ///< the left-hand side and its value
  std::vector<std::string> notes;  ///< plain sentences: why a choice, what a cap did
};

/// One (algorithm, protocol) pair the tuner considered, with its closed-form time.
struct TunerCandidate {
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  bool eligible = false;
  std::string why_not;     ///< when !eligible
  double latency_s = 0;    ///< alpha: NCCL's base + per-step latencies (+ launch overhead)
  double fill_s = 0;       ///< pipeline fill
  double wire_factor = 0;  ///< bytes over the bottleneck per byte of size
  double bw_Bps = 0;       ///< B: the steady-state rate
  double time_s = 0;       ///< alpha + fill + wire_factor x S / B
  /// NCCL's own estimate of the time from its tuning tables (what the choice minimizes;
  /// docs/model.md#tuner), seconds; time_s is what the chosen pair then takes.
  double nccl_estimate_s = 0;
  bool chosen = false;
};

/// `linksim explain coll`: why NCCL would pick what it picks, and how long it takes.
struct CollectiveExplanation {
  CollectiveOp op = CollectiveOp::kAllReduce;
  int ranks = 0;
  int nodes = 0;
  NcclVersion nccl_version = kDefaultNcclVersion;  ///< the release modelled
  double size_bytes = 0;  ///< as CollectiveQuery::size_bytes (nccl-tests' size column)
  double bus_factor = 1;  ///< nccl-tests' busbw factor for op and ranks
  std::vector<TunerCandidate> candidates;  ///< in the tuner's order
  /// The closed form: identical to Communicator::run with SimMode::kAnalytic.
  CollectiveResult analytic;
  /// The flow simulation of the same query: identical to Communicator::run with
  /// SimMode::kFlow; nullopt when nothing moves (size 0 or one rank) or the simulation would
  /// be too large (flow_skipped says why).
  std::optional<CollectiveResult> flow;
  std::string flow_skipped;  ///< why `flow` is empty, a plain sentence; "" when simulated
  /// The derivation: tuner, nccl-tests semantics, latency term, bandwidth term, closed form,
  /// flow simulation; each step's result is the number the prediction used.
  std::vector<ExplainStep> steps;
};

/// Explains `query` on `comm` (query.mode is ignored: both modes are explained). Throws
/// ConfigError exactly as Communicator::run does.
CollectiveExplanation explain_collective(const Communicator& comm, const CollectiveQuery& query);

}  // namespace linksim
