// SPDX-License-Identifier: Apache-2.0
// Closed-set scenario values: operations, element types, NCCL switches.
#include "scenario/value_parsers.hpp"

#include <fmt/format.h>

#include "common/text.hpp"
#include "linksim/report.hpp"

namespace linksim::detail {
namespace {

// nccl-tests' element types (nccl-tests src/common.cu, test_typenames).
constexpr DataTypeInfo kDataTypes[] = {
    {"fp32", "float", 4},   {"bf16", "bfloat16", 2}, {"fp16", "half", 2},
    {"fp64", "double", 8},  {"int8", "int8", 1},     {"uint8", "uint8", 1},
    {"int32", "int32", 4},  {"int64", "int64", 8},   {"fp8", "f8e4m3", 1}};

[[noreturn]] void fail_choice(const YamlValue& value, const std::string& text,
                              const std::vector<std::string>& choices) {
  std::string close = closest_match(text, choices);
  if (!close.empty()) {
    value.fail(fmt::format("expected one of {}, got \"{}\"; did you mean \"{}\"?",
                           text::join(choices, ", "), text, close));
  }
  value.fail(fmt::format("expected one of {}, got \"{}\"", text::join(choices, ", "), text));
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

const DataTypeInfo& data_type_value(const YamlValue& value) {
  std::string text = value.text();
  std::vector<std::string> names;
  for (const DataTypeInfo& type : kDataTypes) {
    if (type.name == text) return type;
    names.emplace_back(type.name);
  }
  fail_choice(value, text, names);
}

Algorithm algorithm_value(const YamlValue& value) {
  std::string text = value.text();
  if (std::optional<Algorithm> algo = parse_algorithm(text)) return *algo;
  fail_choice(value, text, {"auto", "ring", "tree", "nvls", "nvls_tree", "direct"});
}

Protocol protocol_value(const YamlValue& value) {
  std::string text = value.text();
  if (std::optional<Protocol> proto = parse_protocol(text)) return *proto;
  fail_choice(value, text, {"auto", "ll", "ll128", "simple"});
}

SimMode sim_mode_value(const YamlValue& value) {
  std::string text = value.text();
  if (std::optional<SimMode> mode = parse_sim_mode(text)) return *mode;
  fail_choice(value, text, {"analytic", "flow"});
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
