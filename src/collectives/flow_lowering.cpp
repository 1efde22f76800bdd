// SPDX-License-Identifier: Apache-2.0
// Lowering of NCCL's algorithms to flows (docs/model.md#flow-mode). A pipelined algorithm is
// its concurrent streams: a ring over N ranks is N transfers running at once, each carrying
// its whole share of the data, plus the same latency and fill the analytic mode charges.
#include "collectives/flow_lowering.hpp"

#include "collectives/algorithm.hpp"

namespace linksim::detail {

FlowOutcome simulate_flows(const CommGraph& g, CollectiveOp op, Algorithm algo,
                           const CostModel& m, double size_bytes, int root, JointFlows* joint) {
  const AlgorithmOps* ops = find_algorithm(algo);
  if (ops == nullptr) return {m.time_s(size_bytes), m.bottleneck, {}};
  return ops->flows(g, op, m, size_bytes, root, joint);
}

}  // namespace linksim::detail
