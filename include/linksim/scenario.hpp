// SPDX-License-Identifier: Apache-2.0
// Scenario files (docs/scenario-format.md): machines with swept parameters, collective studies
// and LLM plans, expanded into a deterministic list of cases and run in parallel through the
// library. Results are typed; src/report/ renders them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/plan.hpp"
#include "linksim/serve.hpp"
#include "linksim/collective_rows.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim {

/// Default of ScenarioOptions::max_cases (docs/scenario-format.md#case-limit).
inline constexpr long kDefaultMaxCases = 10000;

struct ScenarioOptions {
  /// A scenario that expands to more cases is rejected before it is expanded.
  long max_cases = kDefaultMaxCases;
};

/// One collective curve: the sweep `linksim coll` would run (op, sizes, type, reduction,
/// algorithm, protocol, mode) on one set of GPUs with one communicator set-up.
struct CollectiveCaseSpec {
  SweepRequest sweep;  ///< sizes_bytes: requested sizes, ascending as written
  GpuSelection gpus;
  CommOptions comm;
};

/// One planner question: a layout (plan()) or a ranking of layouts (search_layouts()).
struct PlanCaseSpec {
  PlanRequest request;
  bool search = false;
};

/// One serving question: a workload on a replica layout under an engine (simulate_serving),
/// and with max_rate, the highest Poisson rate meeting the request's SLO.
struct ServeCaseSpec {
  ServeRequest request;
  bool max_rate = false;
  /// Overrides of the engine's host time per iteration and all-reduce, applied whatever
  /// order the keys were written in.
  std::optional<double> engine_overhead_s;
  std::optional<AllReduceImpl> allreduce;
};

/// One expanded case: a study on one machine with one value of every swept parameter.
struct ScenarioCase {
  int index = 0;           ///< position in expansion order, 0-based
  std::string id;          ///< stable: "<study>/<machine>" + "/k=v,k=v" for swept values
  std::string file_stem;   ///< file-system-safe name for per-case files, unique
  std::string fingerprint; ///< hex digest of everything the case depends on (resume checks it)
  std::string study;       ///< the study's name
  std::string kind;        ///< "collective", "plan" or "serve"
  std::string machine;     ///< machine label
  std::string topology_file;  ///< resolved path of the machine's topology
  ParamOverrides overrides;   ///< the machine's `set:` values for this case
  /// Every parameter with its value for this case, in column order: the machine's `set:`
  /// keys, then the study's swept keys. Rendered as one column each.
  std::vector<std::pair<std::string, std::string>> parameters;
  SourceLocation machine_where;  ///< the machine entry (topology load errors point here)
  std::optional<CollectiveCaseSpec> collective;
  std::optional<PlanCaseSpec> plan;
  std::optional<ServeCaseSpec> serve;
  /// Keep the per-link usage of the largest size (CollectiveCaseResult::link_usage): set on
  /// the last case of each (collective study, machine), whose machine the reports draw.
  bool record_link_usage = false;
};

/// A question the scenario answers in a sentence from the numbers of its cases
/// (docs/scenario-format.md#questions).
struct ScenarioQuestion {
  std::string ask;                   ///< the question as written
  std::vector<std::string> studies;  ///< the studies whose cases answer it, as written
  /// What is compared: "tpot", "ttft", "step_time", "tokens_per_s", "scaling" (plan
  /// studies) or "busbw" (collective studies).
  std::string metric;
  /// busbw: the message size read from each curve (the largest row not above it);
  /// 0 = each curve's largest size.
  double size_bytes = 0;
};

struct Scenario {
  std::string file;                  ///< as given
  std::string name;                  ///< file stem
  std::string title;
  std::vector<std::string> formats;  ///< report.formats, in order; empty = the CLI's default
  std::vector<std::string> parameter_columns;  ///< union of all cases' parameter names, in order
  std::vector<ScenarioCase> cases;
  std::vector<ScenarioQuestion> questions;  ///< in the order written
};

/// Reads and expands a scenario file. Throws ConfigError (file:line:col, expected vs found)
/// for bad YAML, unknown keys (with did-you-mean), wrong types, empty lists, unknown machine
/// files, parameters the machine does not declare, unknown models or operations, duplicate
/// names, and a case count above options.max_cases (checked before expanding).
Scenario load_scenario(const std::string& path, const ScenarioOptions& options = {});
/// The same from text; `filename` names it in messages and anchors relative topology paths.
Scenario parse_scenario(const std::string& text, const std::string& filename,
                        const ScenarioOptions& options = {});

/// The rows of a collective case, as `linksim coll` prints them (to_collective_report: the
/// NCCL release, the real reduction, each row's error band and confidence).
struct CollectiveCaseResult {
  CollectiveReport report;
  /// With ScenarioCase::record_link_usage: what each directed link carried at the largest
  /// size (CollectiveResult::link_usage). When the case's mode leaves it empty (analytic
  /// mode for non-ring algorithms), it comes from the same query in flow mode.
  std::vector<LinkUsage> link_usage;
  double link_usage_size_bytes = 0;
  SimMode link_usage_mode = SimMode::kAnalytic;
};

struct PlanCaseResult {
  std::optional<PlanResult> plan;           ///< a layout case
  std::vector<SearchCandidate> ranking;     ///< a search case, best first
};

struct ServeCaseResult {
  ServeResult run;                              ///< the workload as given
  std::optional<double> max_rate_requests_per_s;  ///< with ServeCaseSpec::max_rate
};

/// The outcome of one case. A case that the library rejects (a GPU selection the machine does
/// not have, an invalid layout) is a result with `error` set, not a failed run.
struct CaseResult {
  std::string gpu_model;  ///< catalog key of the case's first GPU
  int gpus = 0;           ///< GPUs used
  int nodes = 0;          ///< servers spanned
  std::string error;      ///< ConfigError text when the case could not be answered
  std::optional<CollectiveCaseResult> collective;
  std::optional<PlanCaseResult> plan;
  std::optional<ServeCaseResult> serve;
};

/// A deterministic 1/count of the cases: those whose index mod count == index (0-based).
struct Shard {
  int index = 0;
  int count = 1;
  bool contains(int case_index) const { return case_index % count == index; }
};
/// Parses "I/N" (0 <= I < N). Throws ConfigError naming `flag`.
Shard parse_shard(const std::string& text, const std::string& flag = "--shard");

struct RunOptions {
  int jobs = 1;  ///< worker threads, >= 1
  /// Cases to run, by index; empty = all. Results come back in this order.
  std::vector<int> selected;
  /// Called from worker threads as each case finishes, with its index in scenario.cases.
  /// Must be thread-safe. An exception thrown here stops the run and is rethrown.
  std::function<void(int case_index, const CaseResult&)> on_done;
};

/// Runs the selected cases on `jobs` threads through the library. Topologies are loaded once
/// per (file, parameters) and shared read-only; each case builds its own Communicator.
/// Returns results in selection order, independent of the thread count. A topology that
/// fails to load for a case's parameter values is a ConfigError at the machine entry; the
/// first such error in case order is rethrown after the workers stop.
std::vector<CaseResult> run_scenario(const Scenario& scenario, const RunOptions& options);

/// Runs one case on the calling thread (what each worker does).
CaseResult run_case(const ScenarioCase& scenario_case, const Topology& topology);

}  // namespace linksim
