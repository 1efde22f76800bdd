// SPDX-License-Identifier: Apache-2.0
// Parameter counts of a transformer from its shape (docs/models.md#parameters).
#include "linksim/model.hpp"
#include "plan/param_parts.hpp"

namespace linksim {

namespace detail {

int ffn_matrices(FfnType type) { return type == FfnType::kSwiGlu ? 3 : 2; }

double norm_params(const ModelSpec& model) {
  const double h = model.hidden;
  return model.norm == NormType::kLayerNorm ? 2 * h : h;
}

double router_params(const ModelSpec& model) {
  const double e = model.experts;
  return double(model.hidden) * e + (model.linear_bias ? e : 0);
}

namespace {

// Multi-head latent attention (DeepSeek-V2 paper, section 2.1): queries through an optional
// rank-q_lora_rank bottleneck, keys and values through a rank-kv_lora_rank latent plus one
// shared rotary key of rope_head_dim; each head's query/key is head_dim + rope_head_dim wide
// and its value head_dim wide. Down-projections are replicated over TP, up-projections split.
AttentionParts mla_parts(const ModelSpec& m) {
  const double h = m.hidden, heads = m.heads, d = m.head_dim, rope = m.rope_head_dim;
  const double q_rank = m.q_lora_rank, kv_rank = m.kv_lora_rank;
  const double latent_norm = m.norm == NormType::kLayerNorm ? 2.0 : 1.0;
  AttentionParts parts;
  if (q_rank > 0) {
    parts.replicated += h * q_rank + latent_norm * q_rank;
    parts.tp_split += q_rank * heads * (d + rope);
  } else {
    parts.tp_split += h * heads * (d + rope);
  }
  parts.replicated += h * (kv_rank + rope) + latent_norm * kv_rank;
  parts.tp_split += kv_rank * heads * (d + d);  // key (no-rope part) and value up-projections
  parts.tp_split += heads * d * h;              // output projection
  return parts;
}

}  // namespace

AttentionParts attention_parts(const ModelSpec& m) {
  AttentionParts parts;
  if (m.is_mla()) {
    parts = mla_parts(m);
  } else {
    const double h = m.hidden;
    const double q = double(m.heads) * m.head_dim;
    const double kv = double(m.kv_heads) * m.head_dim;
    const bool qkv_bias = m.linear_bias || m.qkv_bias;
    parts.tp_split = h * q + q * h + (qkv_bias ? q : 0);
    parts.kv_split = 2 * h * kv + (qkv_bias ? 2 * kv : 0);
    parts.replicated = m.linear_bias ? h : 0;  // output projection bias
  }
  parts.replicated += 2 * norm_params(m);  // pre-attention and pre-FFN norms
  return parts;
}

FfnParts ffn_parts(const ModelSpec& m, int ffn_size) {
  const double h = m.hidden, f = ffn_size;
  const int matrices = ffn_matrices(m.ffn_type);
  FfnParts parts;
  parts.split = matrices * h * f + (m.linear_bias ? (matrices - 1) * f : 0);
  parts.replicated = m.linear_bias ? h : 0;
  return parts;
}

}  // namespace detail

double attention_params_per_layer(const ModelSpec& model) {
  return detail::attention_parts(model).total();
}

double ffn_params(const ModelSpec& model, int ffn_size) {
  return detail::ffn_parts(model, ffn_size).total();
}

ParamCounts count_params(const ModelSpec& model) {
  const double h = model.hidden;
  const double moe_layers = model.moe_layers();
  const double dense_layers = model.layers - moe_layers;
  const double expert = model.is_moe() ? ffn_params(model, model.moe_ffn) : 0;

  ParamCounts c;
  c.embedding = double(model.vocab) * h + double(model.learned_positions) * h;
  c.output_head = model.tied_embeddings ? 0 : double(model.vocab) * h;
  c.attention = model.layers * attention_params_per_layer(model) + detail::norm_params(model);
  c.dense_ffn = dense_layers * (dense_layers > 0 ? ffn_params(model, model.ffn) : 0);
  c.expert_ffn =
      model.is_moe() ? moe_layers * (model.experts * expert + detail::router_params(model)) : 0;
  c.shared_expert_ffn = moe_layers * model.shared_experts * expert;
  c.total = c.embedding + c.output_head + c.attention + c.dense_ffn + c.expert_ffn +
            c.shared_expert_ffn;
  c.active = c.total - moe_layers * (model.experts - model.topk) * expert;
  c.active_non_embedding = c.active - c.embedding;
  return c;
}

double kv_cache_elements_per_token_per_layer(const ModelSpec& model) {
  if (model.is_mla()) return double(model.kv_lora_rank) + model.rope_head_dim;
  return 2.0 * model.kv_heads * model.head_dim;
}

}  // namespace linksim
