// SPDX-License-Identifier: Apache-2.0
// A scenario's questions: reading them with positioned errors, and the answers assembled from
// the case records (hand-made records with hand-derived sentences, and a real run whose
// answer quotes the planner's own numbers).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "linksim/scenario_report.hpp"
#include "linksim/units.hpp"
#include "scenario/scenario_support.hpp"

namespace linksim {
namespace {

using testing::parse_error;
using testing::parse_inline;

const char* const kStudies = R"(machines:
  - topology: dgx-h100.yaml
  - topology: dual-4090.yaml
collectives:
  - {name: busbw, ops: allreduce, sizes: [1M, 1G]}
plans:
  - {name: serve, model: llama3.1-8b, mode: decode, g: 2, tp: 2, batch: 1, kv_len: 1024}
)";

TEST_CASE("questions: read in order with their studies, metric and size") {
  const Scenario s = parse_inline(std::string(kStudies) + R"(questions:
  - ask: How fast per token?
    studies: serve
    metric: tpot
  - {ask: Which AllReduce is faster, studies: [busbw], metric: busbw, size: 64M}
)");
  REQUIRE(s.questions.size() == 2);
  CHECK(s.questions[0].ask == "How fast per token?");
  CHECK(s.questions[0].studies == std::vector<std::string>{"serve"});
  CHECK(s.questions[0].metric == "tpot");
  CHECK(s.questions[0].size_bytes == 0);
  CHECK(s.questions[1].metric == "busbw");
  CHECK(s.questions[1].size_bytes == 64.0 * 1024 * 1024);
}

TEST_CASE("questions: positioned errors") {
  struct ErrorCase {
    const char* question;
    int line, column;
    const char* message;
  };
  // The question is the text's line 9 (the studies take lines 1-7, "questions:" line 8).
  const std::vector<ErrorCase> cases = {
      {"  - {ask: q, studies: serv, metric: tpot}", 9, 23,
       "unknown study \"serv\"; did you mean \"serve\"?"},
      {"  - {ask: q, studies: serve, metric: latency}", 9, 38,
       "expected one of tpot, ttft, step_time, tokens_per_s, scaling, busbw, ttft_p50, ttft_p99, "
       "tpot_p50, tpot_p99, goodput, max_rate, got \"latency\""},
      {"  - {ask: q, studies: serve, metric: busbw}", 9, 23,
       "metric \"busbw\" compares collective studies, but \"serve\" is a plan study"},
      {"  - {ask: q, studies: busbw, metric: tpot}", 9, 23,
       "metric \"tpot\" compares plan studies, but \"busbw\" is a collective study"},
      {"  - {ask: q, studies: serve, metric: tpot, size: 1G}", 9, 50,
       "size applies to busbw, not to \"tpot\""},
      {"  - {ask: q, studies: busbw, metric: busbw, size: big}", 9, 51,
       "expected a size such as 64M or 1G, got \"big\""},
      {"  - {ask: q, studies: [], metric: tpot}", 9, 23, "expected at least one study, got an empty list"},
      {"  - {ask: q, studie: serve, metric: tpot}", 9, 14,
       "unknown key \"studie\"; did you mean \"studies\"?"},
      {"  - {ask: '', studies: serve, metric: tpot}", 9, 11,
       "expected the question's text, got an empty string"},
  };
  for (const ErrorCase& c : cases) {
    CAPTURE(c.question);
    const ConfigError e = parse_error(std::string(kStudies) + "questions:\n" + c.question + "\n");
    CHECK(e.message() == c.message);
    CHECK(e.where().line == c.line);
    CHECK(e.where().column == c.column);
  }
  const ConfigError none = parse_error(std::string(kStudies) + "questions: []\n");
  CHECK(none.message() == "expected at least one question, got an empty list");
}

// A decode plan's case record with the fields the answers read.
CaseRecord decode_record(const std::string& machine, double tpot_s, double exposed_s,
                         const std::string& bottleneck) {
  CaseRecord r;
  r.id = "serve/" + machine;
  r.study = "serve";
  r.kind = "plan";
  r.machine = machine;
  r.gpus = 2;
  PlanResult plan;
  plan.mode = PlanMode::kDecode;
  plan.step_time_s = tpot_s;
  plan.tpot_s = tpot_s;
  plan.breakdown.compute_s = tpot_s - exposed_s;
  plan.breakdown.exposed_comm_s = exposed_s;
  plan.memory.total = 20 * kGB;
  plan.memory.capacity = 25.8 * kGB;
  plan.memory.fits = true;
  PlanComm comm;
  comm.kind = "tp";
  comm.collective = CollectiveOp::kAllReduce;
  comm.exposed_s = exposed_s;
  comm.bottleneck = bottleneck;
  plan.comms.push_back(comm);
  r.answer = PlanCaseRecord{plan, std::nullopt};
  return r;
}

ScenarioManifest manifest_asking_tpot() {
  ScenarioManifest m;
  m.scenario = "s";
  m.title = "t";
  m.cases_total = 2;
  m.questions.push_back({"Does it need NVLink?", {"serve"}, "tpot", 0});
  return m;
}

TEST_CASE("render_answers: one phrase per case, then the comparison, from hand-made records") {
  const ScenarioManifest kManifest = manifest_asking_tpot();
  // 10 ms with 1 ms exposed = 10 %; 40 ms with 30 ms exposed = 75 % (>= 50 %: decisive);
  // 40 / 10 = 4.0x.
  const std::string text = render_answers(
      kManifest, {decode_record("nvlink-box", 0.010, 0.001, "gpu0->nvswitch0"),
                  decode_record("pcie-box", 0.040, 0.030, "host-staged copy gpu0->gpu1")});
  CHECK(text ==
        "Q1. Does it need NVLink?\n"
        "  - nvlink-box: 10.0 ms per token, communication 1.00 ms (10 % of it) (mostly tp "
        "allreduce bound by gpu0->nvswitch0)\n"
        "  - pcie-box: 40.0 ms per token, communication 30.0 ms (75 % of it) (mostly tp "
        "allreduce bound by host-staged copy gpu0->gpu1)\n"
        "  => The interconnect decides: communication takes 75 % of the time on pcie-box (tp "
        "allreduce bound by host-staged copy gpu0->gpu1) against 10 % on nvlink-box. nvlink-box "
        "is 4.0x quicker than pcie-box.\n"
        "\n");
  // Below 5 % everywhere the interconnect is called irrelevant.
  const std::string quiet = render_answers(
      kManifest, {decode_record("a", 0.010, 0.0001, "x"), decode_record("b", 0.020, 0.0002, "y")});
  CHECK(quiet.find("  => The interconnect hardly matters: communication is at most 1 % of the "
                   "time on every machine; what differs is the GPUs. a is 2.0x quicker than b.\n") !=
        std::string::npos);
  // Nothing communicated at all (one GPU each): the interconnect plays no part.
  const std::string none = render_answers(
      kManifest, {decode_record("a", 0.010, 0, "none"), decode_record("b", 0.030, 0, "none")});
  CHECK(none.find("  - a: 10.0 ms per token, communication 0 s (0 % of it)\n") != std::string::npos);
  CHECK(none.find("  => The interconnect plays no part: nothing is communicated on any machine; "
                  "what differs is the GPUs. a is 3.0x quicker than b.\n") != std::string::npos);
  CHECK(render_answers(ScenarioManifest{}, std::vector<CaseRecord>{}).empty());
}

TEST_CASE("render_answers: a real run quotes the planner's numbers") {
  const Scenario s = parse_inline(std::string(kStudies) + R"(questions:
  - {ask: Per token, studies: serve, metric: tpot}
  - {ask: AllReduce, studies: busbw, metric: busbw}
)");
  RunOptions options;
  const std::vector<CaseResult> results = run_scenario(s, options);
  std::vector<std::string> documents;
  for (size_t i = 0; i < s.cases.size(); ++i) documents.push_back(render_case_json(s.cases[i], results[i]));
  const ScenarioManifest manifest = parse_manifest(render_manifest(s), "the manifest");
  const std::string text = render_answers(manifest, testing::records_of(documents));
  for (size_t i = 0; i < s.cases.size(); ++i) {
    CAPTURE(s.cases[i].id);
    const CaseResult& r = results[i];
    if (r.plan) {
      const PlanResult& p = *r.plan->plan;
      const std::string phrase = fmt::format(
          "  - {}: {} per token, communication {} ({:.0f} % of it)", s.cases[i].machine,
          format_duration(*p.tpot_s), format_duration(p.breakdown.exposed_comm_s),
          100 * p.breakdown.exposed_comm_s / p.step_time_s);
      CHECK(text.find(phrase) != std::string::npos);
    } else {
      const CollectiveRow& last = r.collective->report.rows.back();
      const std::string phrase = fmt::format("  - {}: allreduce busbw {:.1f} GB/s at 1 GiB",
                                             s.cases[i].machine, last.busbw_Bps / 1e9);
      CHECK(text.find(phrase) != std::string::npos);
    }
  }
  CHECK(text.find("Q2. AllReduce\n") != std::string::npos);
  CHECK(text.find("  => dgx-h100 moves ") != std::string::npos);
}

}  // namespace
}  // namespace linksim
