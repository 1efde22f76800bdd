// SPDX-License-Identifier: Apache-2.0
// The outputs of a scenario run (docs/scenario-format.md#outputs): one JSON document per case,
// assembled into results.csv, results.json and a terminal summary; the run directory with its
// atomic writes, resume and shard merge.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/scenario.hpp"

namespace linksim {

/// The case's document, as stored in DIR/cases/<file_stem>.json: its id, index, fingerprint,
/// study, machine, parameters, GPU model and count, status, and the collective rows, the plan
/// or the layout ranking. Deterministic: the same case and result give the same bytes.
std::string render_case_json(const ScenarioCase& scenario_case, const CaseResult& result);

/// What every output of one scenario shares: written as DIR/manifest.json, identical for
/// every shard of a scenario, so merge can check that shards belong together.
std::string render_manifest(const Scenario& scenario);

/// The data files, assembled from case documents (render_case_json's output, in case order).
/// `manifest` is render_manifest's output. Throws ConfigError for a document that is not one.
std::string render_results_json(std::string_view manifest,
                                 const std::vector<std::string>& case_documents);
std::string render_results_csv(std::string_view manifest,
                               const std::vector<std::string>& case_documents);
/// One line per case with its key numbers, for the terminal.
std::string render_results_table(std::string_view manifest,
                                 const std::vector<std::string>& case_documents);

/// The answers to the manifest's questions (docs/scenario-format.md#questions): per question,
/// one line per case of its studies with the compared number and the share of exposed
/// communication, then one sentence comparing them. Empty when the scenario asks none.
std::string render_answers(std::string_view manifest,
                           const std::vector<std::string>& case_documents);

struct RunDirectoryOptions {
  std::string out_dir = "linksim-out";
  int jobs = 1;
  Shard shard;
  /// Skip cases whose DIR/cases/<file_stem>.json exists with the case's fingerprint.
  bool resume = false;
  bool write_csv = true;
  bool write_json = true;
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
/// finishes, then DIR/manifest.json, DIR/results.csv, DIR/results.json and DIR/run-info.json
/// (the only file with a time in it). Every file is written to "<name>.tmp" and renamed.
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
