// SPDX-License-Identifier: Apache-2.0
// The typed record of one scenario case: what DIR/cases/<file_stem>.json holds
// (docs/scenario-format.md#case-files). The runner writes a case file only through
// case_record_json and reads one back only through parse_case_record; the reports render the
// records, never the JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "linksim/collective_rows.hpp"
#include "linksim/plan.hpp"
#include "linksim/scenario.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim {

/// One directed link of the machine picture: its id and the fraction of its rate it used.
struct LinkUtilization {
  int link = 0;
  double utilization = 0;  ///< in (0, 1], 4 decimals
};

/// What the machine picture of a collective study needs (docs/scenario-format.md#link-usage).
struct LinkUsageRecord {
  double size_bytes = 0;             ///< the message size the usage was taken at
  std::string mode;                  ///< "analytic" or "flow"
  std::string topology_file;         ///< absolute, normalised path of the machine's topology
  ParamOverrides set;                ///< the machine's `set:` values
  std::vector<LinkUtilization> links;  ///< links that carried data, in link order
};

/// A collective case: one nccl-tests sweep (CollectiveReport's header and rows) with the
/// algorithm, protocol and NCCL switches it was asked for.
struct CollectiveSweepRecord {
  std::string collective;    ///< canonical name, "allreduce"
  int ranks = 0;
  std::string mode;          ///< "analytic" or "flow"
  std::string nccl_version;  ///< "2.29"
  std::string algorithm;     ///< as requested: "auto", "ring", ...
  std::string protocol;      ///< as requested: "auto", "simple", ...
  bool p2p = true;           ///< NCCL_P2P_DISABLE unset
  bool nvls = true;          ///< NCCL_NVLS_ENABLE
  /// Times in seconds and rates in bytes/s, as the library computes them; the file holds
  /// them in us and GB/s (file_number converts back exactly).
  std::vector<CollectiveRow> rows;
  std::optional<LinkUsageRecord> link_usage;  ///< the last case of a (study, machine) only
};

/// A plan case: one layout (plan) or a ranking of layouts (search), best first. Memory
/// sizes are in bytes; the file holds them in GB.
struct PlanCaseRecord {
  std::optional<PlanResult> plan;
  std::optional<std::vector<SearchCandidate>> search;
};

/// A case's answer; monostate when it has none (a failed case).
using CaseAnswer =
    std::variant<std::monostate, CollectiveSweepRecord, PlanCaseRecord, ServeCaseResult>;

/// One case file: the case's identity and axes, what it ran on, and its answer.
struct CaseRecord {
  std::string id;           ///< ScenarioCase::id
  int index = 0;            ///< ScenarioCase::index
  std::string fingerprint;  ///< ScenarioCase::fingerprint
  std::string study, kind, machine;
  std::string topology;     ///< the topology file's stem
  std::vector<std::pair<std::string, std::string>> parameters;  ///< in column order
  std::string gpu_model;
  int gpus = 0;
  int servers = 0;
  std::string error;        ///< empty when the case was answered
  CaseAnswer answer;

  bool ok() const { return error.empty(); }
  const CollectiveSweepRecord* collective() const {
    return std::get_if<CollectiveSweepRecord>(&answer);
  }
  const PlanCaseRecord* plan_case() const { return std::get_if<PlanCaseRecord>(&answer); }
  /// The plan of a layout case; nullptr otherwise.
  const PlanResult* plan() const;
  /// The ranking of a search case; nullptr otherwise.
  const std::vector<SearchCandidate>* search() const;
  const ServeCaseResult* serve() const { return std::get_if<ServeCaseResult>(&answer); }
};

/// One case as the manifest lists it.
struct ManifestCase {
  int index = 0;
  std::string id;
  std::string file;  ///< "<file_stem>.json", under DIR/cases/
  std::string fingerprint;
};

/// One question of the scenario (docs/scenario-format.md#questions).
struct ManifestQuestion {
  std::string ask;
  std::vector<std::string> studies;
  std::string metric;
  double size_bytes = 0;  ///< busbw questions: the size read; 0 = the largest
};

/// DIR/manifest.json: what every shard of a scenario shares.
struct ScenarioManifest {
  std::string scenario;
  std::string title;
  std::vector<std::string> parameters;  ///< parameter columns, in order
  size_t cases_total = 0;
  std::vector<ManifestCase> cases;
  std::vector<ManifestQuestion> questions;
};

ScenarioManifest make_manifest(const Scenario& scenario);
/// The manifest's text: pretty JSON, "questions" only when there are some. Deterministic.
std::string manifest_json(const ScenarioManifest& manifest);
/// A manifest's text read back; throws ConfigError like parse_case_record.
ScenarioManifest parse_manifest(std::string_view text, const std::string& file);
/// make_manifest then manifest_json.
std::string render_manifest(const Scenario& scenario);

/// The record of a case and its result. Numbers are as computed: file_number gives what the
/// file will hold.
CaseRecord make_case_record(const ScenarioCase& scenario_case, const CaseResult& result);

/// The case file's text: pretty JSON, one line per link_usage entry. Deterministic.
std::string case_record_json(const CaseRecord& record);

/// A case file's text read back. Throws ConfigError "<file>: error: field <path>: expected
/// <type>, found <type>" (path like collective.rows[0].busbw_GBps) for a field of the wrong
/// type or missing, "<file>: error: not JSON: ..." when the text does not parse.
CaseRecord parse_case_record(std::string_view text, const std::string& file);

/// make_case_record then case_record_json.
std::string render_case_json(const ScenarioCase& scenario_case, const CaseResult& result);

/// `value / unit` as the case file holds it (10 significant digits): a renderer that shows
/// file_number(row.busbw_Bps, kGB) prints what a resumed or merged run prints.
double file_number(double value, double unit = 1);

}  // namespace linksim
