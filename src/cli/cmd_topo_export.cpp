// SPDX-License-Identifier: Apache-2.0
// `linksim topo export nccl-xml FILE [--host N] [-o OUT]`: a topology as NCCL topology XML.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <fstream>

#include "cli/command_table.hpp"
#include "linksim/routing.hpp"
#include "linksim/sysimport.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim::cli {
namespace {

struct ExportArgs {
  std::string file;
  std::string output;
  int host = 0;
  std::vector<std::string> sets;
};

void run_export(const ExportArgs& args) {
  ParamOverrides overrides;
  for (const std::string& set : args.sets) overrides.insert(parse_override(set));
  const Topology topology = load_topology(args.file, overrides);
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
  cmd->add_option("file", args->file, "topology YAML")->required();
  cmd->add_option("-o,--output", args->output, "write the XML here (default: stdout)");
  cmd->add_option("--host", args->host, "which server (default 0)");
  cmd->add_option("--set", args->sets, "override a parameter: name=value");
  cmd->callback([args] { run_export(*args); });
}};

}  // namespace
}  // namespace linksim::cli
