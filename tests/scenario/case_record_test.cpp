// SPDX-License-Identifier: Apache-2.0
// The typed case record: every kind of case survives record -> file -> record unchanged, and a
// case file with a field of the wrong type is refused with the field's path.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "linksim/error.hpp"
#include "linksim/scenario_results.hpp"
#include "scenario/scenario_support.hpp"

namespace linksim {
namespace {

using testing::parse_inline;

// One case of each kind: collective sweeps (one with its machine's link usage), a plan, a
// layout search, a serving run with a max rate, and a case the library refuses.
const char* const kEveryKind = R"(machines:
  - topology: dgx-h100.yaml
collectives:
  - name: coll
    ops: allreduce
    sizes: [1M, 64M]
plans:
  - {name: plan, model: llama3.1-8b, mode: train, tp: 2, pp: 1, global_batch: 64}
  - {name: search, model: llama3.1-8b, mode: train, tp: search, global_batch: 64}
  - {name: refused, model: llama3.1-8b, mode: train, tp: 3, global_batch: 64}
serving:
  - {name: serve, model: llama3.1-8b, tp: 1, engine: vllm, input_len: 128, output_len: 16,
     requests: 20, rate: 2, slo_ttft: 2s, slo_tpot: 100ms, max_rate: true}
)";

struct Kinds {
  Scenario scenario;
  std::vector<CaseResult> results;
};

const Kinds& kinds() {
  static const Kinds k = [] {
    Kinds out{parse_inline(kEveryKind), {}};
    out.results = run_scenario(out.scenario, {});
    return out;
  }();
  return k;
}

// The record of the first case of `study`, as its case file reads back.
CaseRecord record_of(const std::string& study) {
  const Kinds& k = kinds();
  for (size_t i = 0; i < k.scenario.cases.size(); ++i) {
    if (k.scenario.cases[i].study != study) continue;
    const std::string text = render_case_json(k.scenario.cases[i], k.results[i]);
    return parse_case_record(text, "case.json");
  }
  FAIL("no case of study " << study);
  return {};
}

TEST_CASE("case record: every kind reads back into the record it was written from") {
  for (const char* study : {"coll", "plan", "search", "refused", "serve"}) {
    CAPTURE(study);
    const CaseRecord record = record_of(study);
    const std::string text = case_record_json(record);
    const CaseRecord again = parse_case_record(text, "case.json");
    CHECK(case_record_json(again) == text);
    CHECK(again.id == record.id);
    CHECK(again.fingerprint == record.fingerprint);
  }
  const CaseRecord coll = record_of("coll");
  REQUIRE(coll.collective() != nullptr);
  CHECK(coll.collective()->collective == "allreduce");
  CHECK(coll.collective()->ranks == 8);
  REQUIRE(coll.collective()->rows.size() == 2);
  const CollectiveRow& row = coll.collective()->rows[1];
  CHECK(row.size_bytes == 64.0 * 1024 * 1024);
  CHECK(row.redop == "sum");
  CHECK(row.busbw_Bps > 100e9);
  CHECK(row.confidence == "validated");
  CHECK(row.time_low_s < row.time_s);
  CHECK(!coll.collective()->nccl_version.empty());
  REQUIRE(coll.collective()->link_usage.has_value());  // the study's last case on the machine
  CHECK_FALSE(coll.collective()->link_usage->links.empty());

  const CaseRecord plan = record_of("plan");
  REQUIRE(plan.plan() != nullptr);
  CHECK(plan.plan()->layout.tp == 2);
  CHECK(plan.plan()->mode == PlanMode::kTrain);
  CHECK(plan.plan()->step_time_s > 0);
  CHECK_FALSE(plan.plan()->comms.empty());

  const CaseRecord search = record_of("search");
  REQUIRE(search.search() != nullptr);
  CHECK_FALSE(search.search()->empty());
  CHECK(search.plan() == nullptr);

  const CaseRecord refused = record_of("refused");
  CHECK_FALSE(refused.ok());
  CHECK(std::holds_alternative<std::monostate>(refused.answer));

  const CaseRecord serve = record_of("serve");
  REQUIRE(serve.serve() != nullptr);
  CHECK(serve.serve()->run.requests == 20);
  CHECK(serve.serve()->run.ttft_s.p50 > 0);
  CHECK(serve.serve()->max_rate_requests_per_s.has_value());
}

TEST_CASE("case record: a field of the wrong type is refused with its path") {
  std::string text = case_record_json(record_of("coll"));
  const std::string number = "\"busbw_GBps\": ";
  const size_t at = text.find(number) + number.size();
  text.replace(at, text.find(',', at) - at, "\"fast\"");
  try {
    parse_case_record(text, "s0/cases/allreduce_dgx-h100.json");
    FAIL("a broken field was read");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "s0/cases/allreduce_dgx-h100.json: error: field collective.rows[0].busbw_GBps: "
          "expected a number, found a string");
  }
  std::string plan = case_record_json(record_of("plan"));
  const std::string tp = "\"tp\": 2";
  plan.replace(plan.find(tp), tp.size(), "\"tp\": 2.5");
  CHECK_THROWS_WITH_AS(parse_case_record(plan, "p.json"),
                       "p.json: error: field plan.layout.tp: expected an integer, found a number",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_case_record("{\"id\": \"x\"}", "x.json"),
                       "x.json: error: field index: missing", ConfigError);
  CHECK_THROWS_WITH_AS(parse_case_record("[1]", "x.json"),
                       "x.json: error: the document: expected an object, found an array",
                       ConfigError);
}

TEST_CASE("manifest: reads back into the manifest it was written from") {
  const Scenario s = parse_inline(kEveryKind);
  const std::string text = render_manifest(s);
  const ScenarioManifest m = parse_manifest(text, "manifest.json");
  CHECK(m.cases_total == s.cases.size());
  CHECK(m.cases.front().file == s.cases.front().file_stem + ".json");
  CHECK(manifest_json(m) == text);
}

}  // namespace
}  // namespace linksim
