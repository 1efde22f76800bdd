// SPDX-License-Identifier: Apache-2.0
// `linksim topo show FILE [--set k=v]... [--json]`: devices by kind, links by type, per-GPU
// NVLink lanes, PCIe path and nearest NIC, and the GPU set's bisection bandwidth
// (docs/routing.md#bisection): summarize_topology (linksim/topology_summary.hpp), rendered by
// linksim/topology_summary_report.hpp.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>

#include "cli/cli_common.hpp"
#include "cli/command_table.hpp"
#include "linksim/routing.hpp"
#include "linksim/topology_summary.hpp"
#include "linksim/topology_summary_report.hpp"

namespace linksim::cli {
namespace {

struct ShowArgs {
  TopoArgs topo;
  bool json = false;
};

void run_show(const ShowArgs& args) {
  const Topology topology = load_topology_arg(args.topo);
  const TopologySummary summary = summarize_topology(Router(topology));
  fmt::print("{}", args.json ? render_topology_summary_json(summary)
                             : render_topology_summary_text(summary));
}

const CommandRegistrar kShow{"topo", "show", [](CLI::App& topo) {
  auto args = std::make_shared<ShowArgs>();
  CLI::App* cmd = topo.add_subcommand(
      "show", "Summarize a machine: devices, links, GPU paths, bisection bandwidth");
  add_topology_options(*cmd, args->topo);
  cmd->add_flag("--json", args->json, "machine-readable output");
  cmd->callback([args] { run_show(*args); });
}};

}  // namespace
}  // namespace linksim::cli
