// SPDX-License-Identifier: Apache-2.0
// `linksim topo lint FILE [--json]`: what a buyer should ask the vendor, in NCCL's terms.
// Exit 0 clean, 1 with warnings, 2 bad input.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "cli/cli_common.hpp"
#include "cli/command_table.hpp"
#include "linksim/routing.hpp"
#include "linksim/sysimport.hpp"

namespace linksim::cli {
namespace {

struct LintArgs {
  TopoArgs topo;
  int host = 0;
  bool json = false;
};

void print_json(const std::string& file, const std::vector<LintWarning>& warnings) {
  nlohmann::json out;
  out["file"] = file;
  out["warnings"] = nlohmann::json::array();
  for (const LintWarning& w : warnings) {
    out["warnings"].push_back({{"rule", w.rule}, {"devices", w.devices}, {"message", w.message}});
  }
  fmt::print("{}\n", out.dump(2));
}

void run_lint(const LintArgs& args) {
  const Topology topology = load_topology_arg(args.topo);
  check_host_arg(topology, args.host);
  const Router router(topology);
  const std::vector<LintWarning> warnings = lint_topology(router, args.host);
  if (args.json) {
    print_json(args.topo.file, warnings);
  } else {
    for (const LintWarning& w : warnings) {
      fmt::print("{}: warning: {} [{}]\n", args.topo.file, w.message, w.rule);
    }
    if (warnings.empty()) fmt::print("{}: clean\n", args.topo.file);
  }
  if (!warnings.empty()) throw ExitStatus{kExitFindings};
}

const CommandRegistrar kLint{"topo", "lint", [](CLI::App& topo) {
  auto args = std::make_shared<LintArgs>();
  CLI::App* cmd = topo.add_subcommand("lint", "Warn about what NCCL will make of a machine");
  add_topology_options(*cmd, args->topo);
  cmd->add_option("--host", args->host, "which server (default 0)");
  cmd->add_flag("--json", args->json, "machine-readable output");
  cmd->callback([args] { run_lint(*args); });
}};

}  // namespace
}  // namespace linksim::cli
