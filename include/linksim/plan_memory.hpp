// SPDX-License-Identifier: Apache-2.0
// Memory per GPU of a parallel layout: weights, gradients, optimizer state, activations,
// KV cache and workspace (docs/planner-memory.md). Pure arithmetic on the model and layout.
#pragma once

#include "linksim/model.hpp"

namespace linksim {

enum class PlanMode { kTrain, kPrefill, kDecode };
enum class Recompute { kNone, kSelective, kFull };
std::string_view to_string(PlanMode mode);       ///< "train", "prefill", "decode"
std::string_view to_string(Recompute recompute); ///< "none", "selective", "full"

/// What training keeps of the attention core for backward when nothing is recomputed
/// (docs/planner-memory.md#activations).
enum class AttentionCore {
  kUnfused,  ///< softmax output (and dropout mask and output) of every score: O(s^2) per head
  kFused,    ///< a fused kernel (FlashAttention, cuDNN fused attention): fp32 logsumexp, O(s)
};

/// The parallel layout and batch of one plan. Degrees are >= 1. GPUs = tp*pp*cp*dp.
/// MoE layers fold their parallelism as Megatron-Core does: ep*etp divides tp*cp*dp, and
/// each expert's weights are split etp ways and spread over ep groups.
struct ParallelLayout {
  int tp = 1, pp = 1, dp = 1, cp = 1, ep = 1, etp = 1;
  bool sp = false;            ///< sequence parallel (Megatron), with tp > 1
  int zero = 0;               ///< 0..3: optimizer (1), gradients (2), parameters (3) sharded over dp
  /// zero 3 as HSDP: sharded over groups of this many DP x CP ranks, replicated across the
  /// groups; 0 = sharded over all of them.
  int shard_group = 0;
  int vpp = 1;                ///< virtual pipeline stages per GPU (interleaved 1F1B)
  int micro_batch = 1;        ///< sequences per micro-batch (train)
  int global_batch = 1;       ///< sequences per optimizer step (train)
  int seq = 2048;             ///< tokens per sequence (train, prefill prompt length)
  int batch = 1;              ///< sequences in flight (prefill, decode)
  int kv_len = 0;             ///< context tokens held per sequence (decode)
  int gpus() const { return tp * pp * cp * dp; }
  int micro_batches() const { return global_batch / (micro_batch * dp); }  ///< per pipeline
};

struct PrecisionChoice {
  double activation_bytes = 2;  ///< bytes per activation / compute element (bf16 2, fp8 1)
  double weight_bytes = 2;      ///< bytes per stored weight (int4 0.5, int8/fp8 1, bf16 2)
  double grad_bytes = 2;        ///< bytes per gradient element (train)
  double kv_cache_bytes = 2;    ///< bytes per KV-cache element (fp8 serving stores 1)
  /// Optimizer bytes per parameter: Adam with fp32 master weights, momentum and variance:
  /// 4 + 4 + 4 = 12 (Rajbhandari et al. 2020, ZeRO, section 3.1 "K = 12").
  double optimizer_bytes_per_param = 12;
};

/// Bytes per GPU, of the most loaded GPU: every pipeline stage is evaluated and the one with the
/// largest total is reported (usually the first: it holds the embedding and the most in-flight
/// micro-batches under 1F1B; ties go to the earlier stage).
struct MemoryBreakdown {
  int stage = 0;         ///< the pipeline stage reported, 0-based
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  double kv_cache = 0;
  double workspace = 0;  ///< framework and library buffers (CUDA context, NCCL, cuBLAS) and
                         ///< allocator fragmentation (docs/planner-memory.md#workspace)
  double total = 0;
  double capacity = 0;   ///< the GPU's memory, bytes
  bool fits = false;
};

/// REQUIRES: a layout already checked by the planner (degrees divide as documented).
MemoryBreakdown estimate_memory(const ModelSpec& model, const ParallelLayout& layout,
                                PlanMode mode, Recompute recompute,
                                const PrecisionChoice& precision, double capacity_bytes,
                                AttentionCore attention = AttentionCore::kUnfused);

}  // namespace linksim
