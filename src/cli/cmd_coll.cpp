// SPDX-License-Identifier: Apache-2.0
// `linksim coll OP`: parses nccl-tests-style flags, runs the library's sweep (run_sweep) and
// prints it with the chosen renderer.
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <memory>

#include "cli/coll_args.hpp"
#include "cli/command_table.hpp"
#include "cli/nccl_debug_log.hpp"
#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_debug.hpp"
#include "linksim/nccl_debug_report.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/report.hpp"
#include "linksim/units.hpp"

namespace linksim::cli {
namespace {

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

struct Prediction {
  CollectiveReport report;
  NcclTestsPreamble preamble;
};

Prediction predict(CollectiveOp op, const CollArgs& a, const std::string& topo_file) {
  const Topology topology = load_coll_topology(a, topo_file);
  const CommOptions options = comm_options(a);
  const SweepRequest request = sweep_request(op, a);
  const Communicator comm(topology, select_gpus(topology, a.gpus), options);
  const CollectiveSweep sweep = run_sweep(comm, request);
  if (a.nccl_debug) {
    const NcclDebugInfo info = comm.nccl_debug(nccl_calls(request, sweep));
    write_nccl_log(render_nccl_debug(info, topology.name()));
  }
  Prediction p{to_collective_report(sweep, topology), {}};
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
  add_machine_options(*c, *args);
  c->add_option("-b,--minbytes", args->min_size, "Smallest size (K/M/G suffixes)");
  c->add_option("-e,--maxbytes", args->max_size, "Largest size (K/M/G suffixes)");
  c->add_option("-f,--stepfactor", args->factor,
                "Size multiplier of the sweep: an integer >= 2 (default 2), or 1 to step by -i");
  c->add_option("-i,--stepbytes", args->step_size, "Size increment of the sweep with -f 1 (1M)");
  c->add_option("--max-rows", args->max_rows, "Refuse sweeps of more sizes (default 10000)");
  c->add_option("--size", args->size, "One size instead of a sweep");
  add_nccl_options(*c, *args);
  c->add_option("--sim", args->sim,
                choice_list(sim_mode_choices()) +
                    ": analytic (closed form, default) or flow (simulated), as plan --sim");
  c->add_option("--mode", args->mode, "Older spelling of --sim")->group("");
  auto* json = c->add_flag("--json", args->json, "Print one JSON object");
  c->add_flag("--csv", args->csv, "Print CSV")->excludes(json);
  c->add_option("--format", args->format,
                "text|json|csv|nccl-tests (nccl-tests: its own log format, for its parsers)");
  c->add_flag("--nccl-debug", args->nccl_debug, kNcclDebugHelp);
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
