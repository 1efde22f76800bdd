// SPDX-License-Identifier: Apache-2.0
// `linksim coll OP`: parses nccl-tests-style flags, runs the library's sweep (run_sweep) and
// prints it with the chosen renderer.
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <limits>
#include <memory>

#include "cli/cli_common.hpp"
#include "cli/command_table.hpp"
#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/report.hpp"
#include "linksim/units.hpp"

namespace linksim::cli {
namespace {

struct CollArgs {
  std::vector<std::string> topos;
  std::vector<std::string> sets;
  GpuSelection gpus;
  std::string min_size, max_size, size;
  double factor = 2;
  std::string step_size;
  double max_rows = kMaxSweepRows;
  std::string algo = "auto", proto = "auto", mode = "analytic", dtype = "float", redop = "sum";
  int root = 0;
  std::string p2p = "on", nvls = "on";
  int channels = 0;
  int gpus_per_thread = 1;
  bool json = false, csv = false;
  std::string format = "text";
};

enum class Format { kText, kJson, kCsv, kNcclTests };

Format output_format(const CollArgs& a) {
  if (a.json || a.csv) {
    if (a.format != "text") throw ConfigError("give --format or --json/--csv, not both");
    return a.json ? Format::kJson : Format::kCsv;
  }
  if (a.format == "text") return Format::kText;
  if (a.format == "json") return Format::kJson;
  if (a.format == "csv") return Format::kCsv;
  if (a.format == "nccl-tests") return Format::kNcclTests;
  throw ConfigError(fmt::format(
      "--format: expected one of text, json, csv, nccl-tests, got \"{}\"", a.format));
}

double size_arg(const std::string& text, const char* flag) {
  auto v = parse_size_bytes(text);
  if (!v) {
    throw ConfigError(fmt::format("{}: expected a size such as 8, 64K, 1M or 8G, got \"{}\"",
                                  flag, text));
  }
  if (*v > kMaxSizeBytes) {
    throw ConfigError(fmt::format("{}: expected a size of at most 8 PiB (2^53 bytes), got \"{}\"",
                                  flag, text));
  }
  return *v;
}

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

bool on_off(const std::string& text, const char* flag) {
  if (text == "on" || text == "1" || text == "true") return true;
  if (text == "off" || text == "0" || text == "false") return false;
  throw ConfigError(fmt::format("{}: expected on or off, got \"{}\"", flag, text));
}

CommOptions comm_options(const CollArgs& a) {
  CommOptions options;
  options.p2p_disable = !on_off(a.p2p, "--p2p");
  options.nvls_enable = on_off(a.nvls, "--nvls");
  options.channels = a.channels;
  options.gpus_per_thread = a.gpus_per_thread;
  return options;
}

SweepRequest sweep_request(CollectiveOp op, const CollArgs& a) {
  SweepRequest request;
  request.op = op;
  request.type = parse_choice(parse_data_type(a.dtype), a.dtype, "--dtype", data_type_choices());
  request.redop = parse_choice(parse_reduction_op(a.redop), a.redop, "--op",
                               "sum, prod, max, min, avg");
  request.root = a.root;
  request.algorithm = parse_choice(parse_algorithm(a.algo), a.algo, "--algo",
                                   "auto, ring, tree, nvls, nvls_tree, direct");
  request.protocol =
      parse_choice(parse_protocol(a.proto), a.proto, "--proto", "auto, ll, ll128, simple");
  request.mode = parse_choice(parse_sim_mode(a.mode), a.mode, "--mode", "flow, analytic");
  request.sizes_bytes = requested_sizes(a);
  return request;
}

struct Prediction {
  CollectiveReport report;
  NcclTestsPreamble preamble;
};

Prediction predict(CollectiveOp op, const CollArgs& a, const std::string& topo_file) {
  const Topology topology = load_topology_arg({topo_file, a.sets});
  const CommOptions options = comm_options(a);
  const SweepRequest request = sweep_request(op, a);
  const Communicator comm(topology, select_gpus(topology, a.gpus), options);
  Prediction p{to_collective_report(run_sweep(comm, request), topology), {}};
  p.preamble.min_bytes = request.sizes_bytes.front();
  p.preamble.max_bytes = a.size.empty() ? size_arg(a.max_size, "-e") : request.sizes_bytes.back();
  p.preamble.step_factor = a.factor;
  if (!a.step_size.empty()) p.preamble.step_bytes = size_arg(a.step_size, "-i");
  p.preamble.gpus_per_thread = a.gpus_per_thread;
  p.preamble.devices = nccl_tests_devices(topology, comm.ranks());
  return p;
}

void run(CollectiveOp op, const CollArgs& a) {
  const Format format = output_format(a);
  if (a.topos.size() > 1) {
    if (format != Format::kText) {
      throw ConfigError("--json, --csv and --format take one --topo; got several");
    }
    std::vector<CollectiveReport> reports;
    for (const std::string& file : a.topos) reports.push_back(predict(op, a, file).report);
    fmt::print("{}", render_comparison(reports));
    return;
  }
  const Prediction p = predict(op, a, a.topos.front());
  switch (format) {
    case Format::kText: fmt::print("{}", render_text(p.report)); break;
    case Format::kJson: fmt::print("{}", render_json(p.report)); break;
    case Format::kCsv: fmt::print("{}", render_csv(p.report)); break;
    case Format::kNcclTests: fmt::print("{}", render_nccl_tests(p.report, p.preamble)); break;
  }
}

void add_op(CLI::App& coll, const CollectiveName& name) {
  auto args = std::make_shared<CollArgs>();
  CLI::App* c = coll.add_subcommand(
      std::string(name.name), fmt::format("{} ({}_perf)", name.title, name.nccl_tests_name));
  // nccl-tests' spellings: all_reduce, and all-reduce for those who type dashes.
  if (name.nccl_tests_name != name.name) {
    c->alias(std::string(name.nccl_tests_name));
    std::string dashed(name.nccl_tests_name);
    for (char& ch : dashed) ch = ch == '_' ? '-' : ch;
    c->alias(dashed);
  }
  c->add_option("--topo", args->topos,
                "Topology file (topologies/*.yaml); repeat to compare machines side by side")
      ->required()
      ->take_all();
  c->add_option("--set", args->sets, "Override a topology parameter, k=v (repeatable; last wins)")
      ->take_all();
  c->add_option("-g", args->gpus.first_n, "Use the first N GPUs (server by server)");
  c->add_option("--gpus", args->gpus.list, "GPUs by nvidia-smi index: 0,3 or 4-7 or host1:gpu3");
  c->add_option("--per-node", args->gpus.per_node, "Use the first K GPUs of every server");
  c->add_option("-b,--minbytes", args->min_size, "Smallest size (K/M/G suffixes)");
  c->add_option("-e,--maxbytes", args->max_size, "Largest size (K/M/G suffixes)");
  c->add_option("-f,--stepfactor", args->factor,
                "Size multiplier of the sweep: an integer >= 2 (default 2), or 1 to step by -i");
  c->add_option("-i,--stepbytes", args->step_size, "Size increment of the sweep with -f 1 (1M)");
  c->add_option("--max-rows", args->max_rows, "Refuse sweeps of more sizes (default 10000)");
  c->add_option("--size", args->size, "One size instead of a sweep");
  c->add_option("-d,--dtype", args->dtype,
                "Element type, nccl-tests' names (float, half, bfloat16, double, int8, ..., "
                "f8e4m3) or fp32|fp16|bf16|fp64|fp8");
  c->add_option("-o,--op", args->redop, "Reduction: sum|prod|max|min|avg (nccl-tests -o)");
  c->add_option("-r,--root", args->root, "Root rank of broadcast and reduce (nccl-tests -r)");
  c->add_option("--algo", args->algo, "auto|ring|tree|nvls|nvls_tree|direct (NCCL_ALGO)");
  c->add_option("--proto", args->proto, "auto|ll|ll128|simple (NCCL_PROTO)");
  c->add_option("--mode", args->mode, "analytic (closed form) or flow (simulated)");
  c->add_option("--p2p", args->p2p, "on|off; off = NCCL_P2P_DISABLE=1");
  c->add_option("--nvls", args->nvls, "on|off; off = NCCL_NVLS_ENABLE=0");
  c->add_option("--channels", args->channels, "Channel count (NCCL_MIN/MAX_NCHANNELS)")
      ->check(int_between(1, kMaxChannels, "a channel count (NCCL's MAXCHANNELS)"));
  c->add_option("--gpus-per-thread", args->gpus_per_thread,
                "GPUs driven by one thread, as nccl-tests -g (launches serialize)")
      ->check(int_between(1, std::numeric_limits<int>::max(), "a GPU count"));
  auto* json = c->add_flag("--json", args->json, "Print one JSON object");
  c->add_flag("--csv", args->csv, "Print CSV")->excludes(json);
  c->add_option("--format", args->format,
                "text|json|csv|nccl-tests (nccl-tests: its own log format, for its parsers)");
  const CollectiveOp op = name.op;
  c->callback([op, args] { run(op, *args); });
}

const CommandRegistrar kColl{"", "coll", [](CLI::App& app) {
  CLI::App* coll = app.add_subcommand("coll", "Predict a collective, in nccl-tests' terms");
  coll->require_subcommand(1);
  for (const CollectiveName& name : collective_names()) add_op(*coll, name);
}};

}  // namespace
}  // namespace linksim::cli
