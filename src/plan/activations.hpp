// SPDX-License-Identifier: Apache-2.0
// Activation memory of one GPU: what training stores for the backward pass (Korthikanti et al.
// 2022, generalized per stored tensor) and what inference keeps live inside one layer
// (docs/planner-memory.md#activations).
#pragma once

#include "linksim/model.hpp"
#include "linksim/plan_memory.hpp"
#include "plan/stage_params.hpp"

namespace linksim::detail {

/// Micro-batches whose activations stage `stage` holds at the 1F1B peak: pp - index, or with
/// vpp > 1 (interleaved) (2(pp - index - 1) + (vpp - 1)pp + 1) / vpp, which is
/// pp(1 + (pp - 1)/(pp vpp)) on the first stage; never more than the micro-batches per step.
double in_flight_micro_batches(const ParallelLayout& layout, int stage_index);

/// Bytes stored for the backward pass by one layer for one micro-batch under `recompute`
/// (kFull: only the layer's input). Under kNone the attention core adds its scores
/// (kUnfused: Korthikanti's 5as^2b with dropout) or its fp32 logsumexp per query and head
/// (kFused).
double train_layer_activation_bytes(const ModelSpec& model, const ParallelLayout& layout,
                                    Recompute recompute, double bytes, bool moe_layer,
                                    AttentionCore attention = AttentionCore::kUnfused);

/// Training activations of one GPU of `stage`: its layers times the in-flight micro-batches,
/// plus the embedding-dropout mask (first stage), the output head's inputs and fp32 logits
/// (last stage), and under full recompute one layer's working set.
double train_activation_bytes(const ModelSpec& model, const ParallelLayout& layout,
                              Recompute recompute, double bytes, const StageLayers& stage,
                              AttentionCore attention = AttentionCore::kUnfused);

/// Inference: the largest set of tensors live inside one layer for `tokens` tokens (activations
/// are not kept across layers), plus the last token's fp32 logits of each of `sequences` on the
/// last stage.
double inference_activation_bytes(const ModelSpec& model, const ParallelLayout& layout,
                                  double bytes, double tokens, double sequences,
                                  const StageLayers& stage);

}  // namespace linksim::detail
