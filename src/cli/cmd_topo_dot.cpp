// SPDX-License-Identifier: Apache-2.0
// `linksim topo dot FILE [--set k=v]...`: the machine as Graphviz DOT on stdout
// (colour = link family, pen width = bandwidth; docs/routing.md#dot).
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/cli_common.hpp"
#include "cli/command_table.hpp"
#include "topology/link_graph.hpp"

namespace linksim::cli {
namespace {

const CommandRegistrar kDot{"topo", "dot", [](CLI::App& topo) {
  auto args = std::make_shared<TopoArgs>();
  CLI::App* cmd = topo.add_subcommand("dot", "Print the machine as a Graphviz DOT graph");
  add_topology_options(*cmd, *args);
  cmd->callback([args] {
    const Topology topology = load_topology_arg(*args);
    detail::write_dot(std::cout, topology);
    std::cout.flush();
  });
}};

}  // namespace
}  // namespace linksim::cli
