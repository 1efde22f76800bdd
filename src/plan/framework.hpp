// SPDX-License-Identifier: Apache-2.0
// What a training framework does differently with the same model and machine, from each
// stack's own defaults (docs/planner.md#frameworks lists every value and its source).
#pragma once

#include <string>
#include <string_view>

#include "linksim/catalog.hpp"
#include "linksim/plan.hpp"
#include "linksim/plan_memory.hpp"

namespace linksim::plan_detail {

/// How the optimizer step is launched (docs/planner.md#frameworks).
enum class OptimizerKernel {
  kFused,         ///< one multi-tensor kernel reading and writing each state once (Apex/TE FusedAdam, torch fused=True)
  kForeach,       ///< torch's _foreach ops: one pass over all tensors per arithmetic op
  kPerParameter,  ///< a Python loop over parameters, each op its own kernel
};

/// How the attention core is computed on Hopper and later.
enum class AttentionKernel {
  kCudnnFused,     ///< Transformer Engine's cuDNN fused attention (FlashAttention-3 class)
  kFlashAttention2,///< PyTorch SDPA's flash backend or flash-attn 2
};

/// What --recompute selective recomputes in backward (docs/planner.md#frameworks).
enum class SelectiveRecompute {
  kAttentionCore,      ///< Megatron's selective recompute: the attention core (Korthikanti et al. 2022)
  kEverySecondMatmul,  ///< torchtitan's op-level policy: every second matmul and the element-wise ops
};

struct FrameworkTraits {
  TrainFramework framework = TrainFramework::kMegatron;
  std::string_view description;      ///< "torchtitan (FSDP2)"
  bool fused_elementwise = true;     ///< norms, activation, rotary fused (TE / Megatron kernels)
  bool compiled = false;             ///< torch.compile fuses the element-wise work
  OptimizerKernel optimizer = OptimizerKernel::kFused;
  AttentionKernel attention = AttentionKernel::kCudnnFused;
  SelectiveRecompute selective = SelectiveRecompute::kAttentionCore;
  double grad_reduce_bytes = 4;      ///< gradient reduction element: fp32 4, bf16 2
  // ZeRO-1/2 (distributed optimizer): the gradient reduce-scatter overlaps the backward and the
  // parameter all-gather the next forward, bucket by bucket.
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
  /// Gradient reduction bucket, elements (DeepSpeed reduce_bucket_size); 0 = per layer.
  double bucket_elements = 0;
  // ZeRO-3 / FSDP: parameters gathered block by block.
  int prefetch_depth = 1;            ///< gathers issued ahead of the block computing
  bool reshard_after_forward = true; ///< backward gathers every block again
  bool keep_last_block = false;      ///< the last block stays gathered for backward (torchtitan)
  /// With pipeline parallelism, parameters stay gathered across a step's micro-batches and
  /// gradients reduce-scatter after the last one (torch.distributed.pipelining with FSDP2;
  /// Llama 3's FSDP under Megatron-style pipelines, arXiv 2407.21783 section 3.3.2).
  bool pipeline_gathers_once = false;
  /// FSDP2 copies each gathered block out of the all-gather buffer into the per-parameter
  /// tensors on the compute stream (foreach_all_gather_copy_out); FSDP1's flat parameter is
  /// gathered in place (docs/planner.md#fsdp-overheads).
  bool gather_copy_out = false;
  /// FSDP1: the parameters are views split out of the gathered FlatParameter, so backward's
  /// SplitBackward concatenates their gradients into the flat gradient on the compute stream
  /// (docs/planner.md#fsdp-overheads).
  bool flat_grad_copy = false;
  /// --tp-overlap async runs Transformer Engine's userbuffers overlap (Megatron-LM / NeMo
  /// --tp-comm-overlap): some GEMMs give SMs to the communication kernel, and the last chunk of
  /// a pipelined reduce-scatter is exposed (docs/planner.md#tp-overlap). Else the overlap is
  /// torch's async TP, taken as free.
  bool tp_overlap_userbuffers = false;
  /// With an interleaved schedule (vpp > 1) the pipeline sends of the steady state are issued
  /// ahead and overlap the next model chunk's compute (Megatron-LM's overlap_p2p_comm, on by
  /// default: --no-overlap-p2p-communication turns it off); the warm-up and flush sends stay
  /// exposed.
  bool overlap_p2p_interleaved = false;
};

/// The framework's defaults with the request's overrides (--compile).
FrameworkTraits framework_traits(const PlanRequest& request);

/// The attention core the stack runs on `gpu`: its fused kernel (cuDNN fused attention or
/// FlashAttention-2) from compute capability 8.0 on, else the unfused core (flash-attn and
/// Transformer Engine's fused attention need SM80+; docs/planner-memory.md#activations).
AttentionCore attention_core(const FrameworkTraits& traits, const GpuModel& gpu);

/// One line for the plan's assumptions: what the framework does that changes the step.
std::string describe_framework(const FrameworkTraits& traits, int zero);

/// What `recompute` means for the framework, for the plan's assumptions.
std::string_view describe_recompute(const FrameworkTraits& traits, Recompute recompute);

}  // namespace linksim::plan_detail
