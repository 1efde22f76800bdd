// SPDX-License-Identifier: Apache-2.0
// The algorithm table: each NCCL algorithm's eligibility, closed form and flow lowering side by
// side, one file per algorithm (algo_ring.cpp, algo_tree.cpp, algo_nvls.cpp, algo_direct.cpp).
// Adding an algorithm is one file and one row in algorithm_table() (algorithm_table.cpp).
#pragma once

#include <span>
#include <string_view>

#include "collectives/analytic.hpp"
#include "collectives/flow_lowering.hpp"

namespace linksim::detail {

struct AlgorithmOps {
  Algorithm algorithm;
  std::string_view name;  ///< as to_string(Algorithm) prints it and parse_algorithm reads it
  /// Non-empty when the algorithm runs the Simple protocol only: why, for messages.
  std::string_view simple_only_because;
  /// Whether NCCL can run `op` with this algorithm on this communicator.
  bool (*runs)(const CommGraph& g, CollectiveOp op);
  /// The closed form for `op` with `proto`; writes its terms to `trace` when not null.
  /// REQUIRES: runs(g, op) and the protocol allowed.
  CostModel (*cost)(const CommGraph& g, CollectiveOp op, Protocol proto, double size_bytes,
                    CostTrace* trace);
  /// The flow lowering, simulated (docs/model.md#flow-mode), or recorded into `joint` when
  /// not null (simulate_flows). REQUIRES: as cost.
  FlowOutcome (*flows)(const CommGraph& g, CollectiveOp op, const CostModel& model, double bytes,
                       int root, JointFlows* joint);
};

/// Every algorithm, best known first (the tuner's candidate order).
std::span<const AlgorithmOps> algorithm_table();
/// The row of `algorithm`; nullptr for kAuto.
const AlgorithmOps* find_algorithm(Algorithm algorithm);

/// The rows, each defined in its algorithm's file.
AlgorithmOps ring_algorithm();
AlgorithmOps tree_algorithm();
AlgorithmOps nvls_algorithm();
AlgorithmOps nvls_tree_algorithm();
AlgorithmOps direct_algorithm();

}  // namespace linksim::detail
