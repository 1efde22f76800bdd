// SPDX-License-Identifier: Apache-2.0
// Flags shared by `coll` and `explain coll`.
#include "cli/coll_args.hpp"

#include <fmt/core.h>

#include <limits>

#include <CLI/CLI.hpp>

#include "cli/cli_common.hpp"
#include "cli/degrade_arg.hpp"
#include "linksim/error.hpp"
#include "linksim/units.hpp"

namespace linksim::cli {
namespace {

std::vector<double> requested_sizes(const CollArgs& a) {
  if (!a.size.empty()) {
    if (!a.min_size.empty() || !a.max_size.empty()) {
      throw ConfigError("give either --size or -b/-e, not both");
    }
    return {size_arg(a.size, "--size")};
  }
  if (a.min_size.empty() || a.max_size.empty()) {
    throw ConfigError("give a message size: --size S, or a sweep -b MIN -e MAX [-f FACTOR]");
  }
  SweepSpec spec;
  spec.min_bytes = size_arg(a.min_size, "-b");
  spec.max_bytes = size_arg(a.max_size, "-e");
  spec.factor = a.factor;
  if (!a.step_size.empty()) spec.step_bytes = size_arg(a.step_size, "-i");
  spec.max_rows = a.max_rows;
  return sweep_sizes(spec);
}

template <typename T>
T parse_choice(std::optional<T> v, const std::string& text, const char* flag,
               const std::string& choices) {
  if (!v) throw ConfigError(fmt::format("{}: expected one of {}, got \"{}\"", flag, choices, text));
  return *v;
}

}  // namespace

bool on_off(const std::string& text, const char* flag) {
  if (text == "on" || text == "1" || text == "true") return true;
  if (text == "off" || text == "0" || text == "false") return false;
  throw ConfigError(fmt::format("{}: expected on or off, got \"{}\"", flag, text));
}

void add_machine_options(CLI::App& c, CollArgs& a) {
  c.add_option("--topo", a.topos,
               "Topology file (topologies/*.yaml); repeat to compare machines side by side")
      ->required()
      ->take_all();
  c.add_option("--set", a.sets, "Override a topology parameter, k=v (repeatable; last wins)")
      ->take_all();
  add_calibration_option(c, a.calibration);
  add_degrade_option(c, a.degrade);
  c.add_option("-g", a.gpus.first_n, "Use the first N GPUs (server by server)");
  c.add_option("--gpus", a.gpus.list, "GPUs by nvidia-smi index: 0,3 or 4-7 or host1:gpu3");
  c.add_option("--per-node", a.gpus.per_node, "Use the first K GPUs of every server");
}

void add_nccl_options(CLI::App& c, CollArgs& a) {
  c.add_option("-d,--dtype", a.dtype,
               "Element type, nccl-tests' names (float, half, bfloat16, double, int8, ..., "
               "f8e4m3) or fp32|fp16|bf16|fp64|fp8");
  c.add_option("-o,--op", a.redop, "Reduction: sum|prod|max|min|avg (nccl-tests -o)");
  c.add_option("-r,--root", a.root, "Root rank of broadcast and reduce (nccl-tests -r)");
  c.add_option("--algo", a.algo, "auto|ring|tree|nvls|nvls_tree|direct (NCCL_ALGO)");
  c.add_option("--proto", a.proto, "auto|ll|ll128|simple (NCCL_PROTO)");
  c.add_option("--p2p", a.p2p, "on|off; off = NCCL_P2P_DISABLE=1");
  c.add_option("--p2p-level", a.p2p_level,
               "LOC|NVL|PIX|PXB|PHB|SYS (NCCL_P2P_LEVEL; default: NCCL's for the host CPU)");
  c.add_option("--ib-hca", a.ib_hca,
               "NICs NCCL may use, NCCL_IB_HCA syntax: mlx5_0,mlx5_1 | ^mlx5_4 | =mlx5_0:1");
  c.add_option("--nvls", a.nvls, "on|off; off = NCCL_NVLS_ENABLE=0");
  c.add_option("--nccl-version", a.nccl_version,
               fmt::format("NCCL release modelled, X.Y ({} to {}; default {})",
                           to_string(kOldestNcclVersion), to_string(kNewestNcclVersion),
                           to_string(kDefaultNcclVersion)));
  c.add_option("--channels", a.channels, "Channel count (NCCL_MIN/MAX_NCHANNELS)")
      ->check(int_between(1, kMaxChannels, "a channel count (NCCL's MAXCHANNELS)"));
  c.add_option("--gpus-per-thread", a.gpus_per_thread,
               "GPUs driven by one thread, as nccl-tests -g (launches serialize)")
      ->check(int_between(1, std::numeric_limits<int>::max(), "a GPU count"));
}

double size_arg(const std::string& text, const char* flag) {
  auto v = parse_size_bytes(text);
  if (!v) {
    throw ConfigError(
        fmt::format("{}: expected a size such as 8, 64K, 1M or 8G, got \"{}\"", flag, text));
  }
  if (*v > kMaxSizeBytes) {
    throw ConfigError(fmt::format("{}: expected a size of at most 8 PiB (2^53 bytes), got \"{}\"",
                                  flag, text));
  }
  return *v;
}

void apply_nccl_path_flags(const std::string& p2p_level, const std::string& ib_hca,
                           CommOptions& options) {
  if (!p2p_level.empty()) {
    options.p2p_level = parse_choice(parse_p2p_level(p2p_level), p2p_level, "--p2p-level",
                                     "LOC, NVL, PIX, PXB, PHB, SYS (or NCCL's old 0-5)");
  }
  if (!ib_hca.empty()) {
    try {
      options.ib_hca = parse_ib_hca(ib_hca);
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("--ib-hca: {}", e.message()));
    }
  }
}

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

CommOptions comm_options(const CollArgs& a) {
  CommOptions options;
  options.nccl_version = nccl_version_arg(a.nccl_version);
  options.p2p_disable = !on_off(a.p2p, "--p2p");
  apply_nccl_path_flags(a.p2p_level, a.ib_hca, options);
  options.nvls_enable = on_off(a.nvls, "--nvls");
  options.channels = a.channels;
  options.gpus_per_thread = a.gpus_per_thread;
  return options;
}

SweepRequest sweep_options(CollectiveOp op, const CollArgs& a) {
  SweepRequest request;
  request.op = op;
  request.type = parse_choice(parse_data_type(a.dtype), a.dtype, "--dtype", data_type_choices());
  request.redop =
      parse_choice(parse_reduction_op(a.redop), a.redop, "--op", "sum, prod, max, min, avg");
  request.root = a.root;
  request.algorithm = parse_choice(parse_algorithm(a.algo), a.algo, "--algo",
                                   "auto, ring, tree, nvls, nvls_tree, direct");
  request.protocol =
      parse_choice(parse_protocol(a.proto), a.proto, "--proto", "auto, ll, ll128, simple");
  request.mode = parse_choice(parse_sim_mode(a.mode), a.mode, "--mode", "flow, analytic");
  return request;
}

SweepRequest sweep_request(CollectiveOp op, const CollArgs& a) {
  SweepRequest request = sweep_options(op, a);
  request.sizes_bytes = requested_sizes(a);
  return request;
}

Topology load_coll_topology(const CollArgs& a, const std::string& topo_file) {
  Topology topology = load_topology_arg({topo_file, a.sets});
  attach_calibration(topology, a.calibration);
  return apply_degrade(std::move(topology), a.degrade);
}

}  // namespace linksim::cli
