// SPDX-License-Identifier: Apache-2.0
// Topology arguments shared by CLI commands.
#include "cli/cli_common.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <limits>
#include <fmt/core.h>

#include "linksim/calibration.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim::cli {

void add_topology_options(CLI::App& command, TopoArgs& args) {
  command.add_option("file", args.file, "topology YAML (topologies/*.yaml)")->required();
  command.add_option("--set", args.sets, "override a topology parameter: name=value (repeatable)");
}

Topology load_topology_arg(const TopoArgs& args) {
  ParamOverrides overrides;
  for (const std::string& set : args.sets) {
    auto [name, value] = parse_override(set);
    overrides[name] = value;
  }
  return load_topology(args.file, overrides);
}

void add_calibration_option(CLI::App& command, std::string& profile_path) {
  command.add_option("--calibration", profile_path,
                     "Calibration profile written by `linksim calibrate` (docs/calibration.md)");
}

ModelCalibration calibration_arg(const std::string& profile_path) {
  if (profile_path.empty()) return {};
  return load_calibration_profile(profile_path).parameters;
}

CLI::Validator int_between(int min, int max, const std::string& what) {
  return CLI::Validator(
      [min, max, what](std::string& text) -> std::string {
        long long value = 0;
        const char* end = text.data() + text.size();
        auto [stop, ec] = std::from_chars(text.data(), end, value);
        if (ec == std::errc() && stop == end && value >= min && value <= max) return {};
        if (max == std::numeric_limits<int>::max()) {
          return fmt::format("expected {} >= {}, got \"{}\"", what, min, text);
        }
        return fmt::format("expected {} between {} and {}, got \"{}\"", what, min, max, text);
      },
      fmt::format("{}..{}", min, max));
}

void check_host_arg(const Topology& topology, int host) {
  if (host < 0 || host >= topology.host_count()) {
    throw ConfigError(fmt::format("expected --host between 0 and {}, got {}",
                                  topology.host_count() - 1, host));
  }
}

}  // namespace linksim::cli
