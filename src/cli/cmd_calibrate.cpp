// SPDX-License-Identifier: Apache-2.0
// `linksim calibrate --topo FILE RESULTS... --out PROFILE`: fits the model's mechanisms to a
// user's nccl-tests outputs and writes the profile that --calibration reads
// (docs/calibration.md).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <fstream>
#include <memory>

#include "cli/coll_args.hpp"
#include "cli/command_table.hpp"
#include "cli/results_args.hpp"
#include "linksim/calibrate.hpp"
#include "linksim/error.hpp"
#include "linksim/measured_report.hpp"

namespace linksim::cli {
namespace {

struct CalibrateArgs {
  std::vector<std::string> results;
  std::string out;
  std::string collective;  ///< --collective: for tables whose text names none
  CollArgs coll;
};

void run(const CalibrateArgs& a) {
  if (a.coll.topos.size() != 1) {
    throw ConfigError(fmt::format("--topo: expected one topology, got {}", a.coll.topos.size()));
  }
  if (!a.coll.calibration.empty()) {
    throw ConfigError("--calibration: calibrate fits from the model's defaults; give no profile");
  }
  const Topology topology = load_coll_topology(a.coll, a.coll.topos.front());
  std::vector<FitCase> cases;
  for (const std::string& file : a.results) {
    for (NcclTestsTable& table : load_nccl_tests_outputs(file, read_options(a.collective))) {
      FitCase c;
      c.setup = measured_setup(table);
      c.ranks = measured_ranks(topology, c.setup, a.coll.gpus, table.file);
      c.table = std::move(table);
      bool has_rows = false;
      for (const NcclTestsRow& row : c.table.rows) has_rows = has_rows || (row.size_bytes > 0 && row.time_us > 0);
      if (has_rows) cases.push_back(std::move(c));
    }
  }
  if (cases.empty()) {
    throw ConfigError("RESULTS: expected measured rows (size > 0, time > 0), got none");
  }
  const CalibrationFit fit = fit_calibration(topology, cases);
  CalibrationProfile profile;
  profile.parameters = fit.parameters;
  profile.topology = a.coll.topos.front();
  profile.measurements = a.results;
  profile.undetermined = fit.undetermined;
  profile.rms_log_error_before = fit.rms_before;
  profile.rms_log_error_after = fit.rms_after;
  std::ofstream file(a.out);
  if (!file) throw ConfigError(fmt::format("--out: cannot write '{}'", a.out));
  file << render_calibration_profile(profile);
  if (!file.flush()) throw ConfigError(fmt::format("--out: cannot write '{}'", a.out));
  fmt::print("{}", render_calibration_fit(fit, cases));
  fmt::print("# profile written to {} (use it with --calibration {})\n", a.out, a.out);
}

const CommandRegistrar kCalibrate{"", "calibrate", [](CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* c = app.add_subcommand(
      "calibrate", "Fit the model's mechanisms to your nccl-tests outputs; write a profile");
  c->add_option("results", args->results, "nccl-tests outputs (text or JSON), one or more")
      ->required();
  c->add_option("--out", args->out, "Profile to write (YAML, docs/calibration.md)")->required();
  add_machine_options(*c, args->coll);
  add_collective_option(*c, args->collective);
  // One value per --topo, so the positional RESULTS may follow it.
  c->get_option("--topo")->expected(1)->allow_extra_args(false);
  c->callback([args] { run(*args); });
}};

}  // namespace
}  // namespace linksim::cli
