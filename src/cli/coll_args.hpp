// SPDX-License-Identifier: Apache-2.0
// The flags `coll` and `explain coll` share: the machine (--topo, --set, GPU selection) and
// NCCL's switches (--algo, --proto, --p2p, ...), parsed into library requests.
#pragma once

#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/topology.hpp"

namespace CLI {
class App;
}

namespace linksim::cli {

/// The flags as typed.
struct CollArgs {
  std::vector<std::string> topos;
  std::vector<std::string> sets;
  std::string calibration;  ///< --calibration PROFILE (docs/calibration.md)
  GpuSelection gpus;
  std::string min_size, max_size, size;
  double factor = 2;
  std::string step_size;              ///< -i: the sweep's increment with -f 1
  double max_rows = kMaxSweepRows;    ///< --max-rows: a longer sweep is refused
  std::string algo = "auto", proto = "auto", mode = "analytic", dtype = "float", redop = "sum";
  int root = 0;
  std::string p2p = "on", nvls = "on";
  int channels = 0;
  int gpus_per_thread = 1;
  bool json = false, csv = false;
  std::string format = "text";
  bool nccl_debug = false;  ///< coll --nccl-debug: NCCL's INFO log of the run on stderr
};

/// --topo (repeatable), --set, --calibration, -g, --gpus, --per-node.
/// REQUIRES: `a` outlives the parse (keep it in a shared_ptr captured by the callback).
void add_machine_options(CLI::App& command, CollArgs& a);
/// -d, -o, -r, --algo, --proto, --p2p, --nvls, --channels, --gpus-per-thread.
void add_nccl_options(CLI::App& command, CollArgs& a);

/// A size flag's value in bytes; ConfigError "<flag>: expected a size such as ..." otherwise.
double size_arg(const std::string& text, const char* flag);

/// The communicator's switches (--p2p, --nvls, --channels, --gpus-per-thread).
CommOptions comm_options(const CollArgs& a);

/// The sweep the flags ask for: type, reduction, root, algorithm, protocol, mode and sizes
/// (--size, or -b/-e/-f). Throws ConfigError naming the flag.
SweepRequest sweep_request(CollectiveOp op, const CollArgs& a);

/// The request without sizes: type, reduction, root, algorithm, protocol and mode.
SweepRequest sweep_options(CollectiveOp op, const CollArgs& a);

/// Loads `topo_file` with the --set overrides. Throws ConfigError on a bad file or --set.
Topology load_coll_topology(const CollArgs& a, const std::string& topo_file);

}  // namespace linksim::cli
