// SPDX-License-Identifier: Apache-2.0
// `linksim topo export nccl-xml FILE [--host N] [-o OUT]`: a topology as NCCL topology XML.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <fstream>

#include "cli/cli_common.hpp"
#include "cli/command_table.hpp"
#include "linksim/routing.hpp"
#include "linksim/sysimport.hpp"

namespace linksim::cli {
namespace {

struct ExportArgs {
  TopoArgs topo;
  std::string output;
  int host = 0;
};

void run_export(const ExportArgs& args) {
  const Topology topology = load_topology_arg(args.topo);
  check_host_arg(topology, args.host);
  const Router router(topology);
  const std::string xml = export_nccl_xml(router, args.host);
  if (args.output.empty() || args.output == "-") {
    fmt::print("{}", xml);
    return;
  }
  std::ofstream out(args.output, std::ios::binary);
  if (!out || !(out << xml)) throw ConfigError({args.output, 0, 0}, "cannot write file");
}

const CommandRegistrar kExport{"topo", "export", [](CLI::App& topo) {
  CLI::App* exp = topo.add_subcommand("export", "Write a topology in another tool's format");
  exp->require_subcommand(1);
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = exp->add_subcommand("nccl-xml", "NCCL topology XML (NCCL_TOPO_FILE format)");
  add_topology_options(*cmd, args->topo);
  cmd->add_option("-o,--output", args->output, "write the XML here (default: stdout)");
  cmd->add_option("--host", args->host, "which server (default 0)");
  cmd->callback([args] { run_export(*args); });
}};

}  // namespace
}  // namespace linksim::cli
