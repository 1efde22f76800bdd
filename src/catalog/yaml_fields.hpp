// SPDX-License-Identifier: Apache-2.0
// Typed, positioned access to the fields of one YAML mapping (a catalog entry). Every failure
// is a ConfigError at the offending node (or at the mapping for a missing key).
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/error.hpp"

namespace linksim::detail {

/// The 1-based position of a node (yaml-cpp marks are 0-based).
SourceLocation location_of(const YAML::Node& node, std::string_view file);

/// "a mapping", "a sequence", "a scalar", "null": for "expected X, got Y" messages.
std::string_view node_kind_name(const YAML::Node& node);

class FieldReader {
 public:
  /// REQUIRES: `node` is a mapping. `what` names the entry in messages ("gpu 'h100-sxm'").
  FieldReader(const YAML::Node& node, std::string_view file, std::string what);

  void set_what(std::string what) { what_ = std::move(what); }

  std::string required_string(const char* key);
  std::optional<std::string> optional_string(const char* key);
  std::optional<int> optional_int(const char* key);
  int required_int(const char* key);
  std::optional<bool> optional_bool(const char* key);
  /// A plain non-negative number ("70.6e9", "12"), without units.
  std::optional<double> optional_number(const char* key);
  std::vector<std::string> optional_string_list(const char* key);

  /// Quantities with explicit units, parsed by linksim/units.hpp.
  double required_bandwidth_Bps(const char* key);
  std::optional<double> optional_bandwidth_Bps(const char* key);
  double required_duration_s(const char* key);
  double required_size_bytes(const char* key);
  std::optional<double> optional_flops(const char* key);
  double required_flops(const char* key);

  /// Throws for the first key of the mapping not in `allowed`, suggesting the closest one.
  /// Call before reading fields, so a misspelt key is reported as such, not as missing.
  void reject_unknown_keys(const std::vector<std::string>& allowed) const;

  /// A ConfigError at the node of `key` (or at the mapping when the key is absent).
  [[noreturn]] void fail_at(const char* key, const std::string& message) const;

 private:
  /// The scalar under `key`; nullopt when absent or null (an error when `required`).
  std::optional<YAML::Node> scalar(const char* key, bool required);
  [[noreturn]] void fail_missing(const char* key) const;
  template <typename Parse>
  std::optional<double> quantity(const char* key, bool required, Parse parse,
                                 std::string_view kind, std::string_view example);

  const YAML::Node node_;
  std::string file_;
  std::string what_;
};

/// Parses a whole YAML document; a syntax error becomes a positioned ConfigError.
YAML::Node load_document(std::string_view text, std::string_view file);

/// The sequence under the document's only key `top_key` (a catalog: `gpus:`, `models:`).
YAML::Node entry_list(const YAML::Node& document, std::string_view file, const char* top_key);

/// A reader for entry `index` of `list`, which must be a mapping; named "list[index]".
FieldReader entry_reader(const YAML::Node& entry, std::string_view file, std::string_view list,
                         size_t index);

}  // namespace linksim::detail
