// SPDX-License-Identifier: Apache-2.0
// `linksim serve`: parses a model, a layout, a machine, an engine and a workload into a
// ServeRequest, runs the serving simulation (include/linksim/serve.hpp) and prints its answer
// (include/linksim/serve_report.hpp).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <fstream>
#include <memory>

#include "cli/command_table.hpp"
#include "cli/serve_args.hpp"
#include "linksim/error.hpp"
#include "linksim/serve.hpp"
#include "linksim/serve_report.hpp"

namespace linksim::cli {
namespace {

void write_requests_csv(const std::string& path, const ServeResult& result) {
  std::ofstream out(path);
  if (!out) throw ConfigError(fmt::format("--requests-csv: cannot write '{}'", path));
  out << render_requests_csv(result);
}

void run_serve(const ServeArgs& a) {
  const ServeRequest request = to_serve_request(a);
  const Topology topology = topology_arg(a.plan);
  ServeSimulator simulator(topology, request);
  ServeReport report;
  report.slo = request.slo;
  if (has_own_workload(serve_options_of(a))) report.run = simulator.run();
  if (a.rate_sweep) {
    const RateSweep s = parse_rate_sweep(*a.rate_sweep, OptionSpelling::kFlag);
    report.sweep = simulator.sweep(s.from, s.to, s.step);
  }
  if (a.max_rate) report.max_rate = simulator.max_rate();
  if (a.requests_csv) {
    const ServeResult* records = report.run ? &*report.run
                                 : !report.sweep.empty() ? &report.sweep.back()
                                 : report.max_rate ? &report.max_rate->at : nullptr;
    if (records) write_requests_csv(*a.requests_csv, *records);
  }
  fmt::print("{}", a.plan.json ? render_serve_json(report) : render_serve_text(report));
}

void add_serve(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  CLI::App* c = app.add_subcommand(
      "serve", "Simulate serving requests: latency percentiles, throughput, goodput, KV cache");
  add_serve_options(*c, *a);
  c->callback([a] { run_serve(*a); });
}

const CommandRegistrar kServe{"", "serve", add_serve};

}  // namespace
}  // namespace linksim::cli
