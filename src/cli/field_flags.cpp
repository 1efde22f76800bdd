// SPDX-License-Identifier: Apache-2.0
#include "cli/field_flags.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace linksim::cli {
namespace {

// Fields whose flag is not "--" + the field with dashes (docs/cli.md lists the flags).
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kFieldFlags{{
    {"min_bytes", "-b"},
    {"max_bytes", "-e"},
    {"factor", "-f"},
    {"step_bytes", "-i"},
    {"size_bytes", "--size"},
    {"baseline_gpus", "--baseline"},
    {"first_n", "-g"},
}};

}  // namespace

std::string flag_for_field(std::string_view field) {
  for (const auto& [name, flag] : kFieldFlags) {
    if (name == field) return std::string(flag);
  }
  std::string flag = "--" + std::string(field);
  std::replace(flag.begin() + 2, flag.end(), '_', '-');
  return flag;
}

ConfigError with_flag_names(const ConfigError& error) {
  return error.field().empty() ? error : error.with_field_spelled(flag_for_field(error.field()));
}

}  // namespace linksim::cli
