// SPDX-License-Identifier: Apache-2.0
// Flow mode: an algorithm becomes concurrent transfers on the link graph, simulated with
// max-min fair sharing, so contention between its streams (and shared links) shows.
#pragma once

#include <string>
#include <vector>

#include "collectives/analytic.hpp"

namespace linksim::detail {

class JointFlows;

struct FlowOutcome {
  double time_s = 0;
  Bottleneck bottleneck;  ///< the link saturated longest, or the model's when none was
  std::vector<LinkUsage> link_usage;  ///< per directed link that carried bytes, by link id
};

/// Simulates `op` of `size_bytes` with (algo, proto) whose analytic parameters are `model`
/// (latency, fill and protocol efficiency are shared with the analytic mode).
/// With `joint` the transfers are recorded there as its current group, to be simulated with
/// other groups' (joint_flows.hpp), and the outcome is empty; an algorithm without a
/// lowering records nothing and answers its closed form either way.
/// Throws ConfigError when the transfer count would exceed what one run should hold.
FlowOutcome simulate_flows(const CommGraph& graph, CollectiveOp op, Algorithm algo,
                           const CostModel& model, double size_bytes, int root,
                           JointFlows* joint = nullptr);

}  // namespace linksim::detail
