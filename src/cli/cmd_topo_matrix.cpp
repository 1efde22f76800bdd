// SPDX-License-Identifier: Apache-2.0
// `linksim topo matrix FILE [--set k=v]... [--host N] [--json]`: the `nvidia-smi topo -m`
// matrix the topology implies for one server, tab-separated as nvidia-smi prints it, then its
// GPU-to-GPU route bandwidth in GB/s; or both as one JSON object.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>

#include "cli/cli_common.hpp"
#include "cli/command_table.hpp"
#include "linksim/routing.hpp"
#include "linksim/topo_matrix.hpp"
#include "linksim/topo_matrix_report.hpp"

namespace linksim::cli {
namespace {

struct MatrixArgs {
  TopoArgs topo;
  int host = 0;
  bool json = false;
};

void run_matrix(const MatrixArgs& args) {
  const Topology topology = load_topology_arg(args.topo);
  check_host_arg(topology, args.host);
  const Router router(topology);
  const TopoMatrix matrix = topo_matrix(router, args.host);
  const auto bandwidth = gpu_bandwidth_matrix_GBps(router, args.host);
  if (args.json) {
    fmt::print("{}", render_topo_matrix_json(topology.name(), args.host, matrix, bandwidth));
    return;
  }
  fmt::print("{}", render_topo_matrix(matrix));
  if (bandwidth.size() > 1) {
    fmt::print("\nGPU-to-GPU route bandwidth (GB/s per direction):\n\n{}",
               render_bandwidth_matrix(bandwidth));
  }
}

const CommandRegistrar kMatrix{"topo", "matrix", [](CLI::App& topo) {
  auto args = std::make_shared<MatrixArgs>();
  CLI::App* cmd = topo.add_subcommand(
      "matrix", "Print the nvidia-smi topo -m matrix and GPU-to-GPU bandwidth of one server");
  add_topology_options(*cmd, args->topo);
  cmd->add_option("--host", args->host, "which server, 0-based (default 0)");
  cmd->add_flag("--json", args->json, "Print the matrix and the bandwidths as one JSON object");
  cmd->callback([args] { run_matrix(*args); });
}};

}  // namespace
}  // namespace linksim::cli
