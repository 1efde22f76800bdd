// SPDX-License-Identifier: Apache-2.0
#include "plan/compute_model.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "plan/gemm_calls.hpp"

namespace linksim::plan_detail {
namespace {

/// Per-generation attention efficiencies (docs/planner.md#compute lists the sources); the
/// GEMMs' ceilings are gemm_ceiling's (src/plan/gemm_model.cpp).
struct GenerationDefaults {
  std::string_view arch;
  double attention_fwd;  // FlashAttention-2 (Ampere, Ada), FlashAttention-3 / cuDNN (Hopper, Blackwell)
  double attention_bwd;
};
constexpr GenerationDefaults kGenerations[] = {
    {"hopper", 0.45, 0.35},
    {"blackwell", 0.45, 0.35},
    {"ampere", 0.55, 0.45},
    {"ada", 0.50, 0.40},
    // No FlashAttention before Ampere: attention runs as unfused GEMM + softmax kernels.
    {"volta", 0.30, 0.30},
    {"turing", 0.30, 0.30},
};
// FlashAttention-2 (PyTorch SDPA's flash backend, flash-attn 2) on H100, head dim 128, long
// sequences: Shah et al. 2024, "FlashAttention-3", figures 4 and 6 (FA2 bars).
constexpr double kFa2HopperFwd = 0.35;
constexpr double kFa2HopperBwd = 0.30;
constexpr double kHbmEfficiency = 0.85;
constexpr double kLaunchFloorEager_s = 4e-6;   // training: kernels launched one by one
constexpr double kLaunchFloorGraphs_s = 2e-6;  // serving: CUDA graphs replay the step
// Type conversions (cvt.f32.f16 and the like) per clock per SM on every architecture from
// Volta to Hopper: CUDA C++ Programming Guide, "Arithmetic Instructions", throughput table
// row "all other type conversions" (docs/serving.md#releases).
constexpr double kConversionsPerClockPerSm = 16;

const GenerationDefaults& defaults_for(const std::string& arch) {
  for (const GenerationDefaults& g : kGenerations) {
    if (g.arch == arch) return g;
  }
  return kGenerations[0];
}

/// Elements per token of the activation function's read + write.
double activation_elements(FfnType type, double ffn) {
  return type == FfnType::kSwiGlu ? 3 * ffn : 2 * ffn;
}

}  // namespace

LayerCost& LayerCost::operator+=(const LayerCost& o) {
  gemm_s += o.gemm_s;
  attention_s += o.attention_s;
  memory_s += o.memory_s;
  overhead_s += o.overhead_s;
  flops += o.flops;
  memory_bytes += o.memory_bytes;
  return *this;
}

LayerCost LayerCost::scaled(double f) const {
  return {gemm_s * f, attention_s * f, memory_s * f, overhead_s * f, flops * f, memory_bytes * f};
}

GpuRates gpu_rates(const GpuModel& gpu, const PlanRequest& r, const Precision& precision,
                   const FrameworkTraits& framework) {
  const GenerationDefaults& g = defaults_for(gpu.arch);
  GpuRates rates;
  const bool fp8 = precision.fp8_compute() && gpu.fp8_flops > 0;
  rates.peak_flops = (fp8 ? gpu.fp8_flops : gpu.bf16_flops) * r.flops_scale;
  rates.fp8_casts = fp8;
  const double default_gemm = gemm_ceiling(gpu.arch, fp8);
  rates.gemm_efficiency = r.gemm_efficiency.value_or(default_gemm);
  // A user's GEMM efficiency scales attention alike (same tensor cores, same clocks).
  const double attention_scale = rates.gemm_efficiency / default_gemm;
  const bool fa2_on_hopper = framework.attention == AttentionKernel::kFlashAttention2 &&
                            (gpu.arch == "hopper" || gpu.arch == "blackwell");
  // FP8 training recipes cast the linear layers' GEMMs only: Transformer Engine's DelayedScaling
  // keeps dot-product attention in BF16 (fp8_dpa = False by default) and torchao's float8
  // converts nn.Linear modules alone, so the attention core runs at the BF16 rate.
  const bool fp8_attention = fp8 && r.mode != PlanMode::kTrain;
  rates.attention_peak_flops = (fp8_attention ? gpu.fp8_flops : gpu.bf16_flops) * r.flops_scale;
  rates.attention_fwd_efficiency = (fa2_on_hopper ? kFa2HopperFwd : g.attention_fwd) * attention_scale;
  rates.attention_bwd_efficiency = (fa2_on_hopper ? kFa2HopperBwd : g.attention_bwd) * attention_scale;
  rates.fused_elementwise = framework.fused_elementwise || framework.compiled;
  rates.optimizer = framework.optimizer;
  rates.hbm_Bps = gpu.memory_bw_Bps * r.hbm_scale;
  rates.hbm_efficiency = r.hbm_efficiency.value_or(kHbmEfficiency);
  rates.multiprocessors = std::max(1, gpu.multiprocessors);
  rates.cuda_graphs = r.mode != PlanMode::kTrain;
  rates.launch_floor_s = rates.cuda_graphs ? kLaunchFloorGraphs_s : kLaunchFloorEager_s;
  if (r.mode != PlanMode::kTrain && r.engine) {
    // The iteration's tokens and whether prompt tokens are among them decide the launch mode.
    const double replicas = r.dp.value_or(1);
    const double tokens = r.iteration ? r.iteration->tokens()
                          : r.mode == PlanMode::kPrefill ? double(r.batch) * r.seq / replicas
                                                         : double(r.batch) / replicas;
    const bool prefill = r.iteration ? r.iteration->prefill_tokens > 0 : r.mode == PlanMode::kPrefill;
    rates.cuda_graphs = uses_cuda_graph(*r.engine, tokens, prefill);
    // Eager: a kernel occupies the GPU at least as long as the host takes to enqueue the next.
    rates.launch_floor_s = rates.cuda_graphs
                               ? kLaunchFloorGraphs_s
                               : std::max(kLaunchFloorEager_s, r.engine->kernel_launch_host_s);
    rates.fused_gate_up = r.engine->fused_gate_up;
    rates.gqa_shared_kv_reads = r.engine->gqa_shared_kv_reads;
  }
  rates.l2_Bps = gpu.l2_bw_Bps * r.hbm_scale;
  rates.fp32_conversions_per_s =
      kConversionsPerClockPerSm * rates.multiprocessors * gpu.boost_clock_hz * r.flops_scale;
  return rates;
}

GemmDevice gemm_device(const GpuRates& rates) {
  GemmDevice d;
  d.peak_flops = rates.peak_flops;
  d.ceiling = rates.gemm_efficiency;
  d.multiprocessors = rates.multiprocessors;
  d.memory_Bps = rates.hbm_Bps * rates.hbm_efficiency;
  return d;
}

GemmTiming gemm_timing(double m, double n, double k, double act_bytes, double weight_bytes,
                       const GpuRates& rates) {
  return time_gemm(m, n, k, act_bytes, weight_bytes, gemm_device(rates));
}

double gemm_time_s(double m, double n, double k, double act_bytes, double weight_bytes,
                   const GpuRates& rates) {
  if (m <= 0 || n <= 0 || k <= 0) return 0;
  const double busy_s = gemm_timing(m, n, k, act_bytes, weight_bytes, rates).time_s;
  // FP8 (Transformer Engine): the bf16 input is cast first, reading 2 B and writing 1 B.
  const double cast_s = rates.fp8_casts ? m * k * 3 / (rates.hbm_Bps * rates.hbm_efficiency) : 0;
  return busy_s + cast_s;
}

double memory_time_s(double bytes, const GpuRates& rates) {
  return bytes / (rates.hbm_Bps * rates.hbm_efficiency);
}

void LayerCost::add_kernel(double LayerCost::*bucket, double busy_s, const GpuRates& rates) {
  this->*bucket += busy_s;
  overhead_s += std::max(0.0, rates.launch_floor_s - busy_s);
}

void LayerCost::add_memory_kernel(double bytes, const GpuRates& rates) {
  add_kernel(&LayerCost::memory_s, memory_time_s(bytes, rates), rates);
  memory_bytes += bytes;
}

WorkShape work_shape(const ParallelLayout& l, PlanMode mode,
                     const std::optional<IterationBatch>& iteration) {
  WorkShape w;
  if (iteration && mode != PlanMode::kTrain) {
    // One replica's iteration: the batch is already that of one data-parallel copy.
    const IterationBatch& b = *iteration;
    w.iteration = true;
    w.sequences = b.decode_sequences + b.prefill_sequences;
    w.tokens = b.tokens() / l.cp;
    w.context = w.tokens > 0 ? (b.decode_context_tokens + b.prefill_context_tokens) / std::max(1.0, w.sequences) : 0;
    w.causal = false;
    w.attention_pairs = b.decode_context_tokens + b.prefill_attention_pairs;
    w.kv_tokens = b.decode_context_tokens + b.prefill_context_tokens;
    w.decode_kv_tokens = b.decode_context_tokens;
    w.logit_rows = w.sequences;
    return w;
  }
  switch (mode) {
    case PlanMode::kTrain:
      w.sequences = l.micro_batch;
      w.tokens = double(l.micro_batch) * l.seq / l.cp;
      w.context = l.seq;
      w.causal = true;
      break;
    case PlanMode::kPrefill:
      w.sequences = double(l.batch) / l.dp;
      w.tokens = w.sequences * l.seq / l.cp;
      w.context = l.seq;
      w.causal = true;
      break;
    case PlanMode::kDecode:
      w.sequences = double(l.batch) / l.dp;
      w.tokens = w.sequences;
      w.context = double(l.kv_len) + 1;
      w.causal = false;
      w.decode_kv_tokens = w.sequences * w.context;
      break;
  }
  return w;
}

namespace {

/// Attention core (QK^T, softmax, AV) for the work, FLOPs on this GPU.
double attention_core_flops(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w) {
  if (w.iteration) return 4.0 * w.attention_pairs * m.heads * m.head_dim / l.tp / l.cp;
  const double flops = 4.0 * w.tokens * w.context * m.heads * m.head_dim / l.tp;
  return w.causal ? flops / 2 : flops;
}

/// KV-cache (or K/V activation) bytes the attention core reads, for decode's memory bound.
double attention_kv_bytes(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w,
                          const Precision& p) {
  if (w.iteration) return 2.0 * w.kv_tokens * attention_shape(m, l).kv_dim * p.kv_bytes / l.cp;
  return 2.0 * w.sequences * w.context * attention_shape(m, l).kv_dim * p.kv_bytes / l.cp;
}

/// Decode attention without GQA sharing (EngineModel::gqa_shared_kv_reads false): the masked
/// multi-head attention kernel runs one thread block per sequence and query head, each reading
/// its KV head and converting every element it reads to FP32 before the dot products. The
/// blocks of one sequence's heads run side by side, so the first read comes from HBM
/// (attention_kv_bytes) and the group's other g - 1 from L2 at its bandwidth (from HBM again
/// where the GPU's L2 bandwidth is not in the catalog); an FP8 or FP16 cache converts g times
/// each element it holds (cvt to FP32; BF16 widens by a move), on the SMs' conversion units.
/// The kernel takes the longest of the HBM read, the L2 reads and the conversions; returns the
/// time that adds beyond the HBM read (docs/serving.md#releases).
double per_head_kv_read_s(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w,
                          const Precision& p, const GpuRates& r) {
  if (r.gqa_shared_kv_reads || w.decode_kv_tokens <= 0) return 0;
  const AttentionShape a = attention_shape(m, l);
  const double group = std::max(1.0, a.q_dim / a.kv_dim);  // query heads per KV head here
  const double first_read_elements = 2.0 * w.decode_kv_tokens * a.kv_dim / l.cp;
  const double first_read_bytes = first_read_elements * p.kv_bytes;
  const double hbm_s = first_read_bytes / (r.hbm_Bps * r.hbm_efficiency);
  double reads_s = hbm_s;
  if (group > 1) {
    reads_s = r.l2_Bps > 0 ? std::max(hbm_s, group * first_read_bytes / r.l2_Bps)
                           : group * hbm_s;
  }
  const double convert_s = p.kv_converts_to_fp32() && r.fp32_conversions_per_s > 0
                               ? group * first_read_elements / r.fp32_conversions_per_s
                               : 0;
  return std::max(reads_s, convert_s) - hbm_s;
}

/// The attention core (FlashAttention) of one pass at `efficiency`, bounded below by reading
/// the K/V.
LayerCost attention_core(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w,
                         const Precision& p, const GpuRates& r, double efficiency) {
  LayerCost c;
  const double core_flops = attention_core_flops(m, l, w);
  const double core_compute_s = core_flops / (r.attention_peak_flops * efficiency);
  const double core_memory_s = attention_kv_bytes(m, l, w, p) / (r.hbm_Bps * r.hbm_efficiency) +
                               per_head_kv_read_s(m, l, w, p, r);
  c.add_kernel(&LayerCost::attention_s, std::max(core_compute_s, core_memory_s), r);
  c.flops += core_flops;
  return c;
}

/// The forward of the attention block: QKV and output projections, then the core.
LayerCost attention_block(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w,
                          const Precision& p, const GpuRates& r, double efficiency) {
  LayerCost c;
  add_gemms(c, attention_gemms(m, l, w), GemmPass::kForward, p, r);
  c += attention_core(m, l, w, p, r, efficiency);
  return c;
}

/// MoE token permutation and un-permutation: read and write topk copies of the routed
/// tokens, twice (none for a dense FFN).
LayerCost ffn_memory(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w, bool moe,
                     const Precision& p, const GpuRates& r) {
  LayerCost c;
  if (!moe) return c;
  const double routed_tokens = w.tokens * m.topk * l.etp / l.tp;
  for (int kernel = 0; kernel < 2; ++kernel) {
    c.add_memory_kernel(2 * routed_tokens * m.hidden * p.act_bytes, r);
  }
  return c;
}

/// The forward of the FFN block: its GEMMs (ffn_gemms) and the MoE permutations.
LayerCost ffn_block(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w, bool moe,
                    const Precision& p, const GpuRates& r) {
  LayerCost c;
  add_gemms(c, ffn_gemms(m, l, w, moe, r), GemmPass::kForward, p, r);
  c += ffn_memory(m, l, w, moe, p, r);
  return c;
}

/// Norms, residual adds, the activation function and (eager) rotary: element-wise kernels.
/// Without sequence parallelism every TP rank repeats the norms and residuals on the whole
/// sequence. Fused (Transformer Engine, Megatron, torch.compile): one kernel per norm, add and
/// activation. Eager PyTorch runs each op of the module's forward as its own kernel
/// (docs/planner.md#frameworks): RMSNorm as square, mean and reciprocal root, normalise and
/// scale (4 passes over h); SwiGLU as SiLU then multiply (5 f instead of 3 f); rotary on Q and
/// K as cast, complex multiply and cast back (3 passes).
LayerCost elementwise(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w, bool moe,
                      const Precision& p, const GpuRates& r) {
  const double split = l.sp ? l.tp : 1;
  const double ffn_local = moe ? double(m.moe_ffn) / l.etp * m.topk * l.etp / l.tp
                               : double(m.ffn) / l.tp;
  const double act = activation_elements(m.ffn_type, ffn_local);
  LayerCost c;
  if (r.fused_elementwise) {
    const double norm_and_residual = 2 * (2.0 * m.hidden) + 2 * (3.0 * m.hidden);  // 2 norms, 2 adds
    for (int kernel = 0; kernel < 4; ++kernel) {
      c.add_memory_kernel(w.tokens * norm_and_residual / 4 / split * p.act_bytes, r);
    }
    c.add_memory_kernel(w.tokens * act * p.act_bytes, r);
    return c;
  }
  const double h_local = w.tokens * m.hidden / split * p.act_bytes;
  for (int norm = 0; norm < 2; ++norm) {
    for (int pass = 0; pass < 4; ++pass) c.add_memory_kernel(2 * h_local, r);
  }
  for (int add = 0; add < 2; ++add) c.add_memory_kernel(3 * h_local, r);
  if (m.ffn_type == FfnType::kSwiGlu) {
    c.add_memory_kernel(w.tokens * 2 * ffn_local * p.act_bytes, r);  // SiLU
    c.add_memory_kernel(w.tokens * 3 * ffn_local * p.act_bytes, r);  // multiply
  } else {
    c.add_memory_kernel(w.tokens * act * p.act_bytes, r);
  }
  if (m.learned_positions == 0) {
    const AttentionShape a = attention_shape(m, l);
    for (int pass = 0; pass < 3; ++pass) {
      c.add_memory_kernel(w.tokens * 2 * (a.q_dim + a.kv_dim) * p.act_bytes, r);
    }
  }
  return c;
}

}  // namespace

LayerCost layer_forward(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w, bool moe,
                        const Precision& p, const GpuRates& r) {
  LayerCost c = attention_block(m, l, w, p, r, r.attention_fwd_efficiency);
  c += ffn_block(m, l, w, moe, p, r);
  c += elementwise(m, l, w, moe, p, r);
  return c;
}

LayerCost layer_backward(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w, bool moe,
                         const Precision& p, const GpuRates& r) {
  // Data and weight gradients: two GEMMs for each forward GEMM, each with its own shape.
  LayerCost c;
  add_gemms(c, attention_gemms(m, l, w), GemmPass::kBackward, p, r);
  // FlashAttention's backward does 2.5x the forward's matmul FLOPs (5 matmuls against 2,
  // recomputing the scores), at its own efficiency.
  c += attention_core(m, l, w, p, r, r.attention_bwd_efficiency).scaled(2.5);
  add_gemms(c, ffn_gemms(m, l, w, moe, r), GemmPass::kBackward, p, r);
  c += ffn_memory(m, l, w, moe, p, r).scaled(2);
  c += elementwise(m, l, w, moe, p, r).scaled(2);
  return c;
}

LayerCost attention_core_recompute(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w,
                                   const Precision& p, const GpuRates& r) {
  const LayerCost f = attention_block(m, l, w, p, r, r.attention_fwd_efficiency);
  LayerCost c;
  c.attention_s = f.attention_s;
  c.flops = attention_core_flops(m, l, w);
  return c;
}

LayerCost every_second_matmul_recompute(const ModelSpec& m, const ParallelLayout& l,
                                        const WorkShape& w, bool moe, const Precision& p,
                                        const GpuRates& r) {
  // The forward's matmuls in order: wq, wk, wv, wo, then w1, w3, w2 (SwiGLU) or w1, w2. The
  // policy saves the odd ones; of the even ones, wk feeds rotary and SDPA, wo the residual add
  // the FFN norm reads, w3 the SiLU product; a GELU FFN's w2 feeds only the residual add, whose
  // backward needs no input, so it is not recomputed.
  const AttentionShape a = attention_shape(m, l);
  std::vector<GemmCall> calls = {{"K", w.tokens, a.kv_dim, double(m.hidden)},
                                 {"attention out", w.tokens, double(m.hidden), a.q_dim}};
  if (!moe && m.ffn_type == FfnType::kSwiGlu) {
    calls.push_back({"FFN up", w.tokens, double(m.ffn) / l.tp, double(m.hidden)});
  }
  LayerCost c;
  add_gemms(c, calls, GemmPass::kForward, p, r);
  // Routed experts run as grouped matmuls, which are not in the policy's save list.
  if (moe) c += ffn_block(m, l, w, moe, p, r);
  // Norms, rotary, the activation and the residual adds are not saved: all run again.
  c += elementwise(m, l, w, moe, p, r);
  return c;
}

double tp_overlappable_gemm_s(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w,
                              bool moe, const Precision& p, const GpuRates& r) {
  return attention_block(m, l, w, p, r, r.attention_fwd_efficiency).gemm_s +
         ffn_block(m, l, w, moe, p, r).gemm_s;
}

LayerCost logits_forward(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w,
                         const Precision& p, const GpuRates& r) {
  LayerCost c;
  const double vocab_local = double(m.vocab) / l.tp;
  add_gemms(c, {logits_gemm(m, l, w)}, GemmPass::kForward, p, r);
  // Final norm, then softmax cross-entropy over fp32 logits: read, write, read again.
  c.add_memory_kernel(2.0 * w.tokens * m.hidden * p.act_bytes, r);
  c.add_memory_kernel(3.0 * w.tokens * vocab_local * 4, r);
  return c;
}

LayerCost embedding_forward(const ModelSpec& m, const WorkShape& w, const Precision& p,
                            const GpuRates& r) {
  LayerCost c;
  c.add_memory_kernel(2.0 * w.tokens * m.hidden * p.act_bytes, r);
  return c;
}

double optimizer_time_s(double params, double tensors, const GpuRates& r) {
  if (params <= 0) return 0;
  // Fused Adam with fp32 master weights: read and write master, momentum and variance (24 B),
  // read the 2-byte gradient, write the 2-byte working copy: 28 B per parameter, one pass.
  if (r.optimizer == OptimizerKernel::kFused) {
    return std::max(memory_time_s(28.0 * params, r), r.launch_floor_s);
  }
  // torch.optim.AdamW's multi-tensor path (_multi_tensor_adamw): weight decay, lerp of the
  // momentum, scale and addcmul of the variance, square root, bias-correction divide, epsilon
  // add and the addcdiv of the update, each a pass reading and writing fp32 state: 80 B per
  // parameter (docs/planner.md#frameworks).
  constexpr double kForeachBytes = 80, kOpsPerStep = 8;
  const double busy_s = memory_time_s(kForeachBytes * params, r);
  if (r.optimizer == OptimizerKernel::kForeach) return std::max(busy_s, kOpsPerStep * r.launch_floor_s);
  // A loop over parameters launches every op for every tensor.
  return std::max(busy_s, kOpsPerStep * std::max(1.0, tensors) * r.launch_floor_s);
}

}  // namespace linksim::plan_detail
