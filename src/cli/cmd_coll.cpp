// SPDX-License-Identifier: Apache-2.0
// `linksim coll OP`: predicts a collective over a size sweep, printed as nccl-tests does.
#include <CLI/CLI.hpp>
#include <cmath>
#include <fmt/core.h>
#include <memory>

#include "cli/command_table.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/report.hpp"
#include "linksim/topology_yaml.hpp"
#include "linksim/units.hpp"

namespace linksim::cli {
namespace {

struct DataType {
  std::string_view flag;
  std::string_view nccl_name;  // as nccl-tests' type column prints it
  int bytes;
};
constexpr DataType kDataTypes[] = {
    {"fp32", "float", 4},  {"float", "float", 4},     {"bf16", "bfloat16", 2},
    {"fp16", "half", 2},   {"half", "half", 2},       {"fp64", "double", 8},
    {"double", "double", 8}, {"int8", "int8", 1},     {"uint8", "uint8", 1},
    {"int32", "int32", 4}, {"int64", "int64", 8},     {"fp8", "f8e4m3", 1}};

struct CollArgs {
  std::vector<std::string> topos;
  std::vector<std::string> sets;
  GpuSelection gpus;
  std::string min_size, max_size, size;
  double factor = 2;
  std::string algo = "auto", proto = "auto", mode = "analytic", dtype = "fp32";
  std::string p2p = "on", nvls = "on";
  int channels = 0;
  int gpus_per_thread = 1;
  bool json = false, csv = false;
};

double size_arg(const std::string& text, const char* flag) {
  auto v = parse_size_bytes(text);
  if (!v) {
    throw ConfigError(fmt::format("{}: expected a size such as 8, 64K, 1M or 8G, got \"{}\"",
                                  flag, text));
  }
  return *v;
}

std::vector<double> sweep(const CollArgs& a) {
  if (!a.size.empty()) {
    if (!a.min_size.empty() || !a.max_size.empty()) {
      throw ConfigError("give either --size or -b/-e, not both");
    }
    return {size_arg(a.size, "--size")};
  }
  if (a.min_size.empty() || a.max_size.empty()) {
    throw ConfigError("give a message size: --size S, or a sweep -b MIN -e MAX [-f FACTOR]");
  }
  const double lo = size_arg(a.min_size, "-b"), hi = size_arg(a.max_size, "-e");
  if (lo > hi) throw ConfigError(fmt::format("-b ({}) is larger than -e ({})", a.min_size, a.max_size));
  if (!(a.factor > 1) && lo != hi) throw ConfigError(fmt::format("-f: expected a factor > 1, got {}", a.factor));
  std::vector<double> sizes;
  for (double s = lo; s <= hi; s *= a.factor) {
    sizes.push_back(s);
    if (s == 0) break;
  }
  return sizes;
}

template <typename T>
T parse_choice(std::optional<T> v, const std::string& text, const char* flag, const char* choices) {
  if (!v) throw ConfigError(fmt::format("{}: expected one of {}, got \"{}\"", flag, choices, text));
  return *v;
}

bool on_off(const std::string& text, const char* flag) {
  if (text == "on" || text == "1" || text == "true") return true;
  if (text == "off" || text == "0" || text == "false") return false;
  throw ConfigError(fmt::format("{}: expected on or off, got \"{}\"", flag, text));
}

const DataType& data_type(const std::string& text) {
  for (const DataType& t : kDataTypes) {
    if (t.flag == text) return t;
  }
  throw ConfigError(fmt::format("--dtype: expected one of fp32, bf16, fp16, fp64, int8, uint8, "
                                "int32, int64, fp8, got \"{}\"",
                                text));
}

// nccl-tests' size column counts every rank's block for these; its count column one block.
bool sized_per_block(CollectiveOp op) {
  return op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter ||
         op == CollectiveOp::kAllToAll;
}

CollectiveReport predict(CollectiveOp op, const CollArgs& a, const std::string& topo_file) {
  ParamOverrides overrides;
  for (const std::string& s : a.sets) overrides.insert(parse_override(s));
  Topology topology = load_topology(topo_file, overrides);
  CommOptions options;
  options.p2p_disable = !on_off(a.p2p, "--p2p");
  options.nvls_enable = on_off(a.nvls, "--nvls");
  options.channels = a.channels;
  options.gpus_per_thread = a.gpus_per_thread;
  const DataType& type = data_type(a.dtype);
  CollectiveQuery query;
  query.op = op;
  query.algorithm = parse_choice(parse_algorithm(a.algo), a.algo, "--algo",
                                 "auto, ring, tree, nvls, nvls_tree, direct");
  query.protocol = parse_choice(parse_protocol(a.proto), a.proto, "--proto", "auto, ll, ll128, simple");
  query.mode = parse_choice(parse_sim_mode(a.mode), a.mode, "--mode", "flow, analytic");
  const std::vector<double> sizes = sweep(a);
  Communicator comm(topology, select_gpus(topology, a.gpus), options);

  CollectiveReport report;
  report.topology = topology.name();
  report.collective = std::string(to_string(op));
  report.ranks = comm.rank_count();
  report.mode = std::string(to_string(query.mode));
  const bool rooted = op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce;
  const bool reduces = op == CollectiveOp::kAllReduce || op == CollectiveOp::kReduceScatter ||
                       op == CollectiveOp::kReduce || op == CollectiveOp::kSendRecv;
  for (double requested : sizes) {
    const int blocks = sized_per_block(op) ? comm.rank_count() : 1;
    const double count = std::floor(requested / type.bytes / blocks);
    query.size_bytes = count * type.bytes * blocks;
    CollectiveResult r = comm.run(query);
    CollectiveRow row;
    row.size_bytes = query.size_bytes;
    row.count = count;
    row.type = std::string(type.nccl_name);
    row.redop = reduces ? "sum" : "none";
    row.root = rooted ? query.root : -1;
    row.time_s = r.time_s;
    row.algbw_Bps = r.algbw_Bps;
    row.busbw_Bps = r.busbw_Bps;
    row.algorithm = std::string(to_string(r.algorithm));
    row.protocol = std::string(to_string(r.protocol));
    row.bottleneck = r.bottleneck;
    report.rows.push_back(row);
  }
  return report;
}

void run(CollectiveOp op, const CollArgs& a) {
  if (a.topos.size() > 1) {
    if (a.json || a.csv) throw ConfigError("--json and --csv take one --topo; got several");
    std::vector<CollectiveReport> reports;
    for (const std::string& file : a.topos) reports.push_back(predict(op, a, file));
    fmt::print("{}", render_side_by_side(reports));
    for (const CollectiveReport& r : reports) {
      fmt::print("# {}: {} ranks; at {}: {} {}, limited by {}\n", r.topology, r.ranks,
                 format_size(r.rows.back().size_bytes), r.rows.back().algorithm,
                 r.rows.back().protocol, r.rows.back().bottleneck);
    }
    return;
  }
  CollectiveReport report = predict(op, a, a.topos.front());
  if (a.json) fmt::print("{}", render_json(report));
  else if (a.csv) fmt::print("{}", render_csv(report));
  else fmt::print("{}", render_text(report));
}

void add_op(CLI::App& coll, CollectiveOp op, const std::string& help) {
  auto args = std::make_shared<CollArgs>();
  CLI::App* c = coll.add_subcommand(std::string(to_string(op)), help);
  c->add_option("--topo", args->topos,
                "Topology file (topologies/*.yaml); repeat to compare machines side by side")
      ->required()
      ->take_all();
  c->add_option("--set", args->sets, "Override a topology parameter, k=v (repeatable)")->take_all();
  c->add_option("-g", args->gpus.first_n, "Use the first N GPUs (server by server)");
  c->add_option("--gpus", args->gpus.list, "GPUs by nvidia-smi index: 0,3 or 4-7 or host1:gpu3");
  c->add_option("--per-node", args->gpus.per_node, "Use the first K GPUs of every server");
  c->add_option("-b,--minbytes", args->min_size, "Smallest size (K/M/G suffixes)");
  c->add_option("-e,--maxbytes", args->max_size, "Largest size (K/M/G suffixes)");
  c->add_option("-f,--stepfactor", args->factor, "Size multiplier of the sweep (default 2)");
  c->add_option("--size", args->size, "One size instead of a sweep");
  c->add_option("--algo", args->algo, "auto|ring|tree|nvls|nvls_tree|direct (NCCL_ALGO)");
  c->add_option("--proto", args->proto, "auto|ll|ll128|simple (NCCL_PROTO)");
  c->add_option("--mode", args->mode, "analytic (closed form) or flow (simulated)");
  c->add_option("--dtype", args->dtype, "fp32|bf16|fp16|fp64|int8|uint8|int32|int64|fp8");
  c->add_option("--p2p", args->p2p, "on|off; off = NCCL_P2P_DISABLE=1");
  c->add_option("--nvls", args->nvls, "on|off; off = NCCL_NVLS_ENABLE=0");
  c->add_option("--channels", args->channels, "Channel count (NCCL_MIN/MAX_NCHANNELS)");
  c->add_option("--gpus-per-thread", args->gpus_per_thread,
                "GPUs driven by one thread, as nccl-tests -g (launches serialize)");
  auto* json = c->add_flag("--json", args->json, "Print one JSON object");
  c->add_flag("--csv", args->csv, "Print CSV")->excludes(json);
  c->callback([op, args] { run(op, *args); });
}

const CommandRegistrar kColl{"", "coll", [](CLI::App& app) {
  CLI::App* coll = app.add_subcommand("coll", "Predict a collective, in nccl-tests' terms");
  coll->require_subcommand(1);
  add_op(*coll, CollectiveOp::kAllReduce, "AllReduce (all_reduce_perf)");
  add_op(*coll, CollectiveOp::kAllGather, "AllGather (all_gather_perf)");
  add_op(*coll, CollectiveOp::kReduceScatter, "ReduceScatter (reduce_scatter_perf)");
  add_op(*coll, CollectiveOp::kBroadcast, "Broadcast (broadcast_perf)");
  add_op(*coll, CollectiveOp::kReduce, "Reduce (reduce_perf)");
  add_op(*coll, CollectiveOp::kAllToAll, "AllToAll (alltoall_perf)");
  add_op(*coll, CollectiveOp::kSendRecv, "SendRecv (sendrecv_perf)");
}};

}  // namespace
}  // namespace linksim::cli
