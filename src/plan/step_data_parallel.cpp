// SPDX-License-Identifier: Apache-2.0
// The data-parallel side of a training step: gradient reduction and parameter gather over the
// ranks that share the slowest stage's weights, by ZeRO stage, what of it the step's compute
// hides, and the optimizer on the local shard (docs/planner.md#communication).
#include <algorithm>

#include "plan/step_builder.hpp"

namespace linksim::plan_detail {

DataParallelCost StepBuilder::data_parallel(const StagesCost& stages) {
  DataParallelCost out;
  const Stage& stage = stages.slowest_stage();
  const StageCost& cost = stages.slowest_cost();
  const double m = micro_batches();
  const int layers = stage.layers.layers;
  const double dense_local = stage.params.dense;
  const double expert_local = stage.params.expert;
  // Bucket by bucket, all but the last layer's share hides behind the pass it overlaps.
  const double fwd_window = cost.fwd.compute.total() * (layers - 1) / std::max(1, layers);
  const double bwd_window = cost.bwd.compute.total() * (layers - 1) / std::max(1, layers);
  struct Shard { const char* kind; std::vector<int> ranks; double params; };
  // CP ranks hold the same weights as their DP peers: gradients reduce over DP x CP.
  const Shard shards[] = {{"dp", groups_.dp_cp, dense_local}, {"edp", groups_.edp, expert_local}};
  for (const Shard& sh : shards) {
    if (sh.ranks.size() < 2 || sh.params <= 0) continue;
    const auto g = pick(sh.ranks);
    const double grads = sh.params * 2, weights = sh.params * p_.weight_bytes;
    auto add = [&](const char* phase, CollectiveOp op, double bytes, double count, double window) {
      const double t = time(g, op, bytes).time_s;
      const double exposed = std::max(0.0, count * t - window);
      out.items.push_back({sh.kind, phase, g, op, bytes, count, exposed});
      out.exposed_s += exposed;
    };
    if (l_.zero == 0) {
      add("step", CollectiveOp::kAllReduce, grads, 1, bwd_window);
    } else if (l_.zero <= 2) {
      add("step", CollectiveOp::kReduceScatter, grads, 1, bwd_window);
      add("step", CollectiveOp::kAllGather, weights, 1, fwd_window);
    } else {
      // ZeRO-3 / FSDP: parameters gathered for every micro-batch's forward and backward.
      add("forward", CollectiveOp::kAllGather, weights, m, m * fwd_window);
      add("backward", CollectiveOp::kAllGather, weights, m, m * bwd_window / 2);
      add("backward", CollectiveOp::kReduceScatter, grads, m, m * bwd_window / 2);
    }
  }
  const double shard_dense = l_.zero >= 1 ? dense_local / detail::dense_shards(l_) : dense_local;
  const double shard_expert = l_.zero >= 1 ? expert_local / detail::expert_shards(l_) : expert_local;
  out.optimizer_s = optimizer_time_s(shard_dense + shard_expert, rates_);
  return out;
}

}  // namespace linksim::plan_detail
