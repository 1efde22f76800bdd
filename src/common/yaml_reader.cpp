// SPDX-License-Identifier: Apache-2.0
// Typed, positioned access to YAML: type checks, unknown keys, units, with did-you-mean.
#include "common/yaml_reader.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <unordered_set>

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>

#include "common/text.hpp"
#include "common/text_position.hpp"
#include "linksim/units.hpp"

namespace linksim::detail {
namespace {

// A quantity's leading number and the unit text after it: "450 GBs" -> (450, "GBs").
struct NumberAndUnit {
  std::optional<double> number;
  std::string unit;
};

// Numbers read as the unit parsers read them (std::from_chars: no '+', no hexadecimal, no
// "inf"), so that "+2 us" or "0x10 us" is never taken for a number the parser refuses.
NumberAndUnit split_number(const std::string& text) {
  std::string_view trimmed = text::trim(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) return {};
  return {value, std::string(text::trim(trimmed.substr(size_t(end - trimmed.data()))))};
}

// Unit spellings offered in "did you mean"; each is checked against the real parser first.
const std::vector<std::string> kBandwidthUnits = {"GB/s", "Gb/s", "Gbps", "MB/s", "Mb/s",
                                                  "TB/s", "Tb/s", "GiB/s", "KB/s"};
const std::vector<std::string> kDurationUnits = {"us", "ns", "ms", "s"};

// "; did you mean \"450 GB/s\"?" when the text is a near miss of a valid value: a unit one
// edit or so from a unit the parser accepts (units of one letter are not guessed at: "2 h"
// is hours, not a mistyped "2 s"), or a leading '+' the parser does not read. The
// suggestion is offered only when it parses and `valid` accepts its value; else "".
template <typename Parser, typename Valid>
std::string unit_hint(const std::string& text, const std::vector<std::string>& units,
                      Parser parse, Valid valid) {
  const auto offer = [&](const std::string& suggestion) -> std::string {
    const std::optional<double> value = parse(suggestion);
    if (!value || !valid(*value) || suggestion == text::trim(text)) return "";
    return fmt::format("; did you mean \"{}\"?", suggestion);
  };
  std::string_view trimmed = text::trim(text);
  if (trimmed.size() > 1 && trimmed.front() == '+' && trimmed[1] != '+') {
    return offer(std::string(trimmed.substr(1)));
  }
  NumberAndUnit split = split_number(text);
  if (!split.number || split.unit.size() < 2) return "";
  // Bytes (B) and bits (b) differ by 8x: a near miss keeps the class the user wrote, so
  // "450 GBps" suggests "GB/s", never "Gbps".
  const bool wrote_bytes = split.unit.find('B') != std::string::npos;
  const bool wrote_bits = !wrote_bytes && split.unit.find('b') != std::string::npos;
  std::vector<std::string> accepted;
  for (const std::string& unit : units) {
    const bool bytes = unit.find('B') != std::string::npos;
    if ((wrote_bytes && !bytes) || (wrote_bits && bytes)) continue;
    if (parse("1 " + unit)) accepted.push_back(unit);
  }
  std::string close = closest_match(split.unit, accepted);
  if (close.empty()) return "";
  std::string number_text(trimmed.substr(0, trimmed.size() - split.unit.size()));
  return offer(fmt::format("{} {}", text::trim(number_text), close));
}

// Flow collections end plain scalars at '[' and '{', so an unquoted `{name: gpu[0-7]}` or
// `{model: ${gpu}}` is a syntax error; true when the error's line (0-based) shows one.
bool looks_like_unquoted_range(const std::string& text, int line) {
  size_t begin = 0;
  for (int i = 0; i < line && begin != std::string::npos; ++i) {
    begin = text.find('\n', begin);
    if (begin != std::string::npos) ++begin;
  }
  if (begin == std::string::npos) return false;
  std::string_view row = std::string_view(text).substr(begin);
  row = row.substr(0, row.find('\n'));
  if (row.find('{') == std::string_view::npos) return false;
  for (size_t i = 1; i < row.size(); ++i) {
    bool word = std::isalnum(static_cast<unsigned char>(row[i - 1])) || row[i - 1] == '_';
    if ((row[i] == '[' && word) || (row[i] == '{' && row[i - 1] == '$')) return true;
  }
  return false;
}

std::string quoted_list(std::initializer_list<std::string_view> items) {
  std::string out;
  for (std::string_view item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

}  // namespace

SourceLocation yaml_location(const YAML::Node& node, const YamlFile& file) {
  YAML::Mark mark = node.Mark();
  if (mark.line < 0) return {file.name, 0, 0};
  return {file.name, mark.line + 1, mark.column + 1};
}

namespace {

// The first collection nested deeper than kMaxYamlDepth, if any. Iterative; each collection
// is visited once (an alias repeats its anchor's node, which has the same mark).
std::optional<YAML::Node> too_deep(const YAML::Node& root) {
  std::vector<std::pair<YAML::Node, int>> stack{{root, 1}};
  std::unordered_set<int> visited;
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (!node.IsMap() && !node.IsSequence()) continue;
    if (depth > kMaxYamlDepth) return node;
    if (!visited.insert(node.Mark().pos).second) continue;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (node.IsMap()) {
        stack.emplace_back(it->first, depth + 1);
        stack.emplace_back(it->second, depth + 1);
      } else {
        stack.emplace_back(*it, depth + 1);
      }
    }
  }
  return std::nullopt;
}

std::string depth_message() {
  return fmt::format("invalid yaml: expected mappings and sequences nested at most {} deep, "
                     "got deeper", kMaxYamlDepth);
}

}  // namespace

YAML::Node parse_yaml(const std::string& text, const YamlFile& file) {
  if (text.size() > kMaxYamlBytes) {
    throw ConfigError({file.name, 0, 0},
                      fmt::format("expected YAML of at most {} MiB, got {:.1f} MiB",
                                  kMaxYamlBytes >> 20, double(text.size()) / (1 << 20)),
                      file.notes);
  }
  require_utf8(text, file.name, file.notes);
  try {
    YAML::Node root = YAML::Load(text);
    if (const std::optional<YAML::Node> deep = too_deep(root)) {
      throw ConfigError(yaml_location(*deep, file), depth_message(), file.notes);
    }
    return root;
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own guard (a recursion depth of 2000, a few hundred levels) trips first.
    throw ConfigError({file.name, e.mark.line + 1, e.mark.column + 1}, depth_message(),
                      file.notes);
  } catch (const YAML::ParserException& e) {
    std::vector<std::string> notes;
    if (looks_like_unquoted_range(text, e.mark.line)) {
      notes.push_back("inside { } or [ ], quote names with ranges or parameters: "
                      "{name: \"gpu[0-7]\", model: \"${gpu}\"}");
    }
    notes.insert(notes.end(), file.notes.begin(), file.notes.end());
    throw ConfigError({file.name, e.mark.line + 1, e.mark.column + 1},
                      "invalid yaml: " + e.msg, std::move(notes));
  }
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a sequence";
    case YAML::NodeType::Scalar: return fmt::format("\"{}\"", node.Scalar());
    default: return "nothing";
  }
}

YamlValue::YamlValue(YAML::Node node, const YamlFile* file, std::string path,
                     const Params* params)
    : node_(std::move(node)), file_(file), path_(std::move(path)), params_(params) {}

YamlValue YamlValue::child(YAML::Node node, std::string path) const {
  return YamlValue(std::move(node), file_, std::move(path), params_);
}

std::string YamlValue::key_name() const {
  size_t dot = path_.rfind('.');
  return dot == std::string::npos ? path_ : path_.substr(dot + 1);
}

void YamlValue::fail(const std::string& message, std::vector<std::string> extra_notes) const {
  std::vector<std::string> notes;
  if (!path_.empty()) notes.push_back("in " + path_);
  notes.insert(notes.end(), extra_notes.begin(), extra_notes.end());
  notes.insert(notes.end(), file_->notes.begin(), file_->notes.end());
  throw ConfigError(location(), message, std::move(notes));
}

void YamlValue::expect_map() const {
  if (!node_.IsMap()) fail(fmt::format("expected a mapping, got {}", describe(node_)));
}

void YamlValue::check_keys(std::initializer_list<std::string_view> allowed) const {
  expect_map();
  std::vector<std::string> candidates(allowed.begin(), allowed.end());
  std::set<std::string> seen;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    YamlValue key = child(it->first, path_);
    if (!it->first.IsScalar()) key.fail(fmt::format("expected a key, got {}", describe(it->first)));
    const std::string& name = it->first.Scalar();
    if (!seen.insert(name).second) key.fail(fmt::format("duplicate key \"{}\"", name));
    bool known = false;
    for (std::string_view ok : allowed) known = known || ok == name;
    if (known) continue;
    std::string close = closest_match(name, candidates);
    key.fail(close.empty()
                 ? fmt::format("unknown key \"{}\"; expected one of {}", name, quoted_list(allowed))
                 : fmt::format("unknown key \"{}\"; did you mean \"{}\"?", name, close));
  }
}

std::optional<YamlValue> YamlValue::find(std::string_view key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      std::string path = path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
      return child(it->second, std::move(path));
    }
  }
  return std::nullopt;
}

YamlValue YamlValue::at(std::string_view key) const {
  std::optional<YamlValue> value = find(key);
  if (!value) fail(fmt::format("missing required key \"{}\"", key));
  return *value;
}

YamlValue YamlValue::key_of(std::string_view key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return child(it->first, path_);
  }
  return *this;
}

std::vector<YamlValue> YamlValue::items() const {
  if (!node_.IsSequence()) fail(fmt::format("expected a sequence, got {}", describe(node_)));
  std::vector<YamlValue> items;
  items.reserve(node_.size());
  for (size_t i = 0; i < node_.size(); ++i) {
    items.push_back(child(node_[i], fmt::format("{}[{}]", path_, i)));
  }
  return items;
}

std::vector<YamlValue> YamlValue::scalar_or_items() const {
  if (node_.IsScalar()) return {*this};
  return items();
}

std::string YamlValue::text() const {
  if (!node_.IsScalar()) fail(fmt::format("expected a string, got {}", describe(node_)));
  if (params_ == nullptr) return node_.Scalar();
  Params::Substitution result = params_->substitute(node_.Scalar());
  if (!result.error.empty()) fail(result.error);
  return result.text;
}

int YamlValue::to_int(int min) const {
  std::string value_text = text();
  std::string_view trimmed = text::trim(value_text);
  int value = 0;
  auto [end, ec] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), value);
  if (ec != std::errc() || end != trimmed.data() + trimmed.size() || trimmed.empty()) {
    fail(fmt::format("expected an integer, got \"{}\"", value_text));
  }
  if (value < min) fail(fmt::format("expected {} >= {}, got {}", key_name(), min, value));
  return value;
}

int YamlValue::to_int(int min, int max) const {
  std::string value_text = text();
  std::string_view trimmed = text::trim(value_text);
  long long value = 0;
  auto [end, ec] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), value);
  if (ec == std::errc::result_out_of_range) value = std::numeric_limits<long long>::max();
  else if (ec != std::errc() || end != trimmed.data() + trimmed.size() || trimmed.empty()) {
    fail(fmt::format("expected an integer, got \"{}\"", value_text));
  }
  if (value < min || value > max) {
    // "channels", not "channels[3]", for an item of a list of values.
    const std::string key = key_name().substr(0, key_name().find('['));
    fail(fmt::format("expected {} between {} and {}, got {}", key, min, max, trimmed));
  }
  return static_cast<int>(value);
}

double YamlValue::to_double(double min) const {
  std::string value_text = text();
  NumberAndUnit split = split_number(value_text);
  if (!split.number || !split.unit.empty()) {
    fail(fmt::format("expected a number, got \"{}\"", value_text));
  }
  if (*split.number < min) {
    fail(fmt::format("expected {} >= {}, got {}", key_name(), min, *split.number));
  }
  return *split.number;
}

bool YamlValue::to_bool() const {
  std::string value_text = text();
  if (value_text == "true") return true;
  if (value_text == "false") return false;
  fail(fmt::format("expected true or false, got \"{}\"", value_text));
}

double YamlValue::to_bandwidth_Bps() const {
  std::string value_text = text();
  NumberAndUnit split = split_number(value_text);
  const std::optional<double> unit_Bps =
      split.number && !split.unit.empty() ? parse_bandwidth_Bps("1 " + split.unit) : std::nullopt;
  if (unit_Bps && *split.number <= 0) {
    fail(fmt::format("expected {} > 0, got \"{}\"", key_name(), value_text));
  }
  if (unit_Bps) {
    const double bw_Bps = *split.number * *unit_Bps;
    if (!(bw_Bps >= kMinBandwidth_Bps && bw_Bps <= kMaxBandwidth_Bps)) {
      fail(fmt::format("expected {} between 1 MB/s and 1 PB/s, got \"{}\"", key_name(),
                       value_text));
    }
    if (std::optional<double> bw = parse_bandwidth_Bps(value_text)) return *bw;
  }
  fail(fmt::format("expected a bandwidth such as {}, got \"{}\"{}", kBandwidthExample, value_text,
                   unit_hint(value_text, kBandwidthUnits, parse_bandwidth_Bps, [](double bw) {
                     return bw >= kMinBandwidth_Bps && bw <= kMaxBandwidth_Bps;
                   })));
}

double YamlValue::to_duration_s() const {
  std::string value_text = text();
  NumberAndUnit split = split_number(value_text);
  if (std::optional<double> seconds = parse_duration_s(value_text)) {
    if (*seconds > kMaxLatency_s) {
      fail(fmt::format("expected {} of at most 1 s, got \"{}\"", key_name(), value_text));
    }
    return *seconds;
  }
  if (split.number && *split.number > 0 && !split.unit.empty() &&
      parse_duration_s("1 " + split.unit)) {
    fail(fmt::format("expected {} of at most 1 s, got \"{}\"", key_name(), value_text));
  }
  if (split.number && *split.number < 0 && !split.unit.empty() &&
      parse_duration_s("1 " + split.unit)) {
    fail(fmt::format("expected {} >= 0, got \"{}\"", key_name(), value_text));
  }
  fail(fmt::format("expected a duration such as {}, got \"{}\"{}", kDurationExample, value_text,
                   unit_hint(value_text, kDurationUnits, parse_duration_s,
                             [](double s) { return s <= kMaxLatency_s; })));
}

}  // namespace linksim::detail
