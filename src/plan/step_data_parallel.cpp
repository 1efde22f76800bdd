// SPDX-License-Identifier: Apache-2.0
// The data-parallel side of a training step with replicated or optimizer-sharded weights
// (ZeRO 0-2): the gradient reduction and parameter gather over the ranks that share the
// slowest stage's weights, in the framework's buckets and precision, what of it the step's
// compute hides, and the optimizer on the local shard (docs/planner.md#communication).
#include <algorithm>
#include <cmath>

#include "plan/sharded_overheads.hpp"
#include "plan/step_builder.hpp"

namespace linksim::plan_detail {

std::vector<StepBuilder::Shard> StepBuilder::shards(const Stage& stage) const {
  // CP ranks hold the same weights as their DP peers: gradients reduce over DP x CP; routed
  // experts over their expert data-parallel group.
  return {{"dp", groups_.dp_cp, stage.params.dense}, {"edp", groups_.edp, stage.params.expert}};
}

double StepBuilder::stage_optimizer_s(const Stage& stage) const {
  const double dense = stage.params.dense, expert = stage.params.expert;
  const double shard_dense = l_.zero >= 1 ? dense / detail::dense_shards(l_) : dense;
  const double shard_expert = l_.zero >= 1 ? expert / detail::expert_shards(l_) : expert;
  // Tensors the optimizer visits: the attention projections, the FFN matrices and two norms
  // per layer, plus the embedding and head.
  const double ffn_tensors = m_.ffn_type == FfnType::kSwiGlu ? 3 : 2;
  const double tensors = stage.layers.layers * (4 + ffn_tensors + 2) + 2;
  return optimizer_time_s(shard_dense + shard_expert, tensors, rates_);
}

DataParallelCost StepBuilder::data_parallel(const StagesCost& stages) {
  if (l_.zero >= 3) return sharded_data_parallel(stages);
  DataParallelCost out;
  const Stage& stage = stages.slowest_stage();
  const StageCost& cost = stages.slowest_cost();
  const int layers = stage.layers.layers;
  // Bucket by bucket, all but the last layer's share hides behind the pass it overlaps
  // (Megatron's overlap-grad-reduce and overlap-param-gather); a stack that reduces after the
  // backward hides nothing.
  const double fwd_window = fw_.overlap_param_gather
                                ? cost.fwd.compute.total() * (layers - 1) / std::max(1, layers)
                                : 0;
  const double bwd_window = fw_.overlap_grad_reduce
                                ? cost.bwd.compute.total() * (layers - 1) / std::max(1, layers)
                                : 0;
  for (const Shard& sh : shards(stage)) {
    if (sh.ranks.size() < 2 || sh.params <= 0) continue;
    const auto g = pick(sh.ranks);
    // DeepSpeed reduces in buckets of reduce_bucket_size elements, one collective each.
    const double buckets =
        fw_.bucket_elements > 0 ? std::max(1.0, std::ceil(sh.params / fw_.bucket_elements)) : 1;
    const double grads = sh.params * fw_.grad_reduce_bytes / buckets;
    const double weights = sh.params * p_.weight_bytes / buckets;
    auto add = [&](CollectiveOp op, double bytes, double window) {
      const double t = time(g, op, bytes).time_s;
      const double exposed = std::max(0.0, buckets * t - window);
      out.items.push_back({sh.kind, "step", g, op, bytes, buckets, exposed});
      out.exposed_s += exposed;
      // The part hidden under the pass holds the collective's channels' SMs
      // (docs/planner.md#fsdp-overheads).
      const double hidden_s = buckets * t - exposed;
      if (hidden_s > 0) {
        out.sm_share_s +=
            sm_share_s(hidden_s, collective_channels(g, op, bytes), rates_.multiprocessors);
      }
    };
    if (l_.zero == 0) {
      add(CollectiveOp::kAllReduce, grads, bwd_window);
    } else {
      add(CollectiveOp::kReduceScatter, grads, bwd_window);
      add(CollectiveOp::kAllGather, weights, fwd_window);
    }
  }
  out.optimizer_s = stage_optimizer_s(stage);
  return out;
}

}  // namespace linksim::plan_detail
