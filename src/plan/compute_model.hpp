// SPDX-License-Identifier: Apache-2.0
// Time of the computation of one transformer layer on one GPU, from FLOPs and bytes: GEMMs
// by shape (src/plan/gemm_model.hpp), FlashAttention, memory-bound element-wise kernels and a
// kernel-launch floor (docs/planner.md#compute).
#pragma once

#include "linksim/catalog.hpp"
#include "linksim/plan.hpp"
#include "plan/framework.hpp"
#include "plan/gemm_model.hpp"
#include "plan/precision.hpp"

namespace linksim::plan_detail {

/// What a GPU achieves: the peak and the efficiencies applied to it.
struct GpuRates {
  double peak_flops = 0;        ///< dense tensor FLOP/s for the compute dtype (x flops_scale)
  /// Dense tensor FLOP/s of the attention core: BF16 in FP8 training, whose recipes cast only
  /// the linear layers' GEMMs to FP8 (docs/planner.md#compute)
  double attention_peak_flops = 0;
  /// Fraction of peak the best-shaped large GEMM reaches (gemm_ceiling, or --gemm-efficiency);
  /// smaller shapes reach less (time_gemm)
  double gemm_efficiency = 0;
  bool fp8_casts = false;       ///< FP8 GEMMs: each activation input is cast from bf16 first
  double attention_fwd_efficiency = 0;  ///< FlashAttention forward, fraction of peak
  double attention_bwd_efficiency = 0;  ///< FlashAttention backward, fraction of peak
  double hbm_Bps = 0;           ///< datasheet memory bandwidth (x hbm_scale), bytes/s
  double hbm_efficiency = 0;    ///< fraction of hbm_Bps a streaming kernel reaches
  int multiprocessors = 1;
  double launch_floor_s = 0;    ///< shortest time one kernel occupies the GPU
  bool cuda_graphs = false;     ///< the step is replayed from a CUDA graph (else eager launches)
  bool fused_elementwise = true;///< the stack fuses norms, activation and rotary (else one kernel per op)
  OptimizerKernel optimizer = OptimizerKernel::kFused;
  /// Serving engine mechanisms (PlanRequest::engine, include/linksim/engine.hpp); training and
  /// engine none keep the defaults.
  bool fused_gate_up = true;        ///< SwiGLU's gate and up projections as one GEMM
  bool gqa_shared_kv_reads = true;  ///< decode attention reads a KV head once per query group
  double l2_Bps = 0;                ///< L2 read bandwidth (catalog l2_bw); 0 = not known
  /// Conversions to FP32 per second: 16 per clock per SM (CUDA C++ Programming Guide,
  /// arithmetic instruction throughput, "all other type conversions") at the catalog's boost
  /// clock; 0 = clock not known (docs/serving.md#releases).
  double fp32_conversions_per_s = 0;
};

/// Sourced defaults for the GPU's generation and the compute format, with the request's
/// overrides applied.
GpuRates gpu_rates(const GpuModel& gpu, const PlanRequest& request, const Precision& precision,
                   const FrameworkTraits& framework);

/// The GEMM model's view of the GPU: peak, ceiling, SMs and the streaming memory bandwidth.
GemmDevice gemm_device(const GpuRates& rates);
/// One GEMM of (m x k) x (k x n) with the given element sizes on this GPU (time_gemm).
GemmTiming gemm_timing(double m, double n, double k, double act_bytes, double weight_bytes,
                       const GpuRates& rates);
/// Busy time of one GEMM, seconds: gemm_timing's, plus the FP8 cast of the A operand when
/// the GEMMs run in FP8 (the launch floor is applied by LayerCost::add_kernel).
double gemm_time_s(double m, double n, double k, double act_bytes, double weight_bytes,
                   const GpuRates& rates);

/// Busy time of one memory-bound kernel moving `bytes`, seconds.
double memory_time_s(double bytes, const GpuRates& rates);

/// Cost of one layer (or of the embedding / logits) for one micro-batch, seconds.
struct LayerCost {
  double gemm_s = 0;
  double attention_s = 0;
  double memory_s = 0;
  double overhead_s = 0;  ///< launch-floor time added to short kernels
  double flops = 0;       ///< executed, for the achieved efficiency
  double memory_bytes = 0;///< moved by the memory-bound kernels (memory_s), bytes
  double total() const { return gemm_s + attention_s + memory_s + overhead_s; }
  /// Adds one kernel busy for `busy_s` to `bucket`; a kernel shorter than the launch floor
  /// leaves the GPU idle for the rest, counted in overhead_s.
  void add_kernel(double LayerCost::*bucket, double busy_s, const GpuRates& rates);
  /// Adds one memory-bound kernel moving `bytes` (memory_time_s) to memory_s and memory_bytes.
  void add_memory_kernel(double bytes, const GpuRates& rates);
  LayerCost& operator+=(const LayerCost& o);
  LayerCost scaled(double factor) const;
};

/// The shapes of one micro-batch (train), one prompt batch (prefill) or one token step (decode)
/// as one GPU sees them.
struct WorkShape {
  double tokens = 0;      ///< rows of the GEMMs on this GPU (after CP, before TP)
  double context = 0;     ///< keys each query attends to (decode: kv_len + 1)
  bool causal = true;     ///< causal masking halves the attention work (train, prefill)
  double sequences = 0;   ///< sequences in the work
  /// A serving iteration (PlanRequest::iteration): attention from the batch's own sums
  /// instead of tokens x context.
  bool iteration = false;
  double attention_pairs = 0;  ///< query-key pairs of the attention, all sequences
  double kv_tokens = 0;        ///< keys read from the KV cache, all sequences
  double decode_kv_tokens = 0; ///< of kv_tokens, those read by decoding (one-query) sequences
  double logit_rows = 0;       ///< positions sampled (one per sequence)
};
/// The work of `mode` on `layout`, or of `iteration` when given (its tokens split over dp).
WorkShape work_shape(const ParallelLayout& layout, PlanMode mode,
                     const std::optional<IterationBatch>& iteration = std::nullopt);

/// Forward of one layer; `moe` selects the expert FFN (false: the dense FFN).
LayerCost layer_forward(const ModelSpec& model, const ParallelLayout& layout, const WorkShape& w,
                        bool moe, const Precision& p, const GpuRates& rates);
/// Backward of one layer (2x the GEMMs, FlashAttention backward, 2x element-wise traffic).
LayerCost layer_backward(const ModelSpec& model, const ParallelLayout& layout, const WorkShape& w,
                         bool moe, const Precision& p, const GpuRates& rates);
/// What Megatron's selective recompute runs again of one layer in backward: the attention
/// core's forward (Korthikanti et al. 2022).
LayerCost attention_core_recompute(const ModelSpec& model, const ParallelLayout& layout,
                                   const WorkShape& w, const Precision& p, const GpuRates& rates);
/// What torchtitan's op-level selective activation checkpointing recomputes of one layer in
/// backward: every second matmul of the block's forward whose output the backward needs (K
/// projection, attention output projection and, with SwiGLU, the up projection) and the
/// element-wise work; SDPA and the other matmuls are saved (docs/planner.md#frameworks).
LayerCost every_second_matmul_recompute(const ModelSpec& model, const ParallelLayout& layout,
                                        const WorkShape& w, bool moe, const Precision& p,
                                        const GpuRates& rates);
/// The GEMMs that feed TP communication in one layer's forward (QKV, FFN up): what
/// --tp-overlap async can hide TP traffic behind.
double tp_overlappable_gemm_s(const ModelSpec& model, const ParallelLayout& layout,
                              const WorkShape& w, bool moe, const Precision& p,
                              const GpuRates& rates);
/// The output head and loss (last stage) forward; backward is 2x its GEMM.
LayerCost logits_forward(const ModelSpec& model, const ParallelLayout& layout, const WorkShape& w,
                         const Precision& p, const GpuRates& rates);
/// The embedding lookup (first stage).
LayerCost embedding_forward(const ModelSpec& model, const WorkShape& w, const Precision& p,
                            const GpuRates& rates);
/// The optimizer step over `params` local parameters held in `tensors` tensors (Adam, fp32
/// master weights), as the stack's optimizer kernel runs it.
double optimizer_time_s(double params, double tensors, const GpuRates& rates);

}  // namespace linksim::plan_detail
