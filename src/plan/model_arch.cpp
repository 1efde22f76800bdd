// SPDX-License-Identifier: Apache-2.0
// Inline architectures: "--arch layers=80,hidden=8192,..." into a validated ModelSpec.
#include <fmt/core.h>

#include <charconv>
#include <algorithm>
#include <utility>
#include <vector>
#include <optional>

#include "common/text.hpp"
#include "linksim/error.hpp"
#include "linksim/model.hpp"
#include "plan/model_shape.hpp"

namespace linksim {

namespace {

enum class Kind { kInt, kBool, kFfnType, kNormType };

struct ArchKey {
  const char* name;
  Kind kind;
};

// The order is the order of the "expected one of" list in messages.
constexpr ArchKey kArchKeys[] = {
    {"layers", Kind::kInt},         {"hidden", Kind::kInt},
    {"heads", Kind::kInt},          {"kv_heads", Kind::kInt},
    {"head_dim", Kind::kInt},       {"ffn", Kind::kInt},
    {"ffn_type", Kind::kFfnType},   {"vocab", Kind::kInt},
    {"tied", Kind::kBool},          {"norm", Kind::kNormType},
    {"linear_bias", Kind::kBool},   {"qkv_bias", Kind::kBool},
    {"dropout", Kind::kBool},       {"learned_positions", Kind::kInt},
    {"experts", Kind::kInt},        {"topk", Kind::kInt},
    {"moe_ffn", Kind::kInt},        {"shared_experts", Kind::kInt},
    {"dense_layers", Kind::kInt},   {"q_lora_rank", Kind::kInt},
    {"kv_lora_rank", Kind::kInt},   {"rope_head_dim", Kind::kInt},
};

std::vector<std::string> arch_key_names() {
  std::vector<std::string> names;
  for (const ArchKey& key : kArchKeys) names.emplace_back(key.name);
  return names;
}

using Items = std::vector<std::pair<std::string, std::string>>;

bool has(const Items& items, std::string_view key) {
  return std::any_of(items.begin(), items.end(),
                     [&](const auto& item) { return item.first == key; });
}

class ArchParser {
 public:
  explicit ArchParser(std::string_view flag) : flag_(flag) {}

  [[noreturn]] void fail(const std::string& message) const {
    throw ConfigError(fmt::format("{}: {}", flag_, message));
  }

  // "unknown X "word" (did you mean "y"?)" or "(expected one of a, b, c)".
  [[noreturn]] void fail_unknown(std::string_view what, const std::string& word,
                                 const std::vector<std::string>& choices) const {
    std::string close = closest_match(word, choices);
    if (!close.empty()) {
      fail(fmt::format("unknown {} \"{}\" (did you mean \"{}\"?)", what, word, close));
    }
    fail(fmt::format("unknown {} \"{}\" (expected one of {})", what, word,
                     text::join(choices, ", ")));
  }

  // (key, value text) in the order given; each key at most once.
  Items split_items(std::string_view spec) const {
    Items items;
    for (const std::string& raw : text::split(spec, ',')) {
      const std::string_view item = text::trim(raw);
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos) {
        fail(fmt::format("expected key=value, got \"{}\"", item));
      }
      const std::string key(text::trim(item.substr(0, eq)));
      const std::string value(text::trim(item.substr(eq + 1)));
      if (find_key(key) == nullptr) fail_unknown("key", key, arch_key_names());
      if (has(items, key)) fail(fmt::format("key \"{}\" given twice", key));
      items.emplace_back(key, value);
    }
    return items;
  }

  static const ArchKey* find_key(std::string_view name) {
    for (const ArchKey& key : kArchKeys) {
      if (name == key.name) return &key;
    }
    return nullptr;
  }

  int to_int(const std::string& key, const std::string& value) const {
    int parsed = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size()) {
      fail(fmt::format("expected a whole number for {}, got \"{}\"", key, value));
    }
    return parsed;
  }

  bool to_bool(const std::string& key, const std::string& value) const {
    if (value == "true") return true;
    if (value == "false") return false;
    fail(fmt::format("expected true or false for {}, got \"{}\"", key, value));
  }

  void assign(ModelSpec& m, const std::string& key, const std::string& value) const {
    const ArchKey& spec = *find_key(key);
    if (spec.kind == Kind::kBool) {
      const bool flag = to_bool(key, value);
      if (key == "tied") m.tied_embeddings = flag;
      if (key == "linear_bias") m.linear_bias = flag;
      if (key == "qkv_bias") m.qkv_bias = flag;
      if (key == "dropout") m.dropout = flag;
      return;
    }
    if (spec.kind == Kind::kFfnType) {
      auto type = detail::parse_ffn_type(value);
      if (!type) fail_unknown("ffn_type", value, detail::ffn_type_names());
      m.ffn_type = *type;
      return;
    }
    if (spec.kind == Kind::kNormType) {
      auto type = detail::parse_norm_type(value);
      if (!type) fail_unknown("norm", value, detail::norm_type_names());
      m.norm = *type;
      return;
    }
    *int_field(m, key) = to_int(key, value);
  }

  static int* int_field(ModelSpec& m, const std::string& key) {
    const std::pair<const char*, int*> fields[] = {
        {"layers", &m.layers},           {"hidden", &m.hidden},
        {"heads", &m.heads},             {"kv_heads", &m.kv_heads},
        {"head_dim", &m.head_dim},       {"ffn", &m.ffn},
        {"vocab", &m.vocab},             {"learned_positions", &m.learned_positions},
        {"experts", &m.experts},         {"topk", &m.topk},
        {"moe_ffn", &m.moe_ffn},         {"shared_experts", &m.shared_experts},
        {"dense_layers", &m.dense_layers}, {"q_lora_rank", &m.q_lora_rank},
        {"kv_lora_rank", &m.kv_lora_rank}, {"rope_head_dim", &m.rope_head_dim},
    };
    for (const auto& [name, field] : fields) {
      if (key == name) return field;
    }
    throw std::logic_error("arch key without a field: " + key);
  }

 private:
  std::string_view flag_;
};

}  // namespace

ModelSpec parse_arch(std::string_view spec, std::string_view flag) {
  const ArchParser parser(flag);
  const Items items = parser.split_items(spec);
  ModelSpec model;
  model.key = "custom";
  model.name = "custom";
  model.source = std::string(flag);
  for (const auto& [key, value] : items) parser.assign(model, key, value);

  for (const char* key : {"layers", "hidden", "heads", "vocab"}) {
    if (!has(items, key)) parser.fail(fmt::format("missing required key \"{}\"", key));
  }
  const bool has_dense_layers = model.experts == 0 || model.dense_layers > 0;
  if (has_dense_layers && !has(items, "ffn")) {
    parser.fail("missing required key \"ffn\"");
  }
  detail::complete_shape(model, has(items, "kv_heads"), has(items, "head_dim"));
  if (auto problem = detail::check_shape(model)) parser.fail(problem->message);
  return model;
}

}  // namespace linksim
