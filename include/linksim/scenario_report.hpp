// SPDX-License-Identifier: Apache-2.0
// The outputs of a scenario run (docs/scenario-format.md#outputs), rendered from the typed case
// records (linksim/scenario_results.hpp) alone: results.csv, results.json, a terminal summary,
// the answers to the scenario's questions, the charts and report.html.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "linksim/scenario.hpp"
#include "linksim/scenario_results.hpp"

namespace linksim {

/// The data files, assembled from the records of the cases present, in case order.
std::string render_results_json(const ScenarioManifest& manifest,
                                const std::vector<CaseRecord>& cases);
std::string render_results_csv(const ScenarioManifest& manifest,
                               const std::vector<CaseRecord>& cases);
/// One line per case with its key numbers, for the terminal.
std::string render_results_table(const ScenarioManifest& manifest,
                                 const std::vector<CaseRecord>& cases);

/// The answers to the manifest's questions (docs/scenario-format.md#questions): per question,
/// one line per case of its studies with the compared number and the share of exposed
/// communication, then one sentence comparing them. Empty when the scenario asks none.
std::string render_answers(const ScenarioManifest& manifest, const std::vector<CaseRecord>& cases);

/// One chart of a scenario run, as DIR/charts/<file_stem>.svg and a figure of report.html.
struct ScenarioChart {
  std::string file_stem;  ///< unique, file-system-safe: "busbw-allreduce-allreduce"
  std::string title;
  std::string caption;    ///< how to read it, and what was left out to keep it readable
  std::string svg;        ///< one <svg> element (include/linksim/charts.hpp)
};

/// The charts of a run, built from its case records alone (never by running cases), so a
/// resumed or merged run draws the same bytes as a single one
/// (docs/scenario-format.md#charts):
///  - per collective study and operation, busbw against message size, one line per case;
///  - per plan study whose cases differ in GPU count, step time, tokens/s and (when the
///    study has a baseline) speedup against GPUs, each with the ideal linear-scaling line;
///  - per plan study, the step time by part (compute, exposed communication by kind, bubble)
///    and the memory per GPU against its capacity, one bar per case;
///  - per layout search (at most 4), its 12 best layouts by part of the step;
///  - per machine of a collective study, its links coloured by their utilisation in the
///    study's last case (the records' link usage; its topology is loaded again).
/// A chart with nothing to draw (every case on one GPU) is left out.
/// Charts hold at most kMaxChartSeries lines or kMaxChartBars bars (an evenly spread choice
/// when there are more, said in the caption). Failed cases are left out. Throws ConfigError
/// for a machine whose topology no longer loads.
std::vector<ScenarioChart> render_scenario_charts(const std::vector<CaseRecord>& cases);
inline constexpr int kMaxChartSeries = 12;
inline constexpr int kMaxChartBars = 16;
/// Rows of each table of report.html; the rest are in results.csv.
inline constexpr int kMaxHtmlTableRows = 200;

/// What report.html states besides the results.
struct ScenarioReportInfo {
  std::string command;  ///< the command line that reproduces the report
  std::string version;  ///< linksim's version
};

/// DIR/report.html: one self-contained page (render_html_report) with a summary, `charts`,
/// tables of the collective, plan, search and failed cases, the assumptions the results rest
/// on (NCCL switches, algorithm, protocol and mode of collective studies, the planner's
/// assumptions, the catalog GPUs) and the command. It states no time, so the same records
/// give the same bytes.
std::string render_scenario_html(const ScenarioManifest& manifest,
                                 const std::vector<CaseRecord>& cases,
                                 const std::vector<ScenarioChart>& charts,
                                 const ScenarioReportInfo& info);

}  // namespace linksim
