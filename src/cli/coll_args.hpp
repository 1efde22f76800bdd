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
  std::vector<std::string> degrade;  ///< --degrade SPEC (docs/cli.md#degrade)
  std::string calibration;  ///< --calibration PROFILE (docs/calibration.md)
  GpuSelection gpus;
  std::string min_size, max_size, size;
  double factor = 2;
  std::string step_size;              ///< -i: the sweep's increment with -f 1
  double max_rows = kMaxSweepRows;    ///< --max-rows: a longer sweep is refused
  std::string algo = "auto", proto = "auto", mode = "analytic", dtype = "float", redop = "sum";
  int root = 0;
  std::string p2p = "on", nvls = "on";
  std::string p2p_level;  ///< --p2p-level: NCCL_P2P_LEVEL; empty = NCCL's default for the CPU
  std::string ib_hca;     ///< --ib-hca: NCCL_IB_HCA; empty = every NIC
  std::string nccl_version;  ///< --nccl-version X.Y; empty = kDefaultNcclVersion
  int channels = 0;
  int gpus_per_thread = 1;
  bool json = false, csv = false;
  std::string format = "text";
  bool nccl_debug = false;  ///< coll --nccl-debug: NCCL's INFO log of the run on stderr
};

/// --topo (repeatable), --set, --calibration, -g, --gpus, --per-node.
/// REQUIRES: `a` outlives the parse (keep it in a shared_ptr captured by the callback).
void add_machine_options(CLI::App& command, CollArgs& a);
/// -d, -o, -r, --algo, --proto, --p2p, --p2p-level, --ib-hca, --nvls, --channels,
/// --gpus-per-thread.
void add_nccl_options(CLI::App& command, CollArgs& a);

/// A size flag's value in bytes; ConfigError "<flag>: expected a size such as ..." otherwise.
double size_arg(const std::string& text, const char* flag);

/// An on/off switch's value (on, 1, true / off, 0, false); ConfigError "<flag>: expected on or
/// off, got ..." otherwise.
bool on_off(const std::string& text, const char* flag);

/// --nccl-version's value; ConfigError "--nccl-version: expected ..." when ill-formed or
/// unknown. Empty text is the default release.
NcclVersion nccl_version_arg(const std::string& text);

/// The communicator's switches (--p2p, --p2p-level, --ib-hca, --nvls, --channels,
/// --gpus-per-thread, --nccl-version).
CommOptions comm_options(const CollArgs& a);

/// --p2p-level's value (NCCL_P2P_LEVEL) and --ib-hca's (NCCL_IB_HCA) into `options`; empty
/// texts leave NCCL's defaults. ConfigError "<flag>: expected ..., got ..." otherwise. Shared
/// with `plan`.
void apply_nccl_path_flags(const std::string& p2p_level, const std::string& ib_hca,
                           CommOptions& options);

/// The sweep the flags ask for: type, reduction, root, algorithm, protocol, mode and sizes
/// (--size, or -b/-e/-f). Throws ConfigError naming the flag.
SweepRequest sweep_request(CollectiveOp op, const CollArgs& a);

/// The request without sizes: type, reduction, root, algorithm, protocol and mode.
SweepRequest sweep_options(CollectiveOp op, const CollArgs& a);

/// Loads `topo_file` with the --set overrides. Throws ConfigError on a bad file or --set.
Topology load_coll_topology(const CollArgs& a, const std::string& topo_file);

}  // namespace linksim::cli
