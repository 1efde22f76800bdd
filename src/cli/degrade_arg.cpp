// SPDX-License-Identifier: Apache-2.0
#include "cli/degrade_arg.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include "linksim/error.hpp"
#include "linksim/faults.hpp"

namespace linksim::cli {

void add_degrade_option(CLI::App& command, std::vector<std::string>& specs) {
  command
      .add_option("--degrade", specs,
                  "A fault: TARGET:CHANGE[,...], e.g. nic0:speed=200Gb/s, "
                  "gpu0~pcie_switch0:width=8, gpu3:missing, gpu1:clock=80% (docs/cli.md#degrade)")
      ->expected(1)
      ->allow_extra_args(false);
}

Topology apply_degrade(Topology topology, const std::vector<std::string>& specs) {
  for (const std::string& spec : specs) {
    try {
      topology = with_degraded(topology, spec);
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("--degrade: {}", e.message()));
    }
  }
  return topology;
}

}  // namespace linksim::cli
