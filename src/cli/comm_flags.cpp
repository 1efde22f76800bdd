// SPDX-License-Identifier: Apache-2.0
// The machine and NCCL-switch flag groups (cli/comm_flags.hpp).
#include "cli/comm_flags.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>
#include <optional>

#include <CLI/CLI.hpp>

#include "cli/cli_common.hpp"
#include "cli/degrade_arg.hpp"
#include "linksim/error.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim::cli {
namespace {

NcclVersion nccl_version_arg(const std::string& text) {
  if (text.empty()) return kDefaultNcclVersion;
  const std::optional<NcclVersion> v = parse_nccl_version(text);
  if (!v) {
    throw ConfigError(fmt::format("--nccl-version: expected a release X.Y from {} to {}, got \"{}\"",
                                  to_string(kOldestNcclVersion), to_string(kNewestNcclVersion),
                                  text));
  }
  return *v;
}

}  // namespace

bool on_off(const std::string& text, const char* flag) {
  if (text == "on" || text == "1" || text == "true") return true;
  if (text == "off" || text == "0" || text == "false") return false;
  throw ConfigError(fmt::format("{}: expected on or off, got \"{}\"", flag, text));
}

std::string choice_list(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, "|"));
}

void add_machine_flags(CLI::App& c, MachineFlags& flags, TopoCount count) {
  CLI::Option* topo = c.add_option(
      "--topo", flags.topos,
      count == TopoCount::kSeveral
          ? "Topology file (topologies/*.yaml); repeat to compare machines side by side"
          : "Topology file (topologies/*.yaml)");
  // One value per occurrence (main.cpp: one_value_per_occurrence), however many --topo.
  topo->required()->allow_extra_args(false);
  c.add_option("--set", flags.sets, "Override a topology parameter, k=v (repeatable; last wins)")
      ->allow_extra_args(false);
  add_calibration_option(c, flags.calibration);
  add_degrade_option(c, flags.degrade);
  c.add_option("-g", flags.gpus.first_n, "Use the first N GPUs (server by server)");
  c.add_option("--gpus", flags.gpus.list, "GPUs by nvidia-smi index: 0,3 or 4-7 or host1:gpu3");
  c.add_option("--per-node", flags.gpus.per_node, "Use the first K GPUs of every server");
}

const std::string& single_topo(const MachineFlags& flags) {
  if (flags.topos.size() != 1) {
    throw ConfigError(fmt::format("--topo: expected one topology, got {}", flags.topos.size()));
  }
  return flags.topos.front();
}

Topology load_machine(const MachineFlags& flags, const std::string& topo_file) {
  return apply_degrade(load_topology_arg({topo_file, flags.sets}), flags.degrade);
}

void add_comm_flags(CLI::App& c, CommFlags& flags) {
  c.add_option("--p2p", flags.p2p, "on|off; off = NCCL_P2P_DISABLE=1");
  c.add_option("--p2p-level", flags.p2p_level,
               "LOC|NVL|PIX|PXB|PHB|SYS (NCCL_P2P_LEVEL; default: NCCL's for the host CPU)");
  c.add_option("--ib-hca", flags.ib_hca,
               "NICs NCCL may use, NCCL_IB_HCA syntax: mlx5_0,mlx5_1 | ^mlx5_4 | =mlx5_0:1");
  c.add_option("--net-gdr-level", flags.net_gdr_level,
               "LOC|PIX|PXB|PHB|SYS (NCCL_NET_GDR_LEVEL: GPUDirect RDMA within it; LOC = never; "
               "default PXB)");
  c.add_option("--net", flags.net, "ib|socket; socket = NCCL's socket transport (NCCL_NET=Socket)");
  c.add_option("--nvls", flags.nvls, "on|off; off = NCCL_NVLS_ENABLE=0");
  c.add_option("--nccl-version", flags.nccl_version,
               fmt::format("NCCL release modelled, X.Y ({} to {}; default {})",
                           to_string(kOldestNcclVersion), to_string(kNewestNcclVersion),
                           to_string(kDefaultNcclVersion)));
  c.add_option("--channels", flags.channels, "Channel count (NCCL_MIN/MAX_NCHANNELS)")
      ->check(int_between(1, kMaxChannels, "a channel count (NCCL's MAXCHANNELS)"));
  c.add_option("--gpus-per-thread", flags.gpus_per_thread,
               "GPUs driven by one thread, as nccl-tests -g (launches serialize)")
      ->check(int_between(1, std::numeric_limits<int>::max(), "a GPU count"));
}

CommOptions comm_options(const CommFlags& flags, const std::string& calibration_profile) {
  CommOptions options;
  options.nccl_version = nccl_version_arg(flags.nccl_version);
  options.p2p_disable = !on_off(flags.p2p, "--p2p");
  if (!flags.p2p_level.empty()) {
    const std::optional<PathClass> level = parse_p2p_level(flags.p2p_level);
    if (!level) {
      throw ConfigError(fmt::format("--p2p-level: expected one of LOC, NVL, PIX, PXB, PHB, SYS "
                                    "(or NCCL's old 0-5), got \"{}\"",
                                    flags.p2p_level));
    }
    options.p2p_level = *level;
  }
  if (!flags.ib_hca.empty()) {
    try {
      options.ib_hca = parse_ib_hca(flags.ib_hca);
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("--ib-hca: {}", e.message()));
    }
  }
  if (!flags.net_gdr_level.empty()) {
    const std::optional<PathClass> level = parse_p2p_level(flags.net_gdr_level);
    if (!level) {
      throw ConfigError(fmt::format("--net-gdr-level: expected one of LOC, PIX, PXB, PHB, SYS (or "
                                    "NCCL's old 0-5), got \"{}\"",
                                    flags.net_gdr_level));
    }
    options.net_gdr_level = *level;
  }
  if (flags.net == "socket" || flags.net == "Socket") {
    options.net_socket = true;
  } else if (flags.net != "ib" && flags.net != "IB") {
    throw ConfigError(fmt::format("--net: expected ib or socket, got \"{}\"", flags.net));
  }
  options.nvls_enable = on_off(flags.nvls, "--nvls");
  options.channels = flags.channels;
  options.gpus_per_thread = flags.gpus_per_thread;
  options.calibration = calibration_arg(calibration_profile);
  return options;
}

}  // namespace linksim::cli
