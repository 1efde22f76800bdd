// SPDX-License-Identifier: Apache-2.0
// Typed, positioned access to the fields of one YAML mapping.
#include "catalog/yaml_fields.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "linksim/units.hpp"

namespace linksim::detail {

SourceLocation location_of(const YAML::Node& node, std::string_view file) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return SourceLocation{std::string(file), 0, 0};
  return SourceLocation{std::string(file), mark.line + 1, mark.column + 1};
}

std::string_view node_kind_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a sequence";
    case YAML::NodeType::Scalar: return "a scalar";
    default: return "null";
  }
}

namespace {

// yaml-cpp keeps both entries of a key written twice in one mapping and answers a lookup with
// the first: refuse the second at its position instead (a catalog entry whose key is repeated
// would otherwise merge two entries silently). Walks without recursion.
void refuse_duplicate_keys(const YAML::Node& document, std::string_view file) {
  std::vector<YAML::Node> pending{document};
  while (!pending.empty()) {
    const YAML::Node node = pending.back();
    pending.pop_back();
    if (node.IsSequence()) {
      for (const YAML::Node& item : node) pending.push_back(item);
      continue;
    }
    if (!node.IsMap()) continue;
    std::vector<std::string> seen;
    for (const auto& entry : node) {
      const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string();
      if (entry.first.IsScalar() &&
          std::find(seen.begin(), seen.end(), key) != seen.end()) {
        throw ConfigError(location_of(entry.first, file),
                          fmt::format("duplicate key '{}' in one mapping", key));
      }
      seen.push_back(key);
      pending.push_back(entry.second);
    }
  }
}

}  // namespace

YAML::Node load_document(std::string_view text, std::string_view file) {
  YAML::Node document;
  try {
    document = YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    throw ConfigError(SourceLocation{std::string(file), e.mark.line + 1, e.mark.column + 1},
                      e.msg);
  }
  refuse_duplicate_keys(document, file);
  return document;
}

YAML::Node entry_list(const YAML::Node& document, std::string_view file, const char* top_key) {
  if (!document.IsMap()) {
    throw ConfigError(location_of(document, file),
                      fmt::format("expected a mapping with key '{}', got {}", top_key,
                                  node_kind_name(document)));
  }
  for (const auto& entry : document) {
    if (entry.first.Scalar() != top_key) {
      throw ConfigError(location_of(entry.first, file),
                        fmt::format("unknown key '{}' in the catalog; expected '{}'",
                                    entry.first.Scalar(), top_key));
    }
  }
  const FieldReader top(document, file, "the catalog");
  const YAML::Node entries = document[top_key];
  if (!entries) top.fail_at(top_key, fmt::format("missing required key '{}'", top_key));
  if (!entries.IsSequence()) {
    top.fail_at(top_key, fmt::format("expected a sequence for '{}', got {}", top_key,
                                     node_kind_name(entries)));
  }
  return entries;
}

FieldReader entry_reader(const YAML::Node& entry, std::string_view file, std::string_view list,
                         size_t index) {
  if (!entry.IsMap()) {
    throw ConfigError(location_of(entry, file),
                      fmt::format("expected a mapping for {}[{}], got {}", list, index,
                                  node_kind_name(entry)));
  }
  return FieldReader(entry, file, fmt::format("{}[{}]", list, index));
}

FieldReader::FieldReader(const YAML::Node& node, std::string_view file, std::string what)
    : node_(node), file_(file), what_(std::move(what)) {}

void FieldReader::fail_at(const char* key, const std::string& message) const {
  const YAML::Node value = node_[key];
  throw ConfigError(location_of(value ? value : node_, file_), message);
}

void FieldReader::fail_missing(const char* key) const {
  throw ConfigError(location_of(node_, file_),
                    fmt::format("missing required key '{}' in {}", key, what_));
}

std::optional<YAML::Node> FieldReader::scalar(const char* key, bool required) {
  const YAML::Node value = node_[key];
  if (!value || value.IsNull()) {
    if (required) fail_missing(key);
    return std::nullopt;
  }
  if (!value.IsScalar()) {
    fail_at(key, fmt::format("expected a scalar for '{}', got {}", key, node_kind_name(value)));
  }
  return value;
}

std::string FieldReader::required_string(const char* key) {
  return scalar(key, true)->Scalar();
}

std::optional<std::string> FieldReader::optional_string(const char* key) {
  const std::optional<YAML::Node> value = scalar(key, false);
  if (!value) return std::nullopt;
  return value->Scalar();
}

std::optional<int> FieldReader::optional_int(const char* key) {
  const std::optional<YAML::Node> value = scalar(key, false);
  if (!value) return std::nullopt;
  const std::string& text = value->Scalar();
  int parsed = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (ec != std::errc() || end != text.data() + text.size() || parsed < 0) {
    fail_at(key, fmt::format("expected a non-negative integer for '{}', got '{}'", key, text));
  }
  return parsed;
}

int FieldReader::required_int(const char* key) {
  std::optional<int> value = optional_int(key);
  if (!value) fail_missing(key);
  return *value;
}

std::optional<bool> FieldReader::optional_bool(const char* key) {
  const std::optional<YAML::Node> value = scalar(key, false);
  if (!value) return std::nullopt;
  const std::string& text = value->Scalar();
  if (text == "true") return true;
  if (text == "false") return false;
  fail_at(key, fmt::format("expected true or false for '{}', got '{}'", key, text));
}

std::optional<double> FieldReader::optional_number(const char* key) {
  const std::optional<YAML::Node> value = scalar(key, false);
  if (!value) return std::nullopt;
  const std::string& text = value->Scalar();
  double parsed = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (ec != std::errc() || end != text.data() + text.size() || !(parsed >= 0) ||
      parsed == HUGE_VAL) {
    fail_at(key, fmt::format("expected a non-negative number for '{}', got '{}'", key, text));
  }
  return parsed;
}

std::vector<std::string> FieldReader::optional_string_list(const char* key) {
  const YAML::Node value = node_[key];
  std::vector<std::string> items;
  if (!value || value.IsNull()) return items;
  if (!value.IsSequence()) {
    fail_at(key, fmt::format("expected a sequence for '{}', got {}", key, node_kind_name(value)));
  }
  for (const YAML::Node& item : value) {
    if (!item.IsScalar()) {
      throw ConfigError(location_of(item, file_),
                        fmt::format("expected a string in '{}', got {}", key,
                                    node_kind_name(item)));
    }
    items.push_back(item.Scalar());
  }
  return items;
}

template <typename Parse>
std::optional<double> FieldReader::quantity(const char* key, bool required, Parse parse,
                                            std::string_view kind, std::string_view example) {
  const std::optional<YAML::Node> value = scalar(key, required);
  if (!value) return std::nullopt;
  std::optional<double> parsed = parse(value->Scalar());
  if (!parsed) {
    fail_at(key,
            fmt::format("expected {} such as {}, got \"{}\"", kind, example, value->Scalar()));
  }
  return parsed;
}

double FieldReader::required_bandwidth_Bps(const char* key) {
  return *quantity(key, true, parse_bandwidth_Bps, "a bandwidth", kBandwidthExample);
}

std::optional<double> FieldReader::optional_bandwidth_Bps(const char* key) {
  return quantity(key, false, parse_bandwidth_Bps, "a bandwidth", kBandwidthExample);
}

double FieldReader::required_duration_s(const char* key) {
  return *quantity(key, true, parse_duration_s, "a duration", kDurationExample);
}

double FieldReader::required_size_bytes(const char* key) {
  return *quantity(key, true, parse_size_bytes, "a size", kSizeExample);
}

std::optional<double> FieldReader::optional_flops(const char* key) {
  return quantity(key, false, parse_flops, "a compute rate", kFlopsExample);
}

double FieldReader::required_flops(const char* key) {
  return *quantity(key, true, parse_flops, "a compute rate", kFlopsExample);
}

void FieldReader::reject_unknown_keys(const std::vector<std::string>& allowed) const {
  for (const auto& entry : node_) {
    const std::string key = entry.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string message = fmt::format("unknown key '{}' in {}", key, what_);
    std::string suggestion = closest_match(key, allowed);
    if (!suggestion.empty()) message += fmt::format("; did you mean '{}'?", suggestion);
    throw ConfigError(location_of(entry.first, file_), message);
  }
}

}  // namespace linksim::detail
