// SPDX-License-Identifier: Apache-2.0
// Typed, positioned access to YAML for the topology loader: every read either returns a
// checked value or throws ConfigError at the offending node with its YAML path as a note.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "linksim/error.hpp"
#include "common/params.hpp"

namespace linksim::detail {

/// One YAML file as messages name it.
struct YamlFile {
  std::string name;                ///< path shown in messages ("topologies/dgx.yaml", "input")
  std::vector<std::string> notes;  ///< "included from a.yaml:3:10", innermost first
};

/// The 1-based position of `node` in `file` (yaml-cpp marks are 0-based).
SourceLocation yaml_location(const YAML::Node& node, const YamlFile& file);

/// The deepest nesting of mappings and sequences a linksim YAML file may have: the formats
/// nest under ten deep; yaml-cpp's own recursion guard trips a few hundred levels down.
inline constexpr int kMaxYamlDepth = 64;
/// The largest YAML text parsed: 2 MiB, past any description (the largest in the repository
/// is 26 KB; a flat listing of a 4,096-device server under 200 KB). yaml-cpp holds about 90
/// bytes per byte of text, so the limit is checked before parsing.
inline constexpr size_t kMaxYamlBytes = 2 * 1024 * 1024;

/// Parses YAML text. Syntax errors become ConfigError at their 1-based position:
/// "invalid yaml: end of map flow not found"; so do text over kMaxYamlBytes ("expected YAML
/// of at most 2 MiB, got 50 MiB", for the whole file), text that is not UTF-8 ("expected UTF-8
/// text, got byte 0xff") and nesting deeper than kMaxYamlDepth ("invalid yaml: expected
/// mappings and sequences nested at most 64 deep, got deeper", at the first node too deep).
YAML::Node parse_yaml(const std::string& text, const YamlFile& file);

/// How a node reads in "got ..." messages: "\"text\"", "a mapping", "a sequence", "nothing".
std::string describe(const YAML::Node& node);

/// A YAML node with its file, its YAML path ("node.links[3].lanes") and the parameters
/// substituted into its scalars. Cheap to copy (YAML::Node is a handle).
/// REQUIRES: `file` and `params` (when not null) outlive the value.
class YamlValue {
 public:
  YamlValue(YAML::Node node, const YamlFile* file, std::string path, const Params* params);

  const YAML::Node& node() const { return node_; }
  const YamlFile& file() const { return *file_; }
  const std::string& path() const { return path_; }
  SourceLocation location() const { return yaml_location(node_, *file_); }
  /// Throws ConfigError at this node; the notes are "in <path>", `extra_notes`, then the
  /// include chain.
  [[noreturn]] void fail(const std::string& message,
                         std::vector<std::string> extra_notes = {}) const;

  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }

  // ---- mappings ----
  /// Throws "expected a mapping, got ..." unless this is a mapping.
  void expect_map() const;
  /// Throws at the first key not in `allowed`: "unknown key \"lanez\"; did you mean \"lanes\"?"
  /// or "...; expected one of a, b, c".
  void check_keys(std::initializer_list<std::string_view> allowed) const;
  /// The value under `key`, or nullopt when absent. REQUIRES: expect_map() passed.
  std::optional<YamlValue> find(std::string_view key) const;
  /// The value under `key`; throws "missing required key \"key\"" at this mapping.
  YamlValue at(std::string_view key) const;
  /// The key node of `key` (for messages about the key itself). REQUIRES: the key exists.
  YamlValue key_of(std::string_view key) const;

  // ---- sequences ----
  /// The items of a sequence; throws "expected a sequence, got ..." otherwise.
  std::vector<YamlValue> items() const;
  /// A scalar as a one-item list, or the items of a sequence.
  std::vector<YamlValue> scalar_or_items() const;

  // ---- scalars (after ${name} substitution) ----
  /// The scalar text; throws "expected a string, got a mapping" for non-scalars.
  std::string text() const;
  /// Throws "expected an integer, got ..." and "expected <key> >= min, got N".
  int to_int(int min) const;
  /// The same within [min, max]: "expected <key> between min and max, got N" (also for a
  /// number too large for an int).
  int to_int(int min, int max) const;
  /// Throws "expected a number, got ..." and "expected <key> >= min, got X".
  double to_double(double min) const;
  /// "true" or "false"; throws "expected true or false, got ...".
  bool to_bool() const;
  /// A bandwidth with a unit, per direction, bytes/s within [kMinBandwidth_Bps,
  /// kMaxBandwidth_Bps] (units.hpp parse_bandwidth_Bps): "expected <key> between 1 MB/s and
  /// 1 PB/s, got ..." outside.
  double to_bandwidth_Bps() const;
  /// A duration with a unit, seconds in [0, kMaxLatency_s] (units.hpp parse_duration_s):
  /// "expected <key> of at most 1 s, got ..." above.
  double to_duration_s() const;

 private:
  YamlValue child(YAML::Node node, std::string path) const;
  std::string key_name() const;  // last path component, for "expected lanes >= 1"

  YAML::Node node_;
  const YamlFile* file_;
  std::string path_;
  const Params* params_;
};

}  // namespace linksim::detail
