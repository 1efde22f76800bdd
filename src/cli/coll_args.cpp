// SPDX-License-Identifier: Apache-2.0
// Flags shared by `coll` and `explain coll`.
#include "cli/coll_args.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include "cli/cli_common.hpp"
#include "common/text.hpp"
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

// An --algo / --proto value (linksim/nccl_lists.hpp), its error naming the flag.
template <typename T>
T algo_proto_arg(T (*read)(std::string_view, NcclLists&), const std::string& text,
                 NcclLists& lists, const char* flag) {
  try {
    return read(text, lists);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", flag, e.message()));
  }
}

}  // namespace

void add_machine_options(CLI::App& c, CollArgs& a) {
  add_machine_flags(c, a, TopoCount::kSeveral);
}

void add_nccl_options(CLI::App& c, CollArgs& a) {
  c.add_option("-d,--dtype", a.dtype,
               "Element type: " + choice_list(data_type_names()) + " (nccl-tests -d)");
  c.add_option("-o,--op", a.redop,
               "Reduction: " + choice_list(reduction_op_names()) + " (nccl-tests -o)");
  c.add_option("-r,--root", a.root, "Root rank of broadcast and reduce (nccl-tests -r)");
  c.add_option("--algo", a.algo,
               choice_list(algorithm_choices()) +
                   ", or an NCCL_ALGO list the tuner chooses within: ring,tree | ^nvls | "
                   "^nvls;allreduce:tree");
  c.add_option("--proto", a.proto,
               choice_list(protocol_choices()) +
                   ", or an NCCL_PROTO list the tuner chooses within: ^ll128 | ll,simple");
  add_comm_flags(c, a);
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

CommOptions comm_options(const CollArgs& a) {
  CommOptions options = comm_options(a, a.calibration);
  algo_proto_arg(&algorithm_or_list, a.algo, options.nccl_lists, "--algo");
  algo_proto_arg(&protocol_or_list, a.proto, options.nccl_lists, "--proto");
  return options;
}

SweepRequest sweep_options(CollectiveOp op, const CollArgs& a) {
  SweepRequest request;
  request.op = op;
  request.type = parse_choice(parse_data_type(a.dtype), a.dtype, "--dtype", data_type_choices());
  request.redop = parse_choice(parse_reduction_op(a.redop), a.redop, "--op",
                               text::join(reduction_op_names(), ", "));
  request.root = a.root;
  NcclLists lists;  // comm_options keeps them; read here for the single choices
  request.algorithm = algo_proto_arg(&algorithm_or_list, a.algo, lists, "--algo");
  request.protocol = algo_proto_arg(&protocol_or_list, a.proto, lists, "--proto");
  if (!a.sim.empty() && !a.mode.empty()) throw ConfigError("give --sim or --mode, not both");
  const std::string& sim = a.mode.empty() ? a.sim : a.mode;
  if (!sim.empty()) {
    request.mode = parse_choice(parse_sim_mode(sim), sim, a.mode.empty() ? "--sim" : "--mode",
                                text::join(sim_mode_choices(), ", "));
  }
  return request;
}

SweepRequest sweep_request(CollectiveOp op, const CollArgs& a) {
  SweepRequest request = sweep_options(op, a);
  request.sizes_bytes = requested_sizes(a);
  return request;
}

Topology load_coll_topology(const CollArgs& a, const std::string& topo_file) {
  return load_machine(a, topo_file);
}

}  // namespace linksim::cli
