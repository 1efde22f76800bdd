// SPDX-License-Identifier: Apache-2.0
// Pipeline stage layers and the parameters one GPU of a stage holds.
#include "plan/stage_params.hpp"

#include <algorithm>
#include <cmath>

#include "plan/param_parts.hpp"

namespace linksim::detail {

StageLayers stage_layers(const ModelSpec& model, int pp, int index) {
  const int base = model.layers / pp, extra = model.layers % pp;
  StageLayers stage;
  stage.index = index;
  stage.layers = base + (index < extra ? 1 : 0);
  const int begin = index * base + std::min(index, extra);
  const int dense_end = model.is_moe() ? model.dense_layers : model.layers;
  stage.dense = std::clamp(dense_end - begin, 0, stage.layers);
  stage.first = index == 0;
  stage.last = index == pp - 1;
  return stage;
}

HeldParams stage_params(const ModelSpec& model, const ParallelLayout& layout,
                        const StageLayers& stage) {
  const double tp = layout.tp;
  const double kv_split = std::min(layout.tp, model.kv_heads);
  const double h = model.hidden, vocab = model.vocab;

  const AttentionParts attention = attention_parts(model);
  const double attention_gpu =
      attention.tp_split / tp + attention.kv_split / kv_split + attention.replicated;
  HeldParams held;
  held.dense = stage.layers * attention_gpu;
  if (stage.dense > 0) {
    const FfnParts ffn = ffn_parts(model, model.ffn);
    held.dense += stage.dense * (ffn.split / tp + ffn.replicated);
  }
  if (stage.moe() > 0) {
    const FfnParts expert = ffn_parts(model, model.moe_ffn);
    // Shared experts are tensor-parallel like a dense FFN; routed experts are spread over ep
    // groups and split etp ways (the busiest rank holds the rounded-up share).
    const double shared = model.shared_experts * (expert.split / tp + expert.replicated);
    held.dense += stage.moe() * (router_params(model) + shared);
    const double experts_here = std::ceil(double(model.experts) / layout.ep);
    held.expert = stage.moe() * experts_here * (expert.split / layout.etp + expert.replicated);
  }
  // The vocabulary is split over TP; learned positions are not. With a tied head and pp > 1
  // the last stage keeps its own copy of the embedding (Megatron-LM does, and all-reduces the
  // two copies' gradients).
  if (stage.first) held.dense += vocab * h / tp + double(model.learned_positions) * h;
  if (stage.last) {
    const bool head_copy = !model.tied_embeddings || layout.pp > 1;
    held.dense += (head_copy ? vocab * h / tp : 0) + norm_params(model);
  }
  return held;
}

double dense_shards(const ParallelLayout& layout) {
  return layout.shard_group > 0 ? layout.shard_group : double(layout.dp) * layout.cp;
}

double expert_shards(const ParallelLayout& layout) {
  const double group = double(layout.tp) * layout.cp * layout.dp / (layout.ep * layout.etp);
  return std::max(1.0, group);
}

}  // namespace linksim::detail
