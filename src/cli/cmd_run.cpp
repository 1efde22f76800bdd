// SPDX-License-Identifier: Apache-2.0
// `linksim run SCENARIO` and `linksim merge DIR...` (docs/scenario-format.md#running).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <thread>

#include "cli/command_table.hpp"
#include "cli/progress_bar.hpp"
#include "linksim/error.hpp"
#include "linksim/scenario.hpp"
#include "linksim/runs.hpp"
#include "linksim/scenario_report.hpp"

namespace linksim::cli {
namespace {

struct Formats {
  bool table = false, csv = false, json = false, svg = false, html = false;
};

/// `names` holds one format per item (CLI11 splits --format at commas).
Formats parse_formats(const std::vector<std::string>& names, const char* flag) {
  Formats formats;
  for (const std::string& name : names) {
    if (name == "table") formats.table = true;
    else if (name == "csv") formats.csv = true;
    else if (name == "json") formats.json = true;
    else if (name == "svg") formats.svg = true;
    else if (name == "html") formats.html = true;
    else throw ConfigError(fmt::format("{}: expected table, csv, json, svg or html, got \"{}\"", flag, name));
  }
  return formats;
}

struct RunArgs {
  std::string scenario;
  std::string out;
  int jobs = 0;
  std::string shard = "0/1";
  bool resume = false;
  std::vector<std::string> formats;
  long max_cases = kDefaultMaxCases;
  bool list = false;
};

void print_outcome(const RunDirectoryOutcome& outcome, bool table, const std::string& out) {
  // A scenario that asks questions answers them; the per-case table is then in the data files.
  if (table) fmt::print("{}", outcome.answers.empty() ? outcome.table : outcome.answers);
  fmt::print("# {} cases: {} run, {} reused, {} failed; results in {}/\n", outcome.cases_selected,
             outcome.cases_run, outcome.cases_skipped, outcome.cases_failed, out);
}

void run(const RunArgs& a) {
  if (a.jobs < 0) throw ConfigError(fmt::format("--jobs: expected N >= 1, got {}", a.jobs));
  if (a.max_cases < 1) throw ConfigError(fmt::format("--max-cases: expected N >= 1, got {}", a.max_cases));
  ScenarioOptions scenario_options;
  scenario_options.max_cases = a.max_cases;
  const Scenario scenario = load_scenario(a.scenario, scenario_options);
  if (a.list) {
    for (const ScenarioCase& c : scenario.cases) fmt::print("{} {}\n", c.index, c.id);
    fmt::print("# {} cases\n", scenario.cases.size());
    return;
  }
  const std::vector<std::string> format_names =
      !a.formats.empty() ? a.formats
      : !scenario.formats.empty() ? scenario.formats
                                  : std::vector<std::string>{"table", "csv", "json"};
  const Formats formats = parse_formats(format_names, "--format");
  RunDirectoryOptions options;
  options.out_dir = a.out.empty() ? "linksim-out/" + scenario.name : a.out;
  options.jobs = a.jobs > 0 ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  options.shard = parse_shard(a.shard);
  options.resume = a.resume;
  options.write_csv = formats.csv;
  options.write_json = formats.json;
  options.write_svg = formats.svg;
  options.write_html = formats.html;
  options.version = LINKSIM_VERSION;
  std::vector<std::string> words = {"linksim", "run", a.scenario, "--out", options.out_dir,
                                    "--shard", a.shard};
  if (a.resume) words.push_back("--resume");
  options.command_line = fmt::format("{}", fmt::join(words, " "));
  ProgressBar bar;
  options.progress = [&bar](int done, int total) { bar.update(done, total); };
  RunDirectoryOutcome outcome = run_to_directory(scenario, options);
  print_outcome(outcome, formats.table, options.out_dir);
}

struct MergeArgs {
  std::vector<std::string> dirs;
  std::string out;
  std::vector<std::string> formats;
};

void merge(const MergeArgs& a) {
  const Formats formats = parse_formats(
      a.formats.empty() ? std::vector<std::string>{"table", "csv", "json"} : a.formats, "--format");
  RunDirectoryOptions options;
  options.out_dir = a.out;
  options.write_csv = formats.csv;
  options.write_json = formats.json;
  options.write_svg = formats.svg;
  options.write_html = formats.html;
  options.version = LINKSIM_VERSION;
  std::vector<std::string> words = {"linksim", "merge"};
  words.insert(words.end(), a.dirs.begin(), a.dirs.end());
  words.insert(words.end(), {"--out", a.out});
  options.command_line = fmt::format("{}", fmt::join(words, " "));
  RunDirectoryOutcome outcome = merge_directories(a.dirs, options);
  print_outcome(outcome, formats.table, options.out_dir);
}

const CommandRegistrar kRun{"", "run", [](CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* c = app.add_subcommand("run", "Run a scenario file: every case, in parallel");
  c->add_option("scenario", args->scenario, "Scenario file (scenarios/*.yaml)")->required();
  c->add_option("--out", args->out, "Output directory (default linksim-out/<scenario name>)");
  c->add_option("--jobs,-j", args->jobs, "Worker threads (default: all cores)");
  c->add_option("--shard", args->shard, "Run cases with index mod N == I (0-based), as I/N");
  c->add_flag("--resume", args->resume, "Skip cases whose result is already in --out");
  c->add_option("--format", args->formats, "table,csv,json,svg,html (default: the scenario's report.formats, else table,csv,json)")
      ->delimiter(',');
  c->add_option("--max-cases", args->max_cases, "Refuse scenarios expanding to more cases (default 10000)");
  c->add_flag("--list", args->list, "Print the cases (index and id) without running them");
  c->callback([args] { run(*args); });
}};

const CommandRegistrar kMerge{"", "merge", [](CLI::App& app) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* c = app.add_subcommand("merge", "Join the output directories of shards into one");
  c->add_option("dirs", args->dirs, "Shard output directories")->required();
  c->add_option("--out", args->out, "Merged output directory")->required();
  c->add_option("--format", args->formats, "table,csv,json,svg,html (default: table,csv,json)")
      ->delimiter(',');
  c->callback([args] { merge(*args); });
}};

}  // namespace
}  // namespace linksim::cli
