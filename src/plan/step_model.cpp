// SPDX-License-Identifier: Apache-2.0
#include "plan/step_model.hpp"

#include <algorithm>
#include <fmt/core.h>

#include "linksim/error.hpp"
#include "plan/compute_model.hpp"
#include "plan/layout.hpp"
#include "plan/stage_params.hpp"

namespace linksim::plan_detail {
namespace {

/// One kind of collective of one pass, per layer (or per micro-batch / per step).
struct CommItem {
  std::string kind, phase;
  std::vector<DeviceId> group;
  CollectiveOp op;
  double bytes = 0;
  double count = 0;      // calls per step
  double exposed_s = 0;  // of the whole step
};

std::vector<DeviceId> pick(const std::vector<DeviceId>& selected, const std::vector<int>& ranks) {
  std::vector<DeviceId> out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(selected[size_t(r)]);
  return out;
}

struct Stage {
  detail::StageLayers layers;
  detail::HeldParams params;  // per GPU, before ZeRO sharding
};

std::vector<Stage> build_stages(const ModelSpec& m, const ParallelLayout& l) {
  std::vector<Stage> stages;
  for (int s = 0; s < l.pp; ++s) {
    const detail::StageLayers layers = detail::stage_layers(m, l.pp, s);
    stages.push_back({layers, detail::stage_params(m, l, layers)});
  }
  return stages;
}

struct PassCost {
  LayerCost compute;
  double exposed_comm_s = 0;
  double time() const { return compute.total() + exposed_comm_s; }
};

struct StageCost {
  PassCost fwd, bwd;
  std::vector<CommItem> comms;  // per micro-batch (train) or per step (inference)
};

class StepBuilder {
 public:
  StepBuilder(const PlanRequest& r, const ParallelLayout& l, const std::vector<DeviceId>& selected,
              CommTimer& timer)
      : r_(r), m_(r.model), l_(l), selected_(selected), timer_(timer),
        gpu_(timer.topology().gpu_model(selected.front())), rates_(gpu_rates(gpu_, r)),
        w_(work_shape(l, r.mode)), groups_(rank_groups(l)) {
    // A step waits for its slowest GPU: the lowest clock among them sets the compute rate.
    double clock = 1;
    for (DeviceId gpu : selected) clock = std::min(clock, timer.topology().device(gpu).clock_fraction);
    rates_.peak_flops *= clock;
    p_.act_bytes = 2;
    p_.weight_bytes = dtype_bytes(r.weight_dtype.value_or(r.dtype == "fp8" && r.mode != PlanMode::kTrain ? "fp8" : "bf16"),
                                  "--weight-dtype");
    if (r.mode == PlanMode::kTrain) p_.weight_bytes = 2;
    p_.kv_bytes = r.mode != PlanMode::kTrain && r.dtype == "fp8" ? 1 : 2;
  }

  PlanResult build();

 private:
  bool train() const { return r_.mode == PlanMode::kTrain; }
  double activation_bytes() const { return w_.tokens * m_.hidden * p_.act_bytes; }
  TimedCollective time(const std::vector<DeviceId>& g, CollectiveOp op, double bytes) {
    return timer_.time(g, op, bytes);
  }
  StageCost stage_cost(const Stage& s);
  /// Chunks of a pipelined prefill (PlanRequest::prefill_chunk); 1 when not pipelined.
  int prefill_chunks() const {
    if (r_.mode != PlanMode::kPrefill || l_.pp < 2 || r_.prefill_chunk <= 0) return 1;
    return (l_.seq + r_.prefill_chunk - 1) / r_.prefill_chunk;
  }
  void describe_assumptions(std::vector<std::string>& lines) const;
  void add_layer_comms(bool moe, int layers, StageCost& c, double fwd_hide_s, double bwd_hide_s,
                       double attn_fwd_s, double attn_bwd_s);

  const PlanRequest& r_;
  const ModelSpec& m_;
  const ParallelLayout& l_;
  const std::vector<DeviceId>& selected_;
  CommTimer& timer_;
  const GpuModel& gpu_;
  GpuRates rates_;
  WorkShape w_;
  Groups groups_;
  Precision p_;
  std::vector<std::string> notes_;
};

void StepBuilder::add_layer_comms(bool moe, int layers, StageCost& c, double fwd_hide_s,
                                  double bwd_hide_s, double attn_fwd_s, double attn_bwd_s) {
  if (layers == 0) return;
  const double n = layers;
  // Tensor parallelism: two exchanges per layer and pass (after attention, after the FFN).
  if (l_.tp > 1) {
    const auto g = pick(selected_, groups_.tp);
    const double a = activation_bytes();
    struct Call { CollectiveOp op; double fwd, bwd; };
    std::vector<Call> calls;
    const double recompute_fwd = r_.recompute == Recompute::kFull ? 1 : 0;
    if (!l_.sp) {
      calls.push_back({CollectiveOp::kAllReduce, 2 * (1 + recompute_fwd), 2});
    } else {
      // Megatron SP: forward AG + RS per block; backward RS + AG, plus the re-gather of the
      // sharded input for the weight gradient.
      calls.push_back({CollectiveOp::kAllGather, 2 * (1 + recompute_fwd), 4});
      calls.push_back({CollectiveOp::kReduceScatter, 2 * (1 + recompute_fwd), 2});
    }
    double fwd_s = 0, bwd_s = 0;
    for (const Call& call : calls) {
      const double t = time(g, call.op, a).time_s;
      fwd_s += call.fwd * t;
      bwd_s += call.bwd * t;
    }
    const double fwd_exposed = r_.tp_overlap_async ? std::max(0.0, fwd_s - fwd_hide_s) : fwd_s;
    const double bwd_exposed = r_.tp_overlap_async ? std::max(0.0, bwd_s - bwd_hide_s) : bwd_s;
    for (const Call& call : calls) {
      const double t = time(g, call.op, a).time_s;
      c.comms.push_back({"tp", "forward", g, call.op, a, call.fwd * n,
                         fwd_s > 0 ? n * fwd_exposed * call.fwd * t / fwd_s : 0});
      if (train()) {
        c.comms.push_back({"tp", "backward", g, call.op, a, call.bwd * n,
                           bwd_s > 0 ? n * bwd_exposed * call.bwd * t / bwd_s : 0});
      }
    }
    c.fwd.exposed_comm_s += n * fwd_exposed;
    if (train()) c.bwd.exposed_comm_s += n * bwd_exposed;
  }
  // Expert parallelism: AllToAll dispatch and combine of the routed tokens.
  if (moe && l_.ep > 1) {
    const auto g = pick(selected_, groups_.ep);
    const double send = w_.tokens / l_.tp * m_.topk * m_.hidden * p_.act_bytes;
    const double t = time(g, CollectiveOp::kAllToAll, send).time_s;
    c.comms.push_back({"ep", "forward", g, CollectiveOp::kAllToAll, send, 2 * n, 2 * n * t});
    c.fwd.exposed_comm_s += 2 * n * t;
    if (train()) {
      c.comms.push_back({"ep", "backward", g, CollectiveOp::kAllToAll, send, 2 * n, 2 * n * t});
      c.bwd.exposed_comm_s += 2 * n * t;
    }
  }
  // Context parallelism: K/V of every CP rank gathered around the ring, hidden behind the
  // attention core as far as it lasts; backward also reduce-scatters dK/dV.
  if (l_.cp > 1) {
    const auto g = pick(selected_, groups_.cp);
    const double kv_local = std::max(1.0, double(m_.kv_heads) / l_.tp) * m_.head_dim;
    const double gathered = l_.cp * w_.tokens * 2 * kv_local * p_.act_bytes;
    const double ag = time(g, CollectiveOp::kAllGather, gathered).time_s;
    const double fwd_exposed = std::max(0.0, ag - attn_fwd_s);
    c.comms.push_back({"cp", "forward", g, CollectiveOp::kAllGather, gathered, n, n * fwd_exposed});
    c.fwd.exposed_comm_s += n * fwd_exposed;
    if (train()) {
      const double rs = time(g, CollectiveOp::kReduceScatter, gathered).time_s;
      const double bwd_exposed = std::max(0.0, ag + rs - attn_bwd_s);
      c.comms.push_back({"cp", "backward", g, CollectiveOp::kAllGather, gathered, n,
                         n * bwd_exposed * ag / (ag + rs)});
      c.comms.push_back({"cp", "backward", g, CollectiveOp::kReduceScatter, gathered, n,
                         n * bwd_exposed * rs / (ag + rs)});
      c.bwd.exposed_comm_s += n * bwd_exposed;
    }
  }
}

StageCost StepBuilder::stage_cost(const Stage& s) {
  StageCost c;
  for (int moe = 0; moe < 2; ++moe) {
    const int layers = moe ? s.layers.moe() : s.layers.dense;
    if (layers == 0) continue;
    const LayerCost f = layer_forward(m_, l_, w_, moe, p_, rates_);
    c.fwd.compute += f.scaled(layers);
    double bwd_attention_s = 0;
    if (train()) {
      const LayerCost b = layer_backward(m_, l_, w_, moe, p_, rates_);
      LayerCost recompute;
      if (r_.recompute == Recompute::kFull) recompute = f;
      if (r_.recompute == Recompute::kSelective) recompute.attention_s = f.attention_s;
      LayerCost total_b = b;
      total_b += recompute;
      c.bwd.compute += total_b.scaled(layers);
      bwd_attention_s = b.attention_s;
    }
    const double hide = tp_overlappable_gemm_s(m_, l_, w_, moe, p_, rates_);
    add_layer_comms(moe, layers, c, hide, 2 * hide, f.attention_s, bwd_attention_s);
  }
  WorkShape head = w_;
  if (r_.mode == PlanMode::kPrefill) head.tokens = w_.sequences;  // logits of the last position only
  if (s.layers.first) c.fwd.compute += embedding_forward(m_, w_, p_, rates_);
  if (s.layers.last) {
    const LayerCost logits = logits_forward(m_, l_, head, p_, rates_);
    c.fwd.compute += logits;
    if (train()) c.bwd.compute += logits.scaled(2);
  }
  return c;
}

void StepBuilder::describe_assumptions(std::vector<std::string>& lines) const {
  lines.push_back(fmt::format(
      "GEMMs at up to {:.0f} % of {:.0f} TFLOP/s dense {} ({} default{}), less for small or "
      "badly tiled shapes ({} SMs); FlashAttention at {:.0f} % forward, {:.0f} % backward",
      100 * rates_.gemm_efficiency, rates_.peak_flops / 1e12, r_.dtype == "fp8" ? "FP8" : "BF16",
      gpu_.arch, r_.gemm_efficiency ? ", overridden" : "", rates_.multiprocessors,
      100 * rates_.attention_fwd_efficiency, 100 * rates_.attention_bwd_efficiency));
  lines.push_back(fmt::format("memory-bound kernels at {:.0f} % of {:.0f} GB/s HBM{}; a kernel "
                              "occupies the GPU for at least {:.0f} us ({})",
                              100 * rates_.hbm_efficiency, rates_.hbm_Bps / 1e9,
                              r_.hbm_efficiency ? " (overridden)" : "", rates_.launch_floor_s * 1e6,
                              train() ? "kernels launched one by one" : "CUDA graphs"));
  if (train()) {
    lines.push_back(fmt::format("recompute={}; backward = 2x forward GEMMs, FlashAttention backward "
                                "2.5x its forward; Adam with fp32 master weights",
                                to_string(r_.recompute)));
    lines.push_back("DP gradient reduction overlaps the last micro-batch's backward, the parameter "
                    "all-gather the next step's first forward (Megatron's overlap-grad-reduce and "
                    "overlap-param-gather), bucket by bucket: the last layer's share stays exposed");
    lines.push_back(r_.tp_overlap_async ? "TP communication overlapped with the GEMMs it feeds "
                                          "(--tp-overlap async)"
                                        : "TP communication exposed (no --tp-overlap async)");
  }
  if (m_.is_moe()) lines.push_back("MoE tokens routed uniformly over the experts");
  lines.push_back("each group's collectives timed on its own GPUs as one communicator; concurrent "
                  "groups that share a link (a NIC, a PCIe uplink) are not slowed by each other");
}

}  // namespace

double dtype_bytes(const std::string& name, const char* flag) {
  if (name == "bf16" || name == "fp16") return 2;
  if (name == "fp8" || name == "int8") return 1;
  if (name == "int4") return 0.5;
  if (name == "fp32") return 4;
  throw ConfigError(fmt::format("{}: expected one of bf16, fp16, fp8, int8, int4, got \"{}\"", flag, name));
}

PlanResult StepBuilder::build() {
  PlanResult out;
  out.model = m_.name;
  out.topology = timer_.topology().name();
  out.gpu_model = gpu_.key;
  out.mode = r_.mode;
  out.gpus = l_.gpus();
  out.layout = l_;
  out.recompute = r_.recompute;
  out.dtype = r_.dtype;
  out.weight_dtype = p_.weight_bytes == 2 ? (r_.dtype == "fp16" ? "fp16" : "bf16")
                                          : r_.weight_dtype.value_or("fp8");
  out.tp_overlap_async = r_.tp_overlap_async;

  describe_assumptions(out.assumptions);

  // Memory.
  PrecisionChoice precision;
  precision.activation_bytes = p_.act_bytes;
  precision.kv_cache_bytes = p_.kv_bytes;
  precision.weight_bytes = p_.weight_bytes;
  out.memory = estimate_memory(m_, l_, r_.mode, r_.recompute, precision, gpu_.memory_bytes);

  // Compute and intra-layer communication of every stage; the slowest sets the pace.
  const std::vector<Stage> stages = build_stages(m_, l_);
  std::vector<StageCost> costs;
  costs.reserve(stages.size());
  size_t slowest = 0;
  double sum_fwd_s = 0;
  PassCost sum_fwd;
  for (size_t s = 0; s < stages.size(); ++s) {
    costs.push_back(stage_cost(stages[s]));
    sum_fwd_s += costs.back().fwd.time();
    sum_fwd.compute += costs.back().fwd.compute;
    sum_fwd.exposed_comm_s += costs.back().fwd.exposed_comm_s;
    const double t = costs.back().fwd.time() + costs.back().bwd.time();
    const double best = costs[slowest].fwd.time() + costs[slowest].bwd.time();
    if (t > best) slowest = s;
  }
  const Stage& stage = stages[slowest];
  StageCost& cost = costs[slowest];
  out.layers_on_slowest_stage = stage.layers.layers;

  // Pipeline sends between neighbouring stages: the slowest pair.
  double send_s = 0;
  double send_bytes = activation_bytes() / (l_.sp ? l_.tp : 1);
  std::vector<DeviceId> send_pair;
  TimedCollective send_timed;
  for (const auto& [a, b] : groups_.pp_pairs) {
    std::vector<DeviceId> pair{selected_[size_t(a)], selected_[size_t(b)]};
    TimedCollective t = time(pair, CollectiveOp::kSendRecv, send_bytes);
    if (t.time_s > send_s) {
      send_s = t.time_s;
      send_pair = pair;
      send_timed = t;
    }
  }

  std::vector<CommItem> items;
  const double m = train() ? l_.micro_batches() : 1;
  for (CommItem c : cost.comms) {
    c.count *= m;
    c.exposed_s *= m;
    items.push_back(c);
  }
  double pp_exposed_s = 0;
  if (l_.pp > 1) {
    const double sends = train() ? 2 * (m * l_.vpp + l_.pp - 1) : l_.pp - 1;
    pp_exposed_s = sends * send_s;
    items.push_back({"pp", train() ? "forward+backward" : "forward", send_pair,
                     CollectiveOp::kSendRecv, send_bytes, sends, pp_exposed_s});
  }

  double dp_exposed_s = 0, optimizer_s = 0;
  if (train()) {
    const double dense_local = stage.params.dense;
    const double expert_local = stage.params.expert;
    const double fwd_window = cost.fwd.compute.total() * (out.layers_on_slowest_stage - 1) /
                              std::max(1, out.layers_on_slowest_stage);
    const double bwd_window = cost.bwd.compute.total() * (out.layers_on_slowest_stage - 1) /
                              std::max(1, out.layers_on_slowest_stage);
    struct Shard { const char* kind; std::vector<int> ranks; double params; };
    // CP ranks hold the same weights as their DP peers: gradients reduce over DP x CP.
    const Shard shards[] = {{"dp", groups_.dp_cp, dense_local}, {"edp", groups_.edp, expert_local}};
    for (const Shard& sh : shards) {
      if (sh.ranks.size() < 2 || sh.params <= 0) continue;
      const auto g = pick(selected_, sh.ranks);
      const double grads = sh.params * 2, weights = sh.params * p_.weight_bytes;
      auto add = [&](const char* phase, CollectiveOp op, double bytes, double count, double window) {
        const double t = time(g, op, bytes).time_s;
        const double exposed = std::max(0.0, count * t - window);
        items.push_back({sh.kind, phase, g, op, bytes, count, exposed});
        dp_exposed_s += exposed;
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
    optimizer_s = optimizer_time_s(shard_dense + shard_expert, rates_);
  }

  // Step time.
  if (train()) {
    const double f = cost.fwd.time(), b = cost.bwd.time();
    const double bubble = double(l_.pp - 1) / l_.vpp * (f + b);
    out.breakdown.compute_s = m * (cost.fwd.compute.total() + cost.bwd.compute.total()) + optimizer_s;
    out.breakdown.exposed_comm_s = m * (cost.fwd.exposed_comm_s + cost.bwd.exposed_comm_s) +
                                   pp_exposed_s + dp_exposed_s;
    out.breakdown.bubble_s = bubble;
    out.breakdown.microbatch_s = f + b;
  } else if (const int chunks = prefill_chunks(); chunks > 1) {
    // Chunked prefill through PP stages (docs/planner.md#chunked-prefill): the first chunk
    // passes every stage and every send in turn; each later chunk then leaves the slowest
    // stage one chunk-time after the previous one:
    //   step = sum_s T_s / n + (pp - 1) send(chunk) + (n - 1) T_slowest / n.
    // Counted as the slowest stage's work (T_slowest), the first chunk's sends, and the fill
    // and drain of the other stages, sum_s T_s / n - T_slowest / n, as the bubble.
    const double n = chunks;
    const double chunk_bytes = send_bytes / n;
    const double chunk_send_s = time(send_pair, CollectiveOp::kSendRecv, chunk_bytes).time_s;
    out.breakdown.compute_s = cost.fwd.compute.total();
    out.breakdown.exposed_comm_s = cost.fwd.exposed_comm_s + (l_.pp - 1) * chunk_send_s;
    out.breakdown.bubble_s = std::max(0.0, (sum_fwd_s - cost.fwd.time()) / n);
    items.clear();
    for (const CommItem& i : cost.comms) items.push_back(i);
    items.push_back({"pp", "forward", send_pair, CollectiveOp::kSendRecv, chunk_bytes,
                     double(l_.pp - 1) * n, (l_.pp - 1) * chunk_send_s});
    out.assumptions.push_back(fmt::format("prefill pipelined over {} stages in {} chunks of {} tokens",
                                 l_.pp, chunks, r_.prefill_chunk));
  } else {
    // One batch passes every stage in turn: the stages' times add up.
    out.breakdown.compute_s = sum_fwd.compute.total();
    out.breakdown.exposed_comm_s = sum_fwd.exposed_comm_s + pp_exposed_s;
    out.breakdown.bubble_s = 0;
    items.clear();
    for (const StageCost& c : costs) {
      for (const CommItem& i : c.comms) items.push_back(i);
    }
    if (l_.pp > 1) {
      items.push_back({"pp", "forward", send_pair, CollectiveOp::kSendRecv, send_bytes,
                       double(l_.pp - 1), pp_exposed_s});
    }
  }
  out.step_time_s = out.breakdown.compute_s + out.breakdown.exposed_comm_s + out.breakdown.bubble_s;

  // Compute detail (whole step on the slowest stage for training; every stage for inference).
  LayerCost step_compute = train() ? LayerCost(cost.fwd.compute).scaled(m) : sum_fwd.compute;
  if (train()) step_compute += cost.bwd.compute.scaled(m);
  out.compute.gemm_s = step_compute.gemm_s;
  out.compute.attention_s = step_compute.attention_s;
  out.compute.memory_bound_s = step_compute.memory_s;
  out.compute.overhead_s = step_compute.overhead_s;
  out.compute.optimizer_s = optimizer_s;
  out.compute.total_s = out.breakdown.compute_s;
  out.compute.gemm_efficiency = rates_.gemm_efficiency;
  out.compute.achieved_gemm_efficiency =
      step_compute.gemm_s + step_compute.attention_s > 0
          ? step_compute.flops / (rates_.peak_flops * (step_compute.gemm_s + step_compute.attention_s))
          : 0;
  out.compute.hbm_efficiency = rates_.hbm_efficiency;
  out.compute.peak_flops = rates_.peak_flops;
  out.compute.hbm_Bps = rates_.hbm_Bps;
  out.compute.flops = step_compute.flops;
  out.compute.memory_bytes = step_compute.memory_bytes;

  // Communications table, merged by kind, phase, collective and size.
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
      c.bottleneck = t.bottleneck;
      c.gpus = describe_gpus(timer_.topology(), i.group);
      c.group = i.group;
      out.comms.push_back(c);
      same = out.comms.end() - 1;
    }
    same->count += i.count;
    same->time_s += i.count * t.time_s;
    same->exposed_s += i.exposed_s;
  }
  for (const PlanComm& c : out.comms) out.comm_time_s += c.time_s;

  // Throughput and FLOPs (docs/planner.md#flop-convention: PaLM's 6N + 12 l h s per token).
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
  return out;
}

PlanResult evaluate_layout(const PlanRequest& request, const ParallelLayout& layout,
                           const std::vector<DeviceId>& selected, CommTimer& timer) {
  return StepBuilder(request, layout, selected, timer).build();
}

}  // namespace linksim::plan_detail
