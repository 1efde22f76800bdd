// SPDX-License-Identifier: Apache-2.0
#include "plan/framework.hpp"

#include <fmt/core.h>

#include <array>

namespace linksim {
namespace {

struct FrameworkName {
  TrainFramework framework;
  std::string_view name;
};
constexpr std::array<FrameworkName, 6> kNames{{
    {TrainFramework::kMegatron, "megatron"},
    {TrainFramework::kNemo, "nemo"},
    {TrainFramework::kTorchtitan, "torchtitan"},
    {TrainFramework::kFsdp, "fsdp"},
    {TrainFramework::kDeepspeed, "deepspeed"},
    {TrainFramework::kLlmFoundry, "llm-foundry"},
}};

}  // namespace

std::string_view to_string(TrainFramework framework) {
  for (const FrameworkName& n : kNames) {
    if (n.framework == framework) return n.name;
  }
  return "megatron";
}

std::optional<TrainFramework> parse_train_framework(std::string_view name) {
  for (const FrameworkName& n : kNames) {
    if (n.name == name) return n.framework;
  }
  return std::nullopt;
}

namespace plan_detail {
namespace {

// Each value and its source: docs/planner.md#frameworks.
FrameworkTraits defaults(TrainFramework framework) {
  FrameworkTraits t;
  t.framework = framework;
  switch (framework) {
    case TrainFramework::kMegatron:
      t.description = "Megatron-LM (Megatron-Core, Transformer Engine)";
      t.tp_overlap_userbuffers = true;
      t.overlap_p2p_interleaved = true;
      t.pipeline_gathers_once = true;
      break;
    case TrainFramework::kNemo:
      t.description = "NeMo (Megatron-Core, Transformer Engine)";
      t.tp_overlap_userbuffers = true;
      t.overlap_p2p_interleaved = true;
      t.pipeline_gathers_once = true;
      break;
    case TrainFramework::kTorchtitan:
      t.description = "torchtitan (FSDP2)";
      t.fused_elementwise = false;
      t.attention = AttentionKernel::kFlashAttention2;
      t.selective = SelectiveRecompute::kEverySecondMatmul;
      t.keep_last_block = true;
      t.pipeline_gathers_once = true;
      t.gather_copy_out = true;
      break;
    case TrainFramework::kFsdp:
      t.description = "PyTorch FSDP";
      t.flat_grad_copy = true;
      t.fused_elementwise = false;
      t.optimizer = OptimizerKernel::kForeach;
      t.attention = AttentionKernel::kFlashAttention2;
      t.grad_reduce_bytes = 2;
      break;
    case TrainFramework::kDeepspeed:
      t.description = "DeepSpeed ZeRO";
      t.fused_elementwise = false;
      t.attention = AttentionKernel::kFlashAttention2;
      t.grad_reduce_bytes = 2;
      t.overlap_grad_reduce = false;
      t.overlap_param_gather = false;
      t.bucket_elements = 5e8;
      break;
    case TrainFramework::kLlmFoundry:
      t.description = "llm-foundry (Composer, PyTorch FSDP)";
      t.flat_grad_copy = true;
      t.fused_elementwise = false;
      t.optimizer = OptimizerKernel::kPerParameter;
      t.attention = AttentionKernel::kFlashAttention2;
      t.grad_reduce_bytes = 2;
      break;
  }
  return t;
}

std::string_view optimizer_text(OptimizerKernel k) {
  switch (k) {
    case OptimizerKernel::kFused: return "fused Adam";
    case OptimizerKernel::kForeach: return "foreach Adam";
    case OptimizerKernel::kPerParameter: return "per-parameter Adam";
  }
  return "";
}

}  // namespace

FrameworkTraits framework_traits(const PlanRequest& r) {
  FrameworkTraits t = defaults(r.framework);
  if (r.compile) t.compiled = *r.compile;
  return t;
}

AttentionCore attention_core(const FrameworkTraits& /*traits*/, const GpuModel& gpu) {
  // Both kernels of FrameworkTraits::attention are fused; neither runs below SM80.
  constexpr int kFusedAttentionMinSm = 80;
  return gpu.sm >= kFusedAttentionMinSm ? AttentionCore::kFused : AttentionCore::kUnfused;
}

std::string describe_framework(const FrameworkTraits& t, int zero) {
  std::string text = fmt::format(
      "framework {} (--framework {}): element-wise work {}, {}, attention {}, gradients reduced "
      "in {}",
      t.description, to_string(t.framework),
      t.fused_elementwise ? "fused" : t.compiled ? "fused by torch.compile" : "eager, one kernel per op",
      optimizer_text(t.optimizer),
      t.attention == AttentionKernel::kCudnnFused ? "cuDNN fused (Transformer Engine)" : "FlashAttention-2",
      t.grad_reduce_bytes == 4 ? "fp32" : "bf16");
  if (zero == 3) {
    text += fmt::format("; parameters gathered block by block, {} ahead, {}", t.prefetch_depth,
                        !t.reshard_after_forward ? "kept for backward"
                        : t.keep_last_block      ? "regathered in backward except the last block"
                                                 : "regathered in backward");
  } else if (zero >= 1) {
    text += t.overlap_grad_reduce ? "; gradient reduce-scatter and parameter all-gather overlapped"
                                  : "; gradient reduction and parameter gather after the backward, exposed";
    if (t.bucket_elements > 0) text += fmt::format(" ({:g} M-element buckets)", t.bucket_elements / 1e6);
  }
  return text;
}

std::string_view describe_recompute(const FrameworkTraits& t, Recompute recompute) {
  switch (recompute) {
    case Recompute::kNone: return "nothing recomputed";
    case Recompute::kFull: return "the whole layer's forward recomputed in backward";
    case Recompute::kSelective:
      return t.selective == SelectiveRecompute::kEverySecondMatmul
                 ? "op-level selective: every second matmul (K, attention output, FFN up) and the "
                   "element-wise ops recomputed, attention saved"
                 : "the attention core recomputed in backward";
  }
  return "";
}

}  // namespace plan_detail
}  // namespace linksim
