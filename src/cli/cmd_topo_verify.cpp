// SPDX-License-Identifier: Apache-2.0
// `linksim topo verify FILE --against TOPO_M.txt [--host N]`: the claim's matrix against a real
// `nvidia-smi topo -m`, cell by cell. Exit 0 match, 1 mismatch, 2 bad input.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/cli_common.hpp"
#include "cli/command_table.hpp"
#include "linksim/routing.hpp"
#include "linksim/sysimport.hpp"

namespace linksim::cli {
namespace {

struct VerifyArgs {
  TopoArgs topo;
  std::string against;
  int host = 0;
};

void run_verify(const VerifyArgs& args) {
  const SmiMatrix real = read_nvidia_smi_topo(args.against);
  const Topology topology = load_topology_arg(args.topo);
  check_host_arg(topology, args.host);
  const Router router(topology);
  const VerifyReport report = compare_matrices(implied_matrix(router, args.host), real);
  fmt::print("verify {} (host {}) against {}\n", args.topo.file, args.host, args.against);
  fmt::print("{}", report.text());
  if (!report.match()) throw ExitStatus{kExitFindings};
}

const CommandRegistrar kVerify{"topo", "verify", [](CLI::App& topo) {
  auto args = std::make_shared<VerifyArgs>();
  CLI::App* cmd = topo.add_subcommand(
      "verify", "Compare the matrix a topology implies with a real `nvidia-smi topo -m`");
  add_topology_options(*cmd, args->topo);
  cmd->add_option("--against", args->against, "saved `nvidia-smi topo -m` output")->required();
  cmd->add_option("--host", args->host, "which server of the topology (default 0)");
  cmd->callback([args] { run_verify(*args); });
}};

}  // namespace
}  // namespace linksim::cli
