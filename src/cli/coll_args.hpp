// SPDX-License-Identifier: Apache-2.0
// The flags `coll` and `explain coll` share: the shared machine and NCCL-switch groups
// (cli/comm_flags.hpp) and the sweep's (-b, -e, -d, --algo, ...), parsed into library requests.
#pragma once

#include <string>
#include <vector>

#include "cli/comm_flags.hpp"
#include "linksim/collectives.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/topology.hpp"

namespace CLI {
class App;
}

namespace linksim::cli {

/// The flags as typed: the shared machine and NCCL-switch groups, then the sweep's.
struct CollArgs : MachineFlags, CommFlags {
  std::string min_size, max_size, size;
  double factor = 2;
  std::string step_size;              ///< -i: the sweep's increment with -f 1
  double max_rows = kMaxSweepRows;    ///< --max-rows: a longer sweep is refused
  std::string algo = "auto", proto = "auto", dtype = "float", redop = "sum";
  std::string sim;   ///< --sim analytic|flow (SimMode); empty = analytic
  std::string mode;  ///< --mode, coll's older spelling of --sim
  int root = 0;
  bool json = false, csv = false;
  std::string format = "text";
  bool nccl_debug = false;  ///< coll --nccl-debug: NCCL's INFO log of the run on stderr
};

/// The machine group with --topo repeatable (cli/comm_flags.hpp).
/// REQUIRES: `a` outlives the parse (keep it in a shared_ptr captured by the callback).
void add_machine_options(CLI::App& command, CollArgs& a);
/// The NCCL-switch group (cli/comm_flags.hpp) and the collective's own: -d, -o, -r, --algo,
/// --proto.
void add_nccl_options(CLI::App& command, CollArgs& a);

/// A size flag's value in bytes; ConfigError "<flag>: expected a size such as ..." otherwise.
double size_arg(const std::string& text, const char* flag);

/// The communicator's set-up from the NCCL-switch group and --calibration.
CommOptions comm_options(const CollArgs& a);

/// The sweep the flags ask for: type, reduction, root, algorithm, protocol, mode and sizes
/// (--size, or -b/-e/-f). Throws ConfigError naming the flag.
SweepRequest sweep_request(CollectiveOp op, const CollArgs& a);

/// The request without sizes: type, reduction, root, algorithm, protocol and mode.
SweepRequest sweep_options(CollectiveOp op, const CollArgs& a);

/// Loads `topo_file` with the --set overrides. Throws ConfigError on a bad file or --set.
Topology load_coll_topology(const CollArgs& a, const std::string& topo_file);

}  // namespace linksim::cli
