// SPDX-License-Identifier: Apache-2.0
// The flag groups every predicting command shares (coll, plan, explain, coll compare,
// calibrate, and serve): the machine (--topo, --set, --calibration, --degrade, -g, --gpus,
// --per-node)
// and NCCL's switches (--p2p, --p2p-level, --ib-hca, --nvls, --nccl-version, --channels,
// --gpus-per-thread), registered once and parsed into library requests once.
#pragma once

#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/topology.hpp"

namespace CLI {
class App;
}

namespace linksim::cli {

/// The machine flags as typed.
struct MachineFlags {
  std::vector<std::string> topos;  ///< --topo, once per machine
  std::vector<std::string> sets;   ///< --set name=value, the last of a name wins
  std::vector<std::string> degrade;  ///< --degrade SPEC (docs/cli.md#degrade)
  std::string calibration;         ///< --calibration PROFILE (docs/calibration.md)
  GpuSelection gpus;               ///< -g, --gpus, --per-node
};

/// How many --topo a command takes: one, or several to compare machines side by side.
enum class TopoCount { kOne, kSeveral };

/// --topo (required), --set, --calibration, --degrade, -g, --gpus, --per-node.
/// REQUIRES: `flags` outlives the parse (keep it in a shared_ptr captured by the callback).
void add_machine_flags(CLI::App& command, MachineFlags& flags, TopoCount count);

/// The one --topo of a command that takes one. Throws ConfigError "--topo: expected one
/// topology, got N".
const std::string& single_topo(const MachineFlags& flags);

/// Loads `topo_file` with the --set overrides and the --degrade faults. Throws ConfigError on a
/// bad file, --set or --degrade.
Topology load_machine(const MachineFlags& flags, const std::string& topo_file);

/// NCCL's switches as typed.
struct CommFlags {
  std::string p2p = "on", nvls = "on";
  std::string p2p_level;     ///< NCCL_P2P_LEVEL; empty = NCCL's default for the CPU
  std::string ib_hca;        ///< NCCL_IB_HCA; empty = every NIC
  std::string net_gdr_level; ///< NCCL_NET_GDR_LEVEL; empty = NCCL's default (PXB)
  std::string net = "ib";    ///< ib | socket (NCCL_NET=Socket, NCCL_IB_DISABLE=1)
  std::string nccl_version;  ///< X.Y; empty = kDefaultNcclVersion
  int channels = 0;          ///< NCCL_MIN/MAX_NCHANNELS; 0 = as NCCL chooses
  int gpus_per_thread = 1;   ///< nccl-tests' -g: GPUs one thread drives
};

/// --p2p, --p2p-level, --ib-hca, --net-gdr-level, --net, --nvls, --nccl-version, --channels,
/// --gpus-per-thread.
/// REQUIRES: `flags` outlives the parse.
void add_comm_flags(CLI::App& command, CommFlags& flags);

/// The communicator's set-up: the switches, and the calibration profile at
/// `calibration_profile` (none when empty). Throws ConfigError naming the flag.
CommOptions comm_options(const CommFlags& flags, const std::string& calibration_profile);

/// An on/off switch's value (on, 1, true / off, 0, false); ConfigError "<flag>: expected on or
/// off, got ..." otherwise.
bool on_off(const std::string& text, const char* flag);

/// "a|b|c" for --help, from a library table of names.
std::string choice_list(const std::vector<std::string>& names);

}  // namespace linksim::cli
