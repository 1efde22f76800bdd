// SPDX-License-Identifier: Apache-2.0
// ZeRO-3 / FSDP / HSDP: parameters gathered block by block for every micro-batch's forward and
// (when resharded after forward) again for its backward, gradients reduce-scattered block by
// block in the framework's reduction precision; HSDP adds an all-reduce of each gradient shard
// across the replicas. A gather runs ahead of the block computing (prefetch), so the first
// block's gather and the last block's reduce-scatter are exposed and the rest hides behind the
// blocks' compute as far as it lasts (docs/planner.md#fsdp).
#include <algorithm>

#include "plan/sharded_overheads.hpp"
#include "plan/step_builder.hpp"

namespace linksim::plan_detail {

ShardedPass sharded_pass_exposure(const ShardedBlockTimes& t, int blocks, int prefetch_depth) {
  ShardedPass out;
  const double n = blocks;
  const double regathered = t.regather_blocks;
  out.forward_s = t.root_gather_s + n * t.gather_s;
  out.backward_s = regathered * t.gather_s + n * (t.reduce_scatter_s + t.replica_reduce_s) +
                   t.root_reduce_scatter_s;
  if (prefetch_depth < 1) {  // nothing issued ahead: every collective waits for its block
    out.forward_exposed_s = out.forward_s;
    out.backward_exposed_s = out.backward_s;
    out.backward_excess_s =
        out.backward_s - t.reduce_scatter_s - t.replica_reduce_s - t.root_reduce_scatter_s;
    return out;
  }
  // Forward: the root's and the first block's gathers have nothing to hide behind; each later
  // one runs under the previous block's forward.
  out.forward_exposed_s = t.root_gather_s + t.gather_s +
                          std::max(0.0, (n - 1) * (t.gather_s - t.forward_block_s));
  // Backward runs the blocks in reverse: the first block of backward (the model's last) waits
  // for its gather when it was resharded; the last reduce-scatter (and replica all-reduce)
  // follows the final block's gradients.
  const double first = regathered >= n ? t.gather_s : 0;
  const double last = t.reduce_scatter_s + t.replica_reduce_s + t.root_reduce_scatter_s;
  out.backward_first_s = first;
  out.backward_excess_s = std::max(0.0, out.backward_s - first - last - (n - 1) * t.backward_block_s);
  out.backward_exposed_s = first + last + out.backward_excess_s;
  return out;
}

DataParallelCost StepBuilder::sharded_data_parallel(const StagesCost& stages) {
  DataParallelCost out;
  const Stage& stage = stages.slowest_stage();
  const StageCost& cost = stages.slowest_cost();
  // Pipelined FSDP2 (torchtitan) gathers once per step and reduce-scatters after the last
  // micro-batch, keeping parameters between: one pass of collectives a step, none resharded.
  const bool once = l_.pp > 1 && fw_.pipeline_gathers_once;
  const double m = once ? 1 : micro_batches();
  const int blocks = std::max(1, stage.layers.layers);
  for (const Shard& sh : shards(stage)) {
    if (sh.ranks.size() < 2 || sh.params <= 0) continue;
    // HSDP shards the dense weights over the first shard_group ranks of the group (one
    // server's) and all-reduces each gradient shard across the replicas.
    const bool hsdp = l_.shard_group > 0 && std::string_view(sh.kind) == "dp" &&
                      l_.shard_group < int(sh.ranks.size());
    std::vector<int> shard_ranks = sh.ranks, replica_ranks;
    if (hsdp) {
      shard_ranks.assign(sh.ranks.begin(), sh.ranks.begin() + l_.shard_group);
      for (size_t i = 0; i < sh.ranks.size(); i += size_t(l_.shard_group)) replica_ranks.push_back(sh.ranks[i]);
    }
    // The blocks are the transformer layers; the embedding, final norm and head form the root
    // unit (torchtitan's fully_shard of each block, then of the model).
    double root_params = 0;
    if (std::string_view(sh.kind) == "dp") {
      detail::StageLayers ends = stage.layers;
      ends.layers = ends.dense = 0;
      root_params = detail::stage_params(m_, l_, ends).dense;
    }
    const double block_params = (sh.params - root_params) / blocks;
    const double gather_bytes = block_params * p_.weight_bytes;
    const double reduce_bytes = block_params * fw_.grad_reduce_bytes;
    const double root_gather_bytes = root_params * p_.weight_bytes;
    const double root_reduce_bytes = root_params * fw_.grad_reduce_bytes;
    const auto g = pick(shard_ranks);
    ShardedBlockTimes t;
    if (shard_ranks.size() >= 2) {
      t.gather_s = time(g, CollectiveOp::kAllGather, gather_bytes).time_s;
      t.reduce_scatter_s = time(g, CollectiveOp::kReduceScatter, reduce_bytes).time_s;
      if (root_params > 0) {
        t.root_gather_s = time(g, CollectiveOp::kAllGather, root_gather_bytes).time_s;
        t.root_reduce_scatter_s = time(g, CollectiveOp::kReduceScatter, root_reduce_bytes).time_s;
      }
    }
    const double replica_bytes = reduce_bytes / double(shard_ranks.size());
    std::vector<DeviceId> replicas;
    if (replica_ranks.size() >= 2) {
      replicas = pick(replica_ranks);
      t.replica_reduce_s = time(replicas, CollectiveOp::kAllReduce, replica_bytes).time_s;
    }
    t.regather_blocks = !fw_.reshard_after_forward || once ? 0
                        : fw_.keep_last_block                ? blocks - 1
                                                             : blocks;
    t.forward_block_s = cost.fwd.compute.total() / blocks;
    t.backward_block_s = cost.bwd.compute.total() / blocks;
    const ShardedPass pass = sharded_pass_exposure(t, blocks, fw_.prefetch_depth);
    // Backward exposure by collective: the first regather to the gathers, the last
    // reduce-scatter (and replica all-reduce) to theirs, the uncovered middle in proportion
    // to each one's time.
    const double middle_s = pass.backward_s - pass.backward_first_s - t.reduce_scatter_s -
                            t.replica_reduce_s - t.root_reduce_scatter_s;
    auto excess = [&](double part_s) {
      return middle_s > 0 ? pass.backward_excess_s * part_s / middle_s : 0;
    };
    if (shard_ranks.size() >= 2) {
      // The root's gather and reduce-scatter are exposed whole; the blocks' collectives share
      // the rest of each pass's exposure.
      out.items.push_back({sh.kind, "forward", g, CollectiveOp::kAllGather, gather_bytes, m * blocks,
                           m * (pass.forward_exposed_s - t.root_gather_s)});
      if (root_params > 0) {
        out.items.push_back({sh.kind, "forward", g, CollectiveOp::kAllGather, root_gather_bytes, m,
                             m * t.root_gather_s});
        out.items.push_back({sh.kind, "backward", g, CollectiveOp::kReduceScatter, root_reduce_bytes, m,
                             m * t.root_reduce_scatter_s});
      }
      if (t.regather_blocks > 0) {
        out.items.push_back({sh.kind, "backward", g, CollectiveOp::kAllGather, gather_bytes,
                             m * t.regather_blocks,
                             m * (pass.backward_first_s +
                                  excess(t.regather_blocks * t.gather_s - pass.backward_first_s))});
      }
      out.items.push_back({sh.kind, "backward", g, CollectiveOp::kReduceScatter, reduce_bytes,
                           m * blocks,
                           m * (t.reduce_scatter_s + excess((blocks - 1) * t.reduce_scatter_s))});
    }
    if (!replicas.empty()) {
      out.items.push_back({"hsdp", "backward", replicas, CollectiveOp::kAllReduce, replica_bytes,
                           m * blocks,
                           m * (t.replica_reduce_s + excess((blocks - 1) * t.replica_reduce_s))});
    }
    out.exposed_s += m * (pass.forward_exposed_s + pass.backward_exposed_s);
    if (shard_ranks.size() >= 2) {
      // FSDP2 copies every gathered block (and the root unit) out on the compute stream.
      if (fw_.gather_copy_out) {
        const double gathered = (blocks + t.regather_blocks) * gather_bytes + root_gather_bytes;
        out.copy_out_s += m * memory_time_s(copy_out_bytes(gathered), rates_);
      }
      // FSDP1 concatenates each block's (and the root's) gradients into the flat gradient in
      // backward, in the gathered parameters' dtype, every micro-batch.
      if (fw_.flat_grad_copy) {
        const double grads = blocks * gather_bytes + root_gather_bytes;
        out.copy_out_s += micro_batches() * memory_time_s(flat_grad_copy_bytes(grads), rates_);
      }
      // What of each collective ran hidden under compute holds its NCCL channels' SMs.
      const int sms = rates_.multiprocessors;
      const double fwd_hidden_s = pass.forward_s - pass.forward_exposed_s;
      const double regather_s = t.regather_blocks * t.gather_s;
      const double regather_hidden_s =
          std::max(0.0, regather_s - pass.backward_first_s -
                            excess(regather_s - pass.backward_first_s));
      const double rs_hidden_s = std::max(
          0.0, (blocks - 1) * t.reduce_scatter_s - excess((blocks - 1) * t.reduce_scatter_s));
      const int gather_channels = collective_channels(g, CollectiveOp::kAllGather, gather_bytes);
      out.sm_share_s +=
          m * (sm_share_s(fwd_hidden_s + regather_hidden_s, gather_channels, sms) +
               sm_share_s(rs_hidden_s,
                          collective_channels(g, CollectiveOp::kReduceScatter, reduce_bytes), sms));
    }
  }
  out.optimizer_s = stage_optimizer_s(stage);
  return out;
}

}  // namespace linksim::plan_detail
