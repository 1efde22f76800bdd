// SPDX-License-Identifier: Apache-2.0
// The model catalog: YAML schema (docs/models.md#catalog), validation and lookup by name.
#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "catalog/yaml_fields.hpp"
#include "common/text.hpp"
#include "linksim/error.hpp"
#include "linksim/model.hpp"
#include "plan/model_shape.hpp"

namespace linksim::detail {
extern const char* const kBuiltinModelCatalogYaml;
extern const char* const kBuiltinModelCatalogPath;
}  // namespace linksim::detail

namespace linksim {

namespace {

using detail::FieldReader;
using detail::location_of;

const std::vector<std::string> kModelKeys = {
    "key",          "name",         "aliases",           "layers",
    "hidden",       "heads",        "kv_heads",          "head_dim",
    "ffn",          "ffn_type",     "vocab",             "tied_embeddings",
    "norm",         "linear_bias",  "qkv_bias",          "dropout",
    "learned_positions", "experts", "topk",              "moe_ffn",
    "shared_experts", "dense_layers", "q_lora_rank",     "kv_lora_rank",
    "rope_head_dim", "published_params", "published_active_params", "notes",
    "source"};

// Lower case without '-', '_', '.' and spaces: "Llama-3.1-70B" and "llama31_70b" agree.
std::string normalized(std::string_view name) {
  std::string out;
  for (char c : text::to_lower(name)) {
    if (c != '-' && c != '_' && c != '.' && c != ' ') out += c;
  }
  return out;
}

template <typename Enum, typename Parse>
Enum read_enum(FieldReader& fields, const char* key, Enum fallback, Parse parse,
               const std::vector<std::string>& names) {
  const std::optional<std::string> text = fields.optional_string(key);
  if (!text) return fallback;
  if (auto value = parse(*text)) return *value;
  std::string message = fmt::format("unknown {} '{}'", key, *text);
  const std::string close = closest_match(*text, names);
  message += close.empty() ? fmt::format("; expected {}", detail::or_list(names))
                           : fmt::format("; did you mean '{}'?", close);
  fields.fail_at(key, message);
}

// One URL or a list of URLs, kept as one space-separated string.
std::string read_source(const YAML::Node& entry, FieldReader& fields) {
  if (entry["source"] && entry["source"].IsSequence()) {
    return text::join(fields.optional_string_list("source"), " ");
  }
  return fields.required_string("source");
}

void read_shape(FieldReader& fields, ModelSpec& m) {
  m.layers = fields.required_int("layers");
  m.hidden = fields.required_int("hidden");
  m.heads = fields.required_int("heads");
  m.kv_heads = fields.optional_int("kv_heads").value_or(0);
  m.head_dim = fields.optional_int("head_dim").value_or(0);
  m.ffn = fields.optional_int("ffn").value_or(0);
  m.ffn_type = read_enum(fields, "ffn_type", FfnType::kSwiGlu, detail::parse_ffn_type,
                         detail::ffn_type_names());
  m.vocab = fields.required_int("vocab");
  m.tied_embeddings = fields.optional_bool("tied_embeddings").value_or(false);
  m.norm = read_enum(fields, "norm", NormType::kRmsNorm, detail::parse_norm_type,
                     detail::norm_type_names());
  m.linear_bias = fields.optional_bool("linear_bias").value_or(false);
  m.qkv_bias = fields.optional_bool("qkv_bias").value_or(false);
  m.dropout = fields.optional_bool("dropout").value_or(false);
  m.learned_positions = fields.optional_int("learned_positions").value_or(0);
  m.experts = fields.optional_int("experts").value_or(0);
  m.topk = fields.optional_int("topk").value_or(0);
  m.moe_ffn = fields.optional_int("moe_ffn").value_or(0);
  m.shared_experts = fields.optional_int("shared_experts").value_or(0);
  m.dense_layers = fields.optional_int("dense_layers").value_or(0);
  m.q_lora_rank = fields.optional_int("q_lora_rank").value_or(0);
  m.kv_lora_rank = fields.optional_int("kv_lora_rank").value_or(0);
  m.rope_head_dim = fields.optional_int("rope_head_dim").value_or(0);
}

ModelSpec parse_model(const YAML::Node& entry, FieldReader& fields) {
  ModelSpec m;
  if (auto key = fields.optional_string("key")) fields.set_what(fmt::format("model '{}'", *key));
  fields.reject_unknown_keys(kModelKeys);
  m.key = fields.required_string("key");
  m.name = fields.required_string("name");
  m.aliases = fields.optional_string_list("aliases");
  read_shape(fields, m);
  m.published_params = fields.optional_number("published_params").value_or(0);
  m.published_active_params = fields.optional_number("published_active_params").value_or(0);
  m.notes = fields.optional_string("notes").value_or("");
  m.source = read_source(entry, fields);
  detail::complete_shape(m, fields.optional_int("kv_heads").has_value(),
                         fields.optional_int("head_dim").has_value());
  if (auto problem = detail::check_shape(m)) {
    fields.fail_at(problem->key.c_str(), fmt::format("{} in model '{}'", problem->message, m.key));
  }
  if (!m.is_moe() && m.published_active_params > 0) {
    fields.fail_at("published_active_params",
                   fmt::format("published_active_params is for MoE models; model '{}' has no "
                               "experts", m.key));
  }
  return m;
}

// Every key and alias must name one model only, after normalization.
void check_unique(std::vector<std::pair<std::string, std::string>>& seen, const std::string& name,
                  const SourceLocation& where) {
  const std::string norm = normalized(name);
  for (const auto& [other_norm, other] : seen) {
    if (other_norm == norm) {
      throw ConfigError(where, fmt::format("model name '{}' is already used by '{}'", name, other));
    }
  }
  seen.emplace_back(norm, name);
}

}  // namespace

const ModelCatalog& ModelCatalog::builtin() {
  static const ModelCatalog catalog =
      parse(detail::kBuiltinModelCatalogYaml, detail::kBuiltinModelCatalogPath);
  return catalog;
}

ModelCatalog ModelCatalog::parse(std::string_view yaml_text, std::string_view file_name) {
  const YAML::Node entries =
      detail::entry_list(detail::load_document(yaml_text, file_name), file_name, "models");
  ModelCatalog catalog;
  std::vector<std::pair<std::string, std::string>> names;
  for (size_t i = 0; i < entries.size(); ++i) {
    const YAML::Node& entry = entries[i];
    FieldReader fields = detail::entry_reader(entry, file_name, "models", i);
    ModelSpec model = parse_model(entry, fields);
    check_unique(names, model.key, location_of(entry["key"], file_name));
    for (size_t a = 0; a < model.aliases.size(); ++a) {
      check_unique(names, model.aliases[a], location_of(entry["aliases"][a], file_name));
    }
    catalog.models_.push_back(std::move(model));
  }
  return catalog;
}

const ModelSpec* ModelCatalog::find(std::string_view name) const {
  const std::string wanted = normalized(name);
  for (const ModelSpec& model : models_) {
    if (normalized(model.key) == wanted) return &model;
    for (const std::string& alias : model.aliases) {
      if (normalized(alias) == wanted) return &model;
    }
  }
  return nullptr;
}

const ModelSpec& ModelCatalog::get(std::string_view name, std::string_view flag) const {
  if (const ModelSpec* model = find(name)) return *model;
  // Suggest by normalized spelling, answer with the catalog key.
  std::vector<std::string> spellings;
  std::vector<const ModelSpec*> owners;
  std::vector<std::string> keys;
  for (const ModelSpec& model : models_) {
    keys.push_back(model.key);
    spellings.push_back(normalized(model.key));
    owners.push_back(&model);
    for (const std::string& alias : model.aliases) {
      spellings.push_back(normalized(alias));
      owners.push_back(&model);
    }
  }
  const std::string close = closest_match(normalized(name), spellings);
  const std::string note = "known models: " + text::join(keys, ", ");
  if (close.empty()) {
    throw ConfigError(fmt::format("{}: unknown model \"{}\"", flag, name), {note});
  }
  const size_t at = size_t(std::find(spellings.begin(), spellings.end(), close) - spellings.begin());
  throw ConfigError(fmt::format("{}: unknown model \"{}\" (did you mean \"{}\"?)", flag, name,
                                owners[at]->key),
                    {note});
}

}  // namespace linksim
