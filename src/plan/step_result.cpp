// SPDX-License-Identifier: Apache-2.0
// The result tables of a plan once its step is composed: the compute detail, the
// communications merged by kind, phase, collective and size, and throughput and FLOPs
// (docs/planner.md#flop-convention).
#include <algorithm>

#include "linksim/collective_rows.hpp"
#include "plan/gemm_calls.hpp"
#include "plan/step_builder.hpp"

namespace linksim::plan_detail {

int StepBuilder::collective_channels(const std::vector<DeviceId>& g, CollectiveOp op,
                                     double bytes) const {
  if (g.size() < 2) return 0;
  CollectiveQuery q;
  q.op = op;
  q.size_bytes = bytes;
  return Communicator(timer_.topology(), g, r_.comm).run(q).channels;
}

void StepBuilder::fill_compute(const StagesCost& stages, const DataParallelCost& dp,
                               PlanResult& out) const {
  // The whole step on the slowest stage for training; every stage for inference.
  const StageCost& cost = stages.slowest_cost();
  const double m = micro_batches();
  LayerCost step_compute = train() ? LayerCost(cost.fwd.compute).scaled(m) : stages.sum_fwd.compute;
  if (train()) step_compute += cost.bwd.compute.scaled(m);
  PlanCompute& c = out.compute;
  c.gemm_s = step_compute.gemm_s;
  c.attention_s = step_compute.attention_s;
  // FSDP2's copy-out is memory-bound work on the compute stream; the SMs NCCL holds slow the
  // kernels beside it, counted with the launch and scheduling overheads.
  c.memory_bound_s = step_compute.memory_s + dp.copy_out_s;
  c.overhead_s = step_compute.overhead_s + dp.sm_share_s;
  c.comm_sm_s = dp.sm_share_s;
  c.optimizer_s = dp.optimizer_s;
  c.total_s = out.breakdown.compute_s;
  c.gemm_efficiency = rates_.gemm_efficiency;
  c.achieved_gemm_efficiency =
      step_compute.gemm_s + step_compute.attention_s > 0
          ? step_compute.flops / (rates_.peak_flops * (step_compute.gemm_s + step_compute.attention_s))
          : 0;
  c.hbm_efficiency = rates_.hbm_efficiency;
  c.peak_flops = rates_.peak_flops;
  c.hbm_Bps = rates_.hbm_Bps;
  c.flops = step_compute.flops;
  c.memory_bytes = step_compute.memory_bytes;
  // The head's GEMM as stage_cost runs it: prefill samples the last position of each sequence.
  WorkShape head = w_;
  if (r_.mode == PlanMode::kPrefill) head.tokens = w_.sequences;
  if (w_.iteration) head.tokens = w_.logit_rows;
  bool dense = !m_.is_moe();
  for (const Stage& s : stages.stages) dense = dense || s.layers.dense > 0;
  c.gemms = report_gemms(m_, l_, w_, head, dense, m_.is_moe(), true, p_, rates_);
}

void StepBuilder::fill_comm_table(const std::vector<CommItem>& items, PlanResult& out) {
  for (const CommItem& i : items) {
    const TimedCollective t = time(i.group, i.op, i.bytes);
    auto same = std::find_if(out.comms.begin(), out.comms.end(), [&](const PlanComm& c) {
      return c.kind == i.kind && c.phase == i.phase && c.collective == i.op && c.bytes == i.bytes &&
             c.group_size == int(i.group.size());
    });
    if (same == out.comms.end()) {
      PlanComm c;
      c.kind = i.kind;
      c.phase = i.phase;
      c.group_size = int(i.group.size());
      c.collective = i.op;
      c.bytes = i.bytes;
      c.algorithm = t.algorithm;
      c.protocol = t.protocol;
      c.bottleneck = describe_bottleneck(t.bottleneck, timer_.topology());
      c.implementation = t.implementation;
      c.gpus = describe_gpus(timer_.topology(), i.group);
      c.group = i.group;
      c.shared_slowdown = t.shared_slowdown;
      if (t.shared_link) {
        Bottleneck link;
        link.kind = BottleneckKind::kLink;
        link.link = *t.shared_link;
        link.family = timer_.topology().link(*t.shared_link).family;
        link.name_family = false;
        c.shared_link = describe_bottleneck(link, timer_.topology());
      }
      c.shared_groups = t.shared_groups;
      for (const std::vector<DeviceId>& other : t.shared_with) {
        c.shared_with.push_back(describe_gpus(timer_.topology(), other));
      }
      out.comms.push_back(c);
      same = out.comms.end() - 1;
    }
    same->count += i.count;
    same->time_s += i.count * t.time_s;
    same->exposed_s += i.exposed_s;
  }
  for (const PlanComm& c : out.comms) out.comm_time_s += c.time_s;
}

void StepBuilder::fill_throughput(PlanResult& out) const {
  // PaLM's 6N + 12 l h s per training token; the forward third for prefill and decode.
  const ParamCounts params = count_params(m_);
  const double attn_dim = double(m_.heads) * m_.head_dim;
  double tokens = 0;
  switch (r_.mode) {
    case PlanMode::kTrain:
      tokens = double(l_.global_batch) * l_.seq;
      out.model_flops = tokens * (6 * params.active_non_embedding + 12.0 * m_.layers * attn_dim * l_.seq);
      break;
    case PlanMode::kPrefill:
      tokens = double(l_.batch) * l_.seq;
      out.model_flops = tokens * (2 * params.active_non_embedding + 4.0 * m_.layers * attn_dim * l_.seq);
      out.ttft_s = out.step_time_s;
      break;
    case PlanMode::kDecode:
      tokens = l_.batch;
      out.model_flops = tokens * (2 * params.active_non_embedding + 4.0 * m_.layers * attn_dim * (l_.kv_len + 1));
      out.tpot_s = out.step_time_s;
      break;
  }
  out.tokens_per_s = tokens / out.step_time_s;
  out.tokens_per_s_per_gpu = out.tokens_per_s / out.gpus;
  out.model_tflops_per_gpu = out.model_flops / out.step_time_s / out.gpus / 1e12;
  out.mfu = out.model_flops / (out.step_time_s * out.gpus * rates_.peak_flops);
  out.comm_compute_ratio = out.breakdown.compute_s > 0 ? out.comm_time_s / out.breakdown.compute_s : 0;
}

}  // namespace linksim::plan_detail
