// SPDX-License-Identifier: Apache-2.0
// FFN and norm type names, shape defaults and the shape rules of a transformer model.
#include "plan/model_shape.hpp"

#include <fmt/core.h>

#include <array>
#include <utility>

#include "linksim/error.hpp"

namespace linksim {

namespace {

constexpr std::array<std::pair<std::string_view, FfnType>, 3> kFfnTypes = {{
    {"gelu", FfnType::kGelu},
    {"swiglu", FfnType::kSwiGlu},
    {"squared-relu", FfnType::kSquaredRelu},
}};

constexpr std::array<std::pair<std::string_view, NormType>, 2> kNormTypes = {{
    {"layernorm", NormType::kLayerNorm},
    {"rmsnorm", NormType::kRmsNorm},
}};

template <typename Table>
std::vector<std::string> names_of(const Table& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.first);
  return names;
}

using detail::ShapeProblem;

ShapeProblem problem(std::string key, std::string message) {
  return ShapeProblem{std::move(key), std::move(message)};
}

std::optional<ShapeProblem> check_positive(const char* key, int value) {
  if (value > 0) return std::nullopt;
  return problem(key, fmt::format("{}={} must be positive", key, value));
}

std::optional<ShapeProblem> check_not_negative(const char* key, int value) {
  if (value >= 0) return std::nullopt;
  return problem(key, fmt::format("{}={} must not be negative", key, value));
}

std::optional<ShapeProblem> check_attention(const ModelSpec& m) {
  if (m.head_dim == 0 && m.hidden % m.heads != 0) {
    return problem("heads", fmt::format("heads={} does not divide hidden={} (give head_dim=...)",
                                        m.heads, m.hidden));
  }
  if (auto p = check_positive("head_dim", m.head_dim)) return p;
  if (auto p = check_positive("kv_heads", m.kv_heads)) return p;
  if (m.heads % m.kv_heads != 0) {
    return problem("kv_heads", fmt::format("kv_heads={} does not divide heads={}", m.kv_heads,
                                           m.heads));
  }
  if (auto p = check_not_negative("q_lora_rank", m.q_lora_rank)) return p;
  if (auto p = check_not_negative("kv_lora_rank", m.kv_lora_rank)) return p;
  if (auto p = check_not_negative("rope_head_dim", m.rope_head_dim)) return p;
  if (m.kv_lora_rank == 0 && m.q_lora_rank > 0) {
    return problem("q_lora_rank",
                   fmt::format("q_lora_rank={} requires kv_lora_rank", m.q_lora_rank));
  }
  if (m.kv_lora_rank == 0 && m.rope_head_dim > 0) {
    return problem("rope_head_dim",
                   fmt::format("rope_head_dim={} requires kv_lora_rank", m.rope_head_dim));
  }
  if (m.kv_lora_rank > 0 && m.rope_head_dim == 0) {
    return problem("kv_lora_rank",
                   fmt::format("kv_lora_rank={} requires rope_head_dim", m.kv_lora_rank));
  }
  return std::nullopt;
}

std::optional<ShapeProblem> check_moe(const ModelSpec& m) {
  for (auto [key, value] : {std::pair{"experts", m.experts}, {"topk", m.topk},
                            {"moe_ffn", m.moe_ffn}, {"shared_experts", m.shared_experts},
                            {"dense_layers", m.dense_layers}}) {
    if (auto p = check_not_negative(key, value)) return p;
  }
  if (m.experts == 0) {
    for (auto [key, value] : {std::pair{"topk", m.topk}, {"moe_ffn", m.moe_ffn},
                              {"shared_experts", m.shared_experts},
                              {"dense_layers", m.dense_layers}}) {
      if (value > 0) return problem(key, fmt::format("{}={} requires experts", key, value));
    }
    return std::nullopt;
  }
  if (m.topk == 0) return problem("experts", fmt::format("experts={} requires topk", m.experts));
  if (m.moe_ffn == 0) {
    return problem("experts", fmt::format("experts={} requires moe_ffn", m.experts));
  }
  if (m.topk > m.experts) {
    return problem("topk", fmt::format("topk={} is larger than experts={}", m.topk, m.experts));
  }
  if (m.dense_layers >= m.layers) {
    return problem("dense_layers", fmt::format("dense_layers={} leaves no MoE layer of layers={}",
                                               m.dense_layers, m.layers));
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(FfnType type) {
  for (const auto& [name, value] : kFfnTypes) {
    if (value == type) return name;
  }
  return "unknown";
}

std::string_view to_string(NormType type) {
  for (const auto& [name, value] : kNormTypes) {
    if (value == type) return name;
  }
  return "unknown";
}

void validate_model(const ModelSpec& model, std::string_view field) {
  if (auto p = detail::check_shape(model)) {
    throw ConfigError(RequestField{std::string(field)}, p->message);
  }
}

namespace detail {

std::optional<FfnType> parse_ffn_type(std::string_view text) {
  for (const auto& [name, value] : kFfnTypes) {
    if (name == text) return value;
  }
  return std::nullopt;
}

std::optional<NormType> parse_norm_type(std::string_view text) {
  for (const auto& [name, value] : kNormTypes) {
    if (name == text) return value;
  }
  return std::nullopt;
}

const std::vector<std::string>& ffn_type_names() {
  static const std::vector<std::string> names = names_of(kFfnTypes);
  return names;
}

const std::vector<std::string>& norm_type_names() {
  static const std::vector<std::string> names = names_of(kNormTypes);
  return names;
}

void complete_shape(ModelSpec& model, bool kv_heads_given, bool head_dim_given) {
  if (!kv_heads_given) model.kv_heads = model.heads;
  if (!head_dim_given && model.heads > 0 && model.hidden % model.heads == 0) {
    model.head_dim = model.hidden / model.heads;
  }
}

std::optional<ShapeProblem> check_shape(const ModelSpec& m) {
  for (auto [key, value] : {std::pair{"layers", m.layers}, {"hidden", m.hidden},
                            {"heads", m.heads}, {"vocab", m.vocab}}) {
    if (auto p = check_positive(key, value)) return p;
  }
  if (auto p = check_not_negative("learned_positions", m.learned_positions)) return p;
  if (auto p = check_attention(m)) return p;
  if (auto p = check_moe(m)) return p;
  if (m.moe_layers() < m.layers) {
    if (auto p = check_positive("ffn", m.ffn)) return p;
  }
  return std::nullopt;
}

std::string or_list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace detail

}  // namespace linksim
