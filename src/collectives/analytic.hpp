// SPDX-License-Identifier: Apache-2.0
// Closed-form (alpha-beta with efficiencies) estimates of NCCL's algorithms and protocols.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "collectives/comm_graph.hpp"
#include "linksim/explain.hpp"

namespace linksim::detail {

/// The parameters of one (algorithm, protocol) choice for one collective on one
/// communicator: time(S) = latency_s + fill_s + wire_factor * S / bw_Bps on the GPUs, with
/// the host's launches (nccl-tests -g N) overlapping it or added (time_s).
struct CostModel {
  bool eligible = false;
  std::string why_not;       ///< when !eligible: why, for messages
  double latency_s = 0;      ///< NCCL's base + per-step latencies
  double fill_s = 0;         ///< pipeline fill before the steady state
  /// The algorithm's closed form before cost_model's adjustments (latency overrides, launch
  /// overhead, the one-rank copy): NCCL's table latency and fill, which its own estimate
  /// uses (nccl_estimate).
  double table_latency_s = 0;
  double table_fill_s = 0;
  double wire_factor = 1;    ///< bytes each rank moves over its bottleneck per byte of size
  double bw_Bps = 0;         ///< steady-state rate of those bytes
  int channels = 0;
  /// The hops NCCL's latency formula counts for this algorithm (ring steps, tree depth x 2,
  /// into and out of the switch): each adds CommGraph::hop_latency_excess_s.
  double latency_hops = 1;
  /// Steps that cross servers as the algorithm runs them, one after another (a ring's
  /// crossings, a tree's depth x 2): each pays the network kind's excess over NCCL's hwLat[NET]
  /// (net_step_excess_us, docs/model.md#net-steps). 0 on one server.
  double net_steps = 0;
  /// Latency NCCL's formula leaves out of what the algorithm runs (a ring's crossings beyond
  /// NCCL's count), seconds: added to latency_s after table_latency_s is taken.
  double realized_extra_s = 0;
  Bottleneck bottleneck;
  /// Flow mode: the factor applied to every effective link capacity (and route cap) so that
  /// an uncontended simulation reproduces bw_Bps (the protocol's efficiency, in effect).
  double link_scale = 1.0;

  /// One host thread launching the kernels of several GPUs (nccl-tests -g N): its N launches
  /// a call, seconds; 0 with one GPU a thread (docs/model.md#launch-overhead).
  double host_launch_s = 0;
  /// Whether the launches of the next call overlap this call's run on the GPUs (NCCL 2.9 on,
  /// one launch per GPU: t = max(launches, device)) or add to it (before 2.9, GROUP launch
  /// mode: t = launches + device).
  bool launches_overlap = true;

  /// The device's time for the call: latency, fill and the bytes at the steady rate.
  double device_time_s(double size_bytes) const {
    return latency_s + fill_s + (size_bytes > 0 ? wire_factor * size_bytes / bw_Bps : 0.0);
  }
  double time_s(double size_bytes) const {
    const double device_s = device_time_s(size_bytes);
    return launches_overlap ? std::max(host_launch_s, device_s) : host_launch_s + device_s;
  }
};

/// Where a closed form writes its derivation, term by term, from the variables it computes
/// with (explain_collective). The closed forms leave it untouched when it is null.
struct CostTrace {
  ExplainStep latency;    ///< alpha; result set by cost_model to CostModel::latency_s
  ExplainStep bandwidth;  ///< B; result set by cost_model to CostModel::bw_Bps
};

/// The algorithms NCCL can run `op` with on this communicator, best known first.
std::vector<Algorithm> candidate_algorithms(const CommGraph& graph, CollectiveOp op);

/// The cost model of (algo, proto) for `op`; `size_bytes` only matters where NCCL's model
/// depends on it. `trace`, when given, receives the derivation.
/// REQUIRES: algo and proto are resolved (not kAuto).
CostModel cost_model(const CommGraph& graph, CollectiveOp op, Algorithm algo, Protocol proto,
                     double size_bytes, CostTrace* trace = nullptr);

}  // namespace linksim::detail
