// SPDX-License-Identifier: Apache-2.0
// Closed-set scenario values: operations, element types, NCCL switches.
#include "scenario/value_parsers.hpp"

#include <fmt/format.h>

#include "common/text.hpp"

namespace linksim::detail {
namespace {

[[noreturn]] void fail_choice(const YamlValue& value, const std::string& text,
                              const std::vector<std::string>& choices) {
  std::string close = closest_match(text, choices);
  if (!close.empty()) {
    value.fail(fmt::format("expected one of {}, got \"{}\"; did you mean \"{}\"?",
                           text::join(choices, ", "), text, close));
  }
  value.fail(fmt::format("expected one of {}, got \"{}\"", text::join(choices, ", "), text));
}

// The value through one of the library's parsers, else "expected one of <choices>".
template <class Parse>
auto parsed(const YamlValue& value, Parse parse, const std::vector<std::string>& choices) {
  const std::string text = value.text();
  if (auto result = parse(text)) return *result;
  fail_choice(value, text, choices);
}

}  // namespace

std::string choice_value(const YamlValue& value, const std::vector<std::string>& choices) {
  std::string text = value.text();
  for (const std::string& choice : choices) {
    if (choice == text) return text;
  }
  fail_choice(value, text, choices);
}

CollectiveOp collective_op_value(const YamlValue& value) {
  std::string text = value.text();
  if (std::optional<CollectiveOp> op = parse_collective(text)) return *op;
  std::vector<std::string> names;
  for (const CollectiveName& name : collective_names()) names.emplace_back(name.name);
  fail_choice(value, text, names);
}

DataType data_type_value(const YamlValue& value) {
  return parsed(value, parse_data_type, data_type_names());
}

ReductionOp reduction_op_value(const YamlValue& value) {
  return parsed(value, parse_reduction_op, reduction_op_names());
}

Algorithm algorithm_value(const YamlValue& value) {
  return parsed(value, parse_algorithm, algorithm_choices());
}

Protocol protocol_value(const YamlValue& value) {
  return parsed(value, parse_protocol, protocol_choices());
}

SimMode sim_mode_value(const YamlValue& value) {
  return parsed(value, parse_sim_mode, sim_mode_choices());
}

PathClass p2p_level_value(const YamlValue& value) {
  std::string text = value.text();
  if (std::optional<PathClass> level = parse_p2p_level(text)) return *level;
  fail_choice(value, text, {"LOC", "NVL", "PIX", "PXB", "PHB", "SYS"});
}

IbHcaFilter ib_hca_value(const YamlValue& value) {
  try {
    return parse_ib_hca(value.text());
  } catch (const ConfigError& e) {
    value.fail(e.message());
  }
}

NcclVersion nccl_version_value(const YamlValue& value) {
  const std::string text = value.text();
  const std::optional<NcclVersion> v = parse_nccl_version(text);
  if (!v) {
    value.fail(fmt::format("expected an NCCL release X.Y from {} to {}, got \"{}\"",
                           to_string(kOldestNcclVersion), to_string(kNewestNcclVersion), text));
  }
  return *v;
}

bool on_off_value(const YamlValue& value) {
  std::string text = value.text();
  if (text == "on" || text == "true" || text == "1") return true;
  if (text == "off" || text == "false" || text == "0") return false;
  value.fail(fmt::format("expected on or off, got \"{}\"", text));
}

}  // namespace linksim::detail
