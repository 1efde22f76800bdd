// SPDX-License-Identifier: Apache-2.0
// `linksim run`'s output directory: a scenario's cases run into per-case documents, then the
// manifest, the data files and the reports rendered from them (docs/scenario-format.md#outputs);
// shards merged into one directory; every write atomic.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/scenario.hpp"

namespace linksim {

struct RunDirectoryOptions {
  std::string out_dir = "linksim-out";
  int jobs = 1;
  Shard shard;
  /// Skip cases whose DIR/cases/<file_stem>.json exists with the case's fingerprint.
  bool resume = false;
  bool write_csv = true;
  bool write_json = true;
  bool write_svg = false;    ///< DIR/charts/<chart>.svg (render_scenario_charts)
  bool write_html = false;   ///< DIR/report.html (render_scenario_html)
  std::string command_line;  ///< recorded in run-info.json
  std::string version;       ///< recorded in run-info.json
  /// Called after each finished case with (done, total) of this run; from worker threads,
  /// serialized by the runner.
  std::function<void(int done, int total)> progress;
};

struct RunDirectoryOutcome {
  int cases_total = 0;     ///< in the scenario
  int cases_selected = 0;  ///< in this shard
  int cases_run = 0;       ///< computed by this run
  int cases_skipped = 0;   ///< taken from an earlier run (--resume)
  int cases_failed = 0;    ///< answered with an error
  std::string table;       ///< render_results_table of the selected cases
  std::string answers;     ///< render_answers of the selected cases; empty without questions
};

/// Runs the shard's cases into `options.out_dir`: DIR/cases/<file_stem>.json per case as it
/// finishes, then DIR/manifest.json, DIR/results.csv, DIR/results.json, DIR/charts/*.svg,
/// DIR/report.html and DIR/run-info.json (the only file with a time in it). Every file is
/// written to "<name>.tmp" and renamed. report.html's command is
/// "linksim run <scenario file> --format html", for a merge too (the file named in the first
/// shard's run-info.json), so merged and single runs give the same page.
RunDirectoryOutcome run_to_directory(const Scenario& scenario, const RunDirectoryOptions& options);

/// Joins shard directories into `options.out_dir` (cases, manifest, results) so that its data
/// files equal a single run's byte for byte. Throws ConfigError when the shards come from
/// different scenarios or a case is missing from all of them (naming the first missing id).
RunDirectoryOutcome merge_directories(const std::vector<std::string>& dirs,
                                      const RunDirectoryOptions& options);

/// Writes `content` to `path` + ".tmp", then renames it over `path`. Throws ConfigError
/// naming the path when it cannot.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace linksim
