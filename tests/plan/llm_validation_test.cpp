// SPDX-License-Identifier: Apache-2.0
// The planner held to published LLM training and inference runs (data/validation/llm/), each
// compared as a step time converted with the source's own FLOP convention. The fidelity target
// (docs/validation.md#llm-planner) is median |error| within 10 %, p90 within 35 %, none off by 2x,
// and for inference median within 15 % for prefill and for decode separately; this test holds the
// figures the planner reaches (all runs: median within 9.5 %, p90 within 23 %; training: median
// within 9 %, p90 within 26 %; prefill median within 10 %; decode median within 11.5 %, p90 within
// 21 %; none off by 2x) so that no change makes them worse. Training went from median 11.3 %, p90
// 32.0 % and one run off by 2x to 9.5 %, 26.3 % and none, then to 8.7 %, 25.5 % with FSDP's
// compute-stream overheads (docs/planner.md#fsdp-overheads): the Llama 3 405B pre-training planned
// with the paper's interleaved schedule and ZeRO-2 sharding (docs/planner.md#step), the torchtitan
// machine's peak between the bounds its source gives, Transformer Engine's userbuffers TP overlap
// (docs/planner.md#tp-overlap), Megatron's overlap of the interleaved schedule's pipeline sends,
// and the TP overlap the NeMo GPT-3 recipe and Megatron-LM's weak-scaling README state. The GEMM
// model by shape (docs/planner.md#gemms-by-shape) moved the all-runs median from 10.6 to 11.2 %
// while it brought decode's p90 from 24.0 to 20.4 % and prefill's from 22.5 to 20.7 %. The table
// printed with --success (or on failure) is the one scripts/llm_validation_table.py renders into
// docs/validation.md.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <fmt/core.h>
#include <map>
#include <utility>
#include <vector>

#include "linksim/plan.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/llm_cases.hpp"

namespace linksim {
namespace {

const std::string kCases = std::string(LINKSIM_SOURCE_DIR) + "/data/validation/llm/cases.yaml";
const std::string kTopologies = std::string(LINKSIM_SOURCE_DIR) + "/topologies";

/// The planner's step time for a case: one plan, or for a static batch its prefill plus `osl`
/// decode steps at the mean context length (the decode time grows linearly with the context).
double predicted_time_s(const testing::LlmCase& c, const Topology& topology) {
  PlanRequest r = c.request;
  r.compute_baseline = false;
  if (!c.static_batch) return plan(topology, r).step_time_s;
  const testing::StaticBatch& s = *c.static_batch;
  r.mode = PlanMode::kPrefill;
  r.batch = s.batch;
  r.seq = s.isl;
  const double prefill_s = plan(topology, r).step_time_s;
  r.mode = PlanMode::kDecode;
  r.kv_len = s.isl + s.osl / 2;
  return prefill_s + s.osl * plan(topology, r).step_time_s;
}

struct Row {
  std::string id, source, framework;
  double published_s = 0, predicted_s = 0;
  bool train = false;
  double error() const { return predicted_s / published_s - 1; }
};

}  // namespace

// Runs whose mechanism the planner does not model, and why.
const std::map<std::string, std::string> kKnownOutliers = {};

namespace {

/// Median and p90 of |error| (p90: the smallest value at least 90 % of the runs do not exceed).
std::pair<double, double> median_p90(std::vector<double> errors) {
  if (errors.empty()) return {0, 0};
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  const double median = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  const double p90 = errors[std::min(n - 1, size_t(std::ceil(0.9 * n)) - 1)];
  return {median, p90};
}

}  // namespace

TEST_CASE("plan: published LLM runs held to the figures they reach, none off by 2x") {
  REQUIRE_MESSAGE(std::filesystem::exists(kCases), "validation data missing: " << kCases);
  const std::vector<testing::LlmCase> cases = testing::load_llm_cases(kCases, kTopologies);
  REQUIRE(cases.size() >= 30);
  std::map<std::pair<std::string, std::string>, Topology> topologies;
  std::vector<Row> rows;
  for (const testing::LlmCase& c : cases) {
    CAPTURE(c.id);
    std::string sets;
    for (const auto& [k, v] : c.sets) sets += k + "=" + v + ",";
    auto key = std::make_pair(c.topology_file, sets);
    auto it = topologies.find(key);
    if (it == topologies.end()) it = topologies.emplace(key, load_topology(c.topology_file, c.sets)).first;
    const Topology& topology = it->second;
    const double peak = testing::dense_peak_flops(topology.gpu_model(topology.gpus().front()),
                                                  c.request.dtype);
    // Inference runs are labelled by mode and the engine the source measured on.
    std::string framework = c.request.mode == PlanMode::kTrain
                                ? std::string(to_string(c.request.framework))
                                : std::string(to_string(c.request.mode));
    if (c.request.engine) framework += ", " + c.request.engine->name;
    Row row{c.id, c.source, framework, testing::published_step_time_s(c, peak),
            predicted_time_s(c, topology), c.request.mode == PlanMode::kTrain};
    rows.push_back(row);
  }
  std::vector<double> errors, train_errors;
  std::string table = "| case | published | predicted | error |\n|---|---|---|---|\n";
  for (const Row& r : rows) {
    errors.push_back(std::abs(r.error()));
    if (r.train) train_errors.push_back(std::abs(r.error()));
    table += fmt::format("| {} | {:.4g} s | {:.4g} s | {:+.1f} % |\n", r.id, r.published_s,
                         r.predicted_s, 100 * r.error());
  }
  const auto [median, p90] = median_p90(errors);
  const auto [train_median, train_p90] = median_p90(train_errors);
  table += fmt::format("median |error| {:.1f} %, p90 {:.1f} %; training: median {:.1f} %, p90 {:.1f} %\n",
                       100 * median, 100 * p90, 100 * train_median, 100 * train_p90);
  MESSAGE(table);
  // scripts/llm_validation_table.py renders docs/validation.md#llm-planner from these rows.
  if (const char* path = std::getenv("LINKSIM_LLM_TABLE")) {
    std::ofstream out(path);
    for (const Row& r : rows) {
      out << r.id << '\t' << r.source << '\t' << r.framework << '\t'
          << fmt::format("{:.6g}\t{:.6g}", r.published_s, r.predicted_s) << '\n';
    }
  }
  CHECK(median <= 0.095);
  CHECK(p90 <= 0.23);
  CHECK(train_median <= 0.09);
  CHECK(train_p90 <= 0.26);
  // Inference by mode: prefill (TTFT) and decode (TPOT, tokens/s) each held on its own.
  std::map<std::string, std::vector<double>> by_mode;
  for (const Row& r : rows) {
    const std::string mode = r.framework.substr(0, r.framework.find(','));
    if (mode == "prefill" || mode == "decode") by_mode[mode].push_back(std::abs(r.error()));
  }
  CHECK(median_p90(by_mode["prefill"]).first <= 0.10);
  CHECK(median_p90(by_mode["decode"]).first <= 0.115);
  CHECK(median_p90(by_mode["decode"]).second <= 0.21);
  for (const Row& r : rows) {
    CAPTURE(r.id);
    if (kKnownOutliers.count(r.id)) continue;
    const double ratio = r.predicted_s / r.published_s;
    CHECK(ratio < 2.0);
    CHECK(ratio > 0.5);
  }
}

}  // namespace linksim
