// SPDX-License-Identifier: Apache-2.0
#include "plan/step_model.hpp"

#include <algorithm>
#include <fmt/core.h>

#include "plan/step_builder.hpp"

namespace linksim::plan_detail {

StepBuilder::StepBuilder(const PlanRequest& r, const Precision& precision, const ParallelLayout& l,
                         const std::vector<DeviceId>& selected, CommTimer& timer)
    : r_(r), m_(r.model), l_(l), selected_(selected), timer_(timer),
      gpu_(timer.topology().gpu_model(selected.front())), p_(precision), fw_(framework_traits(r)),
      rates_(gpu_rates(gpu_, r, precision, fw_)), w_(work_shape(l, r.mode, r.iteration)), groups_(rank_groups(l)) {
  // A step waits for its slowest GPU: the lowest clock among them sets the compute rate.
  double clock = 1;
  for (DeviceId gpu : selected) clock = std::min(clock, timer.topology().device(gpu).clock_fraction);
  rates_.peak_flops *= clock;
  rates_.attention_peak_flops *= clock;
  rates_.fp32_conversions_per_s *= clock;
}

std::vector<DeviceId> StepBuilder::pick(const std::vector<int>& ranks, bool every_shift) {
  const int count = int(selected_.size());
  return pick_with(ranks, [ranks, count, every_shift] {
    return concurrent_groups(ranks, count, every_shift);
  });
}

std::vector<DeviceId> StepBuilder::pick_with(const std::vector<int>& own_ranks,
                                             RankGroups concurrent) {
  std::vector<DeviceId> own;
  own.reserve(own_ranks.size());
  for (int r : own_ranks) own.push_back(selected_[size_t(r)]);
  concurrent_.try_emplace(own, std::move(concurrent));
  return own;
}

std::vector<std::vector<DeviceId>> StepBuilder::gpus_of(
    const std::vector<std::vector<int>>& ranks) const {
  std::vector<std::vector<DeviceId>> groups;
  groups.reserve(ranks.size());
  for (const std::vector<int>& group : ranks) {
    std::vector<DeviceId>& g = groups.emplace_back();
    g.reserve(group.size());
    for (int r : group) g.push_back(selected_[size_t(r)]);
  }
  return groups;
}

void StepBuilder::describe_assumptions(std::vector<std::string>& lines) const {
  lines.push_back(fmt::format(
      "GEMMs at up to {:.0f} % of {:.0f} TFLOP/s dense {} ({} default{}), less for small or "
      "badly tiled shapes ({} SMs); FlashAttention at {:.0f} % forward, {:.0f} % backward{}",
      100 * rates_.gemm_efficiency, rates_.peak_flops / 1e12, p_.fp8_compute() ? "FP8" : "BF16",
      gpu_.arch, r_.gemm_efficiency ? ", overridden" : "", rates_.multiprocessors,
      100 * rates_.attention_fwd_efficiency, 100 * rates_.attention_bwd_efficiency,
      rates_.attention_peak_flops != rates_.peak_flops
          ? fmt::format(" of {:.0f} TFLOP/s dense BF16 (FP8 training keeps attention in BF16)",
                        rates_.attention_peak_flops / 1e12)
          : ""));
  lines.push_back(fmt::format("memory-bound kernels at {:.0f} % of {:.0f} GB/s HBM{}; a kernel "
                              "occupies the GPU for at least {:.0f} us ({})",
                              100 * rates_.hbm_efficiency, rates_.hbm_Bps / 1e9,
                              r_.hbm_efficiency ? " (overridden)" : "", rates_.launch_floor_s * 1e6,
                              rates_.cuda_graphs ? "CUDA graphs" : "kernels launched one by one"));
  if (train()) {
    lines.push_back(fmt::format("recompute={} ({}); backward = 2x forward GEMMs, FlashAttention "
                                "backward 2.5x its forward; Adam with fp32 master weights",
                                to_string(r_.recompute), describe_recompute(fw_, r_.recompute)));
    lines.push_back(describe_framework(fw_, l_.zero));
    lines.push_back(userbuffers()
                        ? "TP communication overlapped with the GEMMs it feeds (--tp-overlap async) "
                          "by Transformer Engine userbuffers: the GEMMs beside a reduce-scatter or "
                          "a bulk exchange on the SMs left by its 16, the last of 4 forward "
                          "reduce-scatter chunks exposed"
                    : r_.tp_overlap_async ? "TP communication overlapped with the GEMMs it feeds "
                                            "(--tp-overlap async)"
                                          : "TP communication exposed (no --tp-overlap async)");
  }
  if (m_.is_moe()) lines.push_back("MoE tokens routed uniformly over the experts");
  if (!train()) {
    if (r_.engine) {
      const EngineModel& e = *r_.engine;
      lines.push_back(fmt::format(
          "engine {} ({}): {:.2f} ms host time per iteration, {}, {} all-reduce{}",
          e.name, e.release, e.overhead_s(replica_gpus()) * 1e3, describe_launch(e),
          to_string(e.allreduce),
          e.allreduce == AllReduceImpl::kCustom ? " over NVLink where every pair has it, NCCL elsewhere" : ""));
    } else {
      lines.push_back("engine none: kernels and NCCL alone, no serving-engine overhead (--engine)");
    }
  }
  if (r_.sim_mode == SimMode::kFlow) {
    lines.push_back("each group's collectives simulated on its own GPUs, together with the "
                    "groups of its kind running at the same time whose flows cross its NIC, PCIe "
                    "uplink or socket link: one flow simulation, max-min fair "
                    "(docs/planner.md#shared-links)");
  } else {
    lines.push_back("each group's collectives timed on its own GPUs as one communicator, then "
                    "slowed where the groups of its kind running at the same time load the same "
                    "link (a NIC, a PCIe uplink, a socket link): that link's time is shared");
  }
}

void StepBuilder::describe(PlanResult& out) const {
  out.model = m_.name;
  out.topology = timer_.topology().name();
  out.gpu_model = gpu_.key;
  out.mode = r_.mode;
  out.gpus = l_.gpus();
  out.layout = l_;
  out.recompute = r_.recompute;
  out.dtype = p_.compute_name;
  out.weight_dtype = p_.weight_name;
  out.tp_overlap_async = r_.tp_overlap_async;
  if (r_.engine && !train()) out.engine = r_.engine->name;
  if (train()) out.framework = std::string(to_string(fw_.framework));
  describe_assumptions(out.assumptions);
  out.memory = estimate_memory(m_, l_, r_.mode, r_.recompute, p_.memory(), gpu_.memory_bytes,
                               attention_core(fw_, gpu_));
}

PipelineSend StepBuilder::pipeline_send() {
  PipelineSend out;
  out.bytes = activation_bytes() / (l_.sp ? l_.tp : 1);
  for (const auto& [a, b] : groups_.pp_pairs) {
    // Every stage sends to the next at once, in every pipeline.
    const std::vector<DeviceId> pair = pick({a, b}, true);
    const TimedCollective t = time(pair, CollectiveOp::kSendRecv, out.bytes);
    if (t.time_s > out.time_s) {
      out.time_s = t.time_s;
      out.pair = pair;
    }
  }
  return out;
}

std::vector<CommItem> StepBuilder::schedule_train(const StagesCost& stages,
                                                  const PipelineSend& send,
                                                  const DataParallelCost& dp,
                                                  PlanBreakdown& breakdown) {
  // step = m (f + b) + (pp - 1) / vpp (f + b) + exposed PP sends + exposed DP + optimizer
  const StageCost& cost = stages.slowest_cost();
  const double m = micro_batches();
  std::vector<CommItem> items;
  for (CommItem c : cost.comms) {
    c.count *= m;
    c.exposed_s *= m;
    items.push_back(c);
  }
  double pp_exposed_s = 0;
  if (l_.pp > 1) {
    const double sends = 2 * (m * l_.vpp + l_.pp - 1);
    pp_exposed_s = sends * send.time_s;
    if (l_.vpp > 1 && fw_.overlap_p2p_interleaved) {
      // Steady state: each chunk's send runs beside the next chunk's forward (f / v) or
      // backward (b / v) and shows only what outlasts it; the 2 (p - 1) warm-up and flush
      // sends are exposed.
      const double v = l_.vpp;
      pp_exposed_s = 2 * (l_.pp - 1) * send.time_s +
                     m * v * (std::max(0.0, send.time_s - cost.fwd.time() / v) +
                              std::max(0.0, send.time_s - cost.bwd.time() / v));
    }
    items.push_back({"pp", "forward+backward", send.pair, CollectiveOp::kSendRecv, send.bytes,
                     sends, pp_exposed_s});
  }
  items.insert(items.end(), dp.items.begin(), dp.items.end());
  const double f = cost.fwd.time(), b = cost.bwd.time();
  breakdown.compute_s = m * (cost.fwd.compute.total() + cost.bwd.compute.total()) +
                       dp.optimizer_s + dp.copy_out_s + dp.sm_share_s;
  breakdown.exposed_comm_s =
      m * (cost.fwd.exposed_comm_s + cost.bwd.exposed_comm_s) + pp_exposed_s + dp.exposed_s;
  breakdown.bubble_s = double(l_.pp - 1) / l_.vpp * (f + b);
  breakdown.microbatch_s = f + b;
  return items;
}

std::vector<CommItem> StepBuilder::schedule_chunked_prefill(const StagesCost& stages,
                                                            const PipelineSend& send, int chunks,
                                                            PlanResult& out) {
  // Chunked prefill through PP stages (docs/planner.md#chunked-prefill): the first chunk
  // passes every stage and every send in turn; each later chunk then leaves the slowest
  // stage one chunk-time after the previous one:
  //   step = sum_s T_s / n + (pp - 1) send(chunk) + (n - 1) T_slowest / n.
  // Counted as the slowest stage's work (T_slowest), the first chunk's sends, and the fill
  // and drain of the other stages, sum_s T_s / n - T_slowest / n, as the bubble.
  const StageCost& cost = stages.slowest_cost();
  const double n = chunks;
  const double chunk_bytes = send.bytes / n;
  const double chunk_send_s = time(send.pair, CollectiveOp::kSendRecv, chunk_bytes).time_s;
  out.breakdown.compute_s = cost.fwd.compute.total();
  out.breakdown.exposed_comm_s = cost.fwd.exposed_comm_s + (l_.pp - 1) * chunk_send_s;
  out.breakdown.bubble_s = std::max(0.0, (stages.sum_fwd_s - cost.fwd.time()) / n);
  std::vector<CommItem> items(cost.comms.begin(), cost.comms.end());
  items.push_back({"pp", "forward", send.pair, CollectiveOp::kSendRecv, chunk_bytes,
                   double(l_.pp - 1) * n, (l_.pp - 1) * chunk_send_s});
  out.assumptions.push_back(fmt::format("prefill pipelined over {} stages in {} chunks of {} tokens",
                                        l_.pp, chunks, r_.prefill_chunk));
  return items;
}

std::vector<CommItem> StepBuilder::schedule_inference(const StagesCost& stages,
                                                      const PipelineSend& send,
                                                      PlanBreakdown& breakdown) {
  // One batch passes every stage in turn: the stages' times add up.
  const double pp_exposed_s = l_.pp > 1 ? (l_.pp - 1) * send.time_s : 0;
  breakdown.compute_s = stages.sum_fwd.compute.total();
  breakdown.exposed_comm_s = stages.sum_fwd.exposed_comm_s + pp_exposed_s;
  breakdown.bubble_s = 0;
  std::vector<CommItem> items;
  for (const StageCost& c : stages.costs) items.insert(items.end(), c.comms.begin(), c.comms.end());
  if (l_.pp > 1) {
    items.push_back({"pp", "forward", send.pair, CollectiveOp::kSendRecv, send.bytes,
                     double(l_.pp - 1), pp_exposed_s});
  }
  return items;
}

PlanResult StepBuilder::build() {
  PlanResult out;
  describe(out);
  const StagesCost stages = cost_stages();
  out.layers_on_slowest_stage = stages.slowest_stage().layers.layers;
  const PipelineSend send = pipeline_send();
  std::vector<CommItem> items;
  DataParallelCost dp;
  if (train()) {
    dp = data_parallel(stages);
    items = schedule_train(stages, send, dp, out.breakdown);
  } else if (const int chunks = prefill_chunks(); chunks > 1) {
    items = schedule_chunked_prefill(stages, send, chunks, out);
  } else {
    items = schedule_inference(stages, send, out.breakdown);
  }
  if (r_.engine && !train()) out.breakdown.engine_overhead_s = r_.engine->overhead_s(replica_gpus());
  out.step_time_s = out.breakdown.compute_s + out.breakdown.exposed_comm_s + out.breakdown.bubble_s +
                    out.breakdown.engine_overhead_s;
  fill_compute(stages, dp, out);
  fill_comm_table(items, out);
  fill_throughput(out);
  return out;
}

IterationTime StepBuilder::time_only() {
  const StagesCost stages = cost_stages();
  const PipelineSend send = pipeline_send();
  PlanBreakdown b;
  schedule_inference(stages, send, b);
  IterationTime t;
  t.compute_s = b.compute_s;
  t.exposed_comm_s = b.exposed_comm_s;
  t.engine_overhead_s = r_.engine ? r_.engine->overhead_s(replica_gpus()) : 0;
  t.step_s = t.compute_s + t.exposed_comm_s + t.engine_overhead_s;
  return t;
}

PlanResult evaluate_layout(const PlanRequest& request, const Precision& precision,
                           const ParallelLayout& layout, const std::vector<DeviceId>& selected,
                           CommTimer& timer) {
  return StepBuilder(request, precision, layout, selected, timer).build();
}

}  // namespace linksim::plan_detail
