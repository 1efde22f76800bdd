// SPDX-License-Identifier: Apache-2.0
// `linksim topo dot FILE [--set k=v]... [--collapse-above N]`: the machine as Graphviz DOT on
// stdout (servers as clusters, big machines collapsed; docs/reports.md#dot).
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/cli_common.hpp"
#include "cli/command_table.hpp"
#include "linksim/charts.hpp"

namespace linksim::cli {
namespace {

struct DotArgs {
  TopoArgs topo;
  DotOptions options;
};

const CommandRegistrar kDot{"topo", "dot", [](CLI::App& topo) {
  auto args = std::make_shared<DotArgs>();
  CLI::App* cmd = topo.add_subcommand("dot", "Print the machine as a Graphviz DOT graph");
  add_topology_options(*cmd, args->topo);
  cmd->add_option("--collapse-above", args->options.collapse_above_devices,
                  "Above this many devices, draw host 0 in detail and the fabric by tier")
      ->capture_default_str();
  cmd->callback([args] {
    const Topology topology = load_topology_arg(args->topo);
    std::cout << render_topology_dot(topology, args->options);
    std::cout.flush();
  });
}};

}  // namespace
}  // namespace linksim::cli
