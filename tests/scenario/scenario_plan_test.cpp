// SPDX-License-Identifier: Apache-2.0
// Plan studies: a case answers what plan() answers, `search` ranks layouts, and a bad model or
// degree is a positioned error.
#include <doctest/doctest.h>

#include <string>

#include "linksim/model.hpp"
#include "linksim/scenario_report.hpp"
#include "linksim/topology_yaml.hpp"
#include "scenario/scenario_support.hpp"

namespace linksim {
namespace {

using testing::parse_error;
using testing::parse_inline;

TEST_CASE("scenario plans: each case equals the planner's own answer for that layout") {
  const Scenario s = parse_inline(R"(machines: [{topology: dgx-h100.yaml}]
plans:
  - model: llama3.1-8b
    mode: train
    tp: [1, 2, 4, 8]
    global_batch: 64
    seq: 2048
)");
  REQUIRE(s.cases.size() == 4);
  CHECK(s.cases[2].id == "plan-llama3.1-8b/dgx-h100/tp=4");
  CHECK(s.parameter_columns == std::vector<std::string>{"tp"});
  RunOptions options;
  options.jobs = 2;
  const std::vector<CaseResult> results = run_scenario(s, options);
  const Topology topology =
      load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100.yaml");
  for (int tp : {1, 2, 4, 8}) {
    CAPTURE(tp);
    PlanRequest request;
    request.model = ModelCatalog::builtin().get("llama3.1-8b");
    request.mode = PlanMode::kTrain;
    request.tp = tp;
    request.global_batch = 64;
    request.seq = 2048;
    const CaseResult& r = results[static_cast<size_t>(tp == 1 ? 0 : tp == 2 ? 1 : tp == 4 ? 2 : 3)];
    REQUIRE(r.error.empty());
    REQUIRE(r.plan->plan.has_value());
    const PlanResult direct = plan(topology, request);
    CHECK(r.plan->plan->step_time_s == direct.step_time_s);
    CHECK(r.plan->plan->tokens_per_s == direct.tokens_per_s);
    CHECK(r.plan->plan->layout.tp == tp);
    CHECK(r.plan->plan->layout.dp == 8 / tp);  // dp fills the machine's 8 GPUs
    CHECK(r.gpus == 8);
    CHECK(r.gpu_model == "h100-sxm");
  }
}

TEST_CASE("scenario plans: a degree written as search ranks the layouts") {
  const Scenario s = parse_inline(R"(machines: [{topology: dgx-h100.yaml}]
plans:
  - {name: best, model: llama3.1-8b, mode: train, tp: search, global_batch: 64}
)");
  REQUIRE(s.cases.size() == 1);
  CHECK(s.cases[0].plan->search);
  const CaseResult r = run_scenario(s, {}).front();
  REQUIRE(r.error.empty());
  REQUIRE_FALSE(r.plan->ranking.empty());
  CHECK_FALSE(r.plan->plan.has_value());
  for (size_t i = 1; i < r.plan->ranking.size(); ++i) {
    const SearchCandidate& a = r.plan->ranking[i - 1];
    const SearchCandidate& b = r.plan->ranking[i];
    CHECK((a.fits > b.fits || (a.fits == b.fits && a.tokens_per_s >= b.tokens_per_s)));
  }
  const std::string doc = render_case_json(s.cases[0], r);
  CHECK(doc.find("\"search\": [") != std::string::npos);
  CHECK(doc.find("\"rank\": 1,") != std::string::npos);
}

TEST_CASE("scenario plans: an invalid layout is an error row") {
  const Scenario s = parse_inline(R"(machines: [{topology: dgx-h100.yaml}]
plans: [{model: llama3.1-8b, mode: train, tp: 3, global_batch: 64}]
)");
  const CaseResult r = run_scenario(s, {}).front();
  CHECK_FALSE(r.error.empty());
  CHECK_FALSE(r.plan.has_value());
}

TEST_CASE("scenario plans: positioned errors for models, degrees and choices") {
  struct Case {
    const char* text;
    int line, column;
    std::string message;
  };
  const std::string head = "machines: [{topology: dgx-h100.yaml}]\nplans:\n";
  const std::vector<Case> cases = {
      {"  - {model: llama3.1-8c, mode: train}\n", 3, 13,
       "unknown model \"llama3.1-8c\"; did you mean \"llama3.1-8b\"?"},
      {"  - {model: llama3.1-8b, tp: [1, two]}\n", 3, 34, "expected a positive integer or search, got \"two\""},
      {"  - {model: llama3.1-8b, mode: serve}\n", 3, 32,
       "expected one of train, prefill, decode, got \"serve\""},
      {"  - {model: llama3.1-8b, recompute: ful}\n", 3, 37,
       "expected one of none, selective, full, got \"ful\"; did you mean \"full\"?"},
      {"  - {mode: train}\n", 3, 5, "missing required key \"model\" (or \"arch\")"},
      {"  - {model: llama3.1-8b, micro_batc: 4}\n", 3, 26,
       "unknown key \"micro_batc\"; did you mean \"micro_batch\"?"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const ConfigError e = parse_error(head + c.text);
    CHECK(e.message() == c.message);
    CHECK(e.where().line == c.line);
    CHECK(e.where().column == c.column);
  }
}

}  // namespace
}  // namespace linksim
