// SPDX-License-Identifier: Apache-2.0
// The charts and report.html of a scenario run: every chart a mixed scenario calls for, the
// same bytes whatever --jobs and for shards merged, bounded charts, and a page that names its
// command and assumptions but no time.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "linksim/runs.hpp"
#include "linksim/scenario_report.hpp"
#include "report/scenario_charts.hpp"
#include "scenario/scenario_support.hpp"

namespace linksim {
namespace {

namespace fs = std::filesystem;
using testing::parse_inline;
using testing::records_of;
using testing::ScratchDir;

// Collectives on three machines (one swept over its size), a plan swept over the same
// cluster's size: every chart family.
const char* const kMixed = R"(report:
  title: Charts of a mixed scenario
machines:
  - topology: dgx-h100.yaml
  - topology: dual-4090.yaml
  - label: cluster
    topology: dgx-h100-ib.yaml
    set: {nodes: [1, 2]}
collectives:
  - name: ar
    ops: [allreduce, allgather]
    minbytes: 1M
    maxbytes: 64M
    stepfactor: 8
plans:
  - name: train
    machines: [cluster]
    model: llama3.1-8b
    mode: train
    tp: 8
    global_batch: 64
    seq: 2048
    baseline_gpus: 8
)";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing file " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

RunDirectoryOutcome run_into(const Scenario& s, const std::string& dir, int jobs, Shard shard = {},
                             bool resume = false) {
  RunDirectoryOptions options;
  options.out_dir = dir;
  options.jobs = jobs;
  options.shard = shard;
  options.resume = resume;
  options.write_svg = true;
  options.write_html = true;
  options.version = "test";
  return run_to_directory(s, options);
}

// Every file of DIR/charts/ with its bytes, by name.
std::map<std::string, std::string> charts_in(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir + "/charts")) {
    files[entry.path().filename().string()] = slurp(entry.path().string());
  }
  return files;
}

const std::vector<std::string> kMixedCharts = {
    "busbw-ar-allgather.svg", "busbw-ar-allreduce.svg", "machine-ar-cluster.svg",
    "machine-ar-dgx-h100.svg", "machine-ar-dual-4090.svg", "memory-train.svg",
    "speedup-train.svg", "step-parts-train.svg", "step-time-train.svg", "tokens-train.svg"};

TEST_CASE("scenario charts: a mixed scenario draws every chart family, one <svg> each") {
  const Scenario s = parse_inline(kMixed);
  // Collectives: (dgx-h100, dual-4090, cluster nodes=1, nodes=2) x 2 ops; plans: 2 sizes.
  REQUIRE(s.cases.size() == 10);
  ScratchDir scratch("charts");
  const RunDirectoryOutcome outcome = run_into(s, scratch / "out", 2);
  CHECK(outcome.cases_failed == 0);
  const std::map<std::string, std::string> files = charts_in(scratch / "out");
  std::vector<std::string> names;
  for (const auto& entry : files) {
    const auto& name = entry.first;  // clang 14: CAPTURE cannot take a structured binding
    const auto& svg = entry.second;
    names.push_back(name);
    CAPTURE(name);
    CHECK(svg.rfind("<svg ", 0) == 0);
    CHECK(count(svg, "<svg") == 1);
    CHECK(svg.find("</svg>") != std::string::npos);
    CHECK(count(svg, "<title>") >= 3);  // tooltips on points, segments or links
  }
  CHECK(names == kMixedCharts);
  // The speedup chart has its ideal line: speedup = GPUs / 8 at 8 and 16 GPUs.
  const std::string& speedup = files.at("speedup-train.svg");
  CHECK(speedup.find("ideal (linear scaling): GPUs = 16, speedup = 2<") != std::string::npos);
  CHECK(speedup.find("ideal (linear scaling): GPUs = 8, speedup = 1<") != std::string::npos);

  const std::string html = slurp(scratch / "out/report.html");
  CHECK(html.find("data-chart-count=\"10\"") != std::string::npos);
  CHECK(count(html, "<svg ") == 10);
  for (const auto& [name, svg] : files) CHECK(html.find(svg) != std::string::npos);
  CHECK(html.find("<pre><code>linksim run " + testing::inline_scenario_path() +
                  " --format html</code></pre>") != std::string::npos);
  CHECK(html.find("<dt>ar: NCCL switches</dt><dd>NCCL_P2P_DISABLE=0 NCCL_NVLS_ENABLE=1</dd>") !=
        std::string::npos);
  CHECK(html.find("<dt>GPUs (catalog keys)</dt><dd>h100-sxm, rtx4090</dd>") != std::string::npos);
  CHECK(html.find("<dt>train: planner</dt>") != std::string::npos);
  CHECK(html.find("<h3>Collective cases</h3>") != std::string::npos);
  CHECK(html.find("<h3>Plans</h3>") != std::string::npos);
  // Self-contained and timeless: no URL but the SVG namespace, no time.
  CHECK(count(html, "http") == count(html, "http://www.w3.org/2000/svg"));
  CHECK(html.find(" src=") == std::string::npos);
  CHECK(html.find("Generated") == std::string::npos);
  CHECK(html.find("generated") == std::string::npos);
}

TEST_CASE("scenario charts: the link usage is kept by the last case of each study and machine") {
  const Scenario s = parse_inline(kMixed);
  std::vector<std::string> marked;
  for (const ScenarioCase& c : s.cases) {
    if (c.record_link_usage) marked.push_back(c.id);
  }
  CHECK(marked == std::vector<std::string>{"ar/dgx-h100/ops=allgather", "ar/dual-4090/ops=allgather",
                                           "ar/cluster/nodes=2,ops=allgather"});
  ScratchDir scratch("usage");
  run_into(s, scratch / "out", 1);
  for (const ScenarioCase& c : s.cases) {
    CAPTURE(c.id);
    const std::string doc = slurp(scratch / ("out/cases/" + c.file_stem + ".json"));
    CHECK((doc.find("\"link_usage\"") != std::string::npos) == c.record_link_usage);
  }
  CHECK(slurp(scratch / "out/results.json").find("link_usage") == std::string::npos);
}

TEST_CASE("scenario charts: report and charts are byte-identical for --jobs 1 and 2, shards "
          "merged and a resumed run") {
  const Scenario s = parse_inline(kMixed);
  ScratchDir scratch("charts-same");
  run_into(s, scratch / "one", 1);
  run_into(s, scratch / "two", 2);
  run_into(s, scratch / "s0", 1, parse_shard("0/2"));
  run_into(s, scratch / "s1", 2, parse_shard("1/2"));
  RunDirectoryOptions merge;
  merge.out_dir = scratch / "merged";
  merge.write_svg = true;
  merge.write_html = true;
  merge.version = "test";
  merge_directories({scratch / "s1", scratch / "s0"}, merge);
  const std::string html = slurp(scratch / "one/report.html");
  const auto charts = charts_in(scratch / "one");
  CHECK(charts.size() == kMixedCharts.size());
  for (const char* dir : {"two", "merged"}) {
    CAPTURE(dir);
    CHECK(slurp(scratch / (std::string(dir) + "/report.html")) == html);
    CHECK(charts_in(scratch / dir) == charts);
  }
  fs::remove(scratch / ("one/cases/" + s.cases.back().file_stem + ".json"));
  fs::remove(scratch / ("one/cases/" + s.cases[2].file_stem + ".json"));
  const RunDirectoryOutcome resumed = run_into(s, scratch / "one", 2, {}, true);
  CHECK(resumed.cases_run == 2);
  CHECK(slurp(scratch / "one/report.html") == html);
  CHECK(charts_in(scratch / "one") == charts);
}

TEST_CASE("scenario charts: a line chart draws at most 12 of many cases and says so") {
  // 14 channel counts on one machine: 14 curves, of which 12 are drawn.
  const Scenario s = parse_inline(R"(machines: [{topology: dual-4090.yaml}]
collectives:
  - {name: ch, ops: allreduce, sizes: [1M, 16M], channels: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]}
)");
  REQUIRE(s.cases.size() == 14);
  RunOptions options;
  options.jobs = 2;
  const std::vector<CaseResult> results = run_scenario(s, options);
  std::vector<std::string> documents;
  for (size_t i = 0; i < results.size(); ++i) documents.push_back(render_case_json(s.cases[i], results[i]));
  const std::vector<ScenarioChart> charts = render_scenario_charts(records_of(documents));
  REQUIRE(charts.size() == 2);  // the busbw curves and the one machine
  CHECK(charts[0].file_stem == "busbw-ch-allreduce");
  CHECK(count(charts[0].svg, "class=\"series\"") == 12);
  CHECK(charts[0].caption.find("12 of 14 cases shown, evenly spread in case order") != std::string::npos);
  // Cases i * 13 / 11 for i = 0..11: the first and the last drawn, the 7th and 13th not.
  for (const char* drawn : {"1", "2", "6", "8", "12", "14"}) {
    CAPTURE(drawn);
    CHECK(charts[0].svg.find(std::string("data-series=\"dual-4090/channels=") + drawn + "\"") !=
          std::string::npos);
  }
  for (const char* left_out : {"7", "13"}) {
    CAPTURE(left_out);
    CHECK(charts[0].svg.find(std::string("data-series=\"dual-4090/channels=") + left_out + "\"") ==
          std::string::npos);
  }
  CHECK(charts[1].file_stem == "machine-ch-dual-4090");
}

TEST_CASE("scenario charts: a machine that no longer matches its link usage is an error") {
  const Scenario s = parse_inline("machines: [{topology: dual-4090.yaml}]\n"
                                  "collectives: [{ops: allreduce, sizes: [1M]}]\n");
  const CaseResult result = run_scenario(s, {}).front();
  const std::string doc = render_case_json(s.cases[0], result);
  REQUIRE(render_scenario_charts(records_of({doc})).size() == 2);
  const auto error_of = [&](const std::string& changed) -> std::string {
    try {
      render_scenario_charts(records_of({changed}));
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  // A link id past the machine's links: the first entry of "links" becomes link 9999.
  std::string bad_link = doc;
  const size_t links = bad_link.find("\"links\": [");
  REQUIRE(links != std::string::npos);
  const size_t first_id = bad_link.find_first_of("0123456789", links);
  const size_t id_end = bad_link.find_first_not_of("0123456789", first_id);
  bad_link.replace(first_id, id_end - first_id, "9999");
  CHECK(error_of(bad_link).find("case \"coll-allreduce/dual-4090\": link 9999 of its link_usage "
                                "is not in its machine") != std::string::npos);
  // A topology file that is gone.
  std::string gone = doc;
  const std::string file = "/topologies/dual-4090.yaml";
  gone.replace(gone.find(file), file.size(), "/topologies/no-such-machine.yaml");
  CHECK(error_of(gone).find("the machine of case \"coll-allreduce/dual-4090\"") != std::string::npos);
}

TEST_CASE("scenario charts: a layout search draws its 12 best layouts; one GPU draws no curve") {
  const Scenario s = parse_inline(R"(machines: [{topology: dgx-h100.yaml}]
collectives: [{name: one, ops: allreduce, sizes: [1M, 1G], g: 1}]
plans: [{name: best, model: llama3.1-8b, mode: train, tp: search, global_batch: 64}]
)");
  const std::vector<CaseResult> results = run_scenario(s, {});
  REQUIRE(results.size() == 2);
  REQUIRE(results[1].plan->ranking.size() > 12);
  std::vector<std::string> documents;
  for (size_t i = 0; i < results.size(); ++i) documents.push_back(render_case_json(s.cases[i], results[i]));
  const std::vector<ScenarioChart> charts = render_scenario_charts(records_of(documents));
  // A single rank moves no data: busbw 0 cannot be drawn, and there is no link to colour.
  REQUIRE(charts.size() == 1);
  CHECK(charts[0].file_stem == "ranking-best-dgx-h100");
  CHECK(count(charts[0].svg, "<g class=\"bar\"") == 12);
  CHECK(charts[0].svg.find("data-bar=\"#1 tp") != std::string::npos);
  CHECK(charts[0].svg.find("data-bar=\"#12 tp") != std::string::npos);
  CHECK(charts[0].svg.find("data-bar=\"#13 tp") == std::string::npos);
  CHECK(charts[0].caption.find(fmt::format("The best 12 of {} layouts", results[1].plan->ranking.size())) !=
        std::string::npos);
}

TEST_CASE("scenario charts: the evenly spread choice keeps both ends and never repeats") {
  CHECK(detail::spread_choice(3, 12) == std::vector<size_t>{0, 1, 2});
  CHECK(detail::spread_choice(0, 12).empty());
  // i * 13 / 11 for i = 0..11: 0 1 2 3 4 5 7 8 9 10 11 13.
  CHECK(detail::spread_choice(14, 12) == std::vector<size_t>{0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 13});
  const std::vector<size_t> many = detail::spread_choice(1000, 12);
  REQUIRE(many.size() == 12);
  CHECK(many.front() == 0);
  CHECK(many.back() == 999);
  for (size_t i = 1; i < many.size(); ++i) CHECK(many[i] > many[i - 1]);
}

}  // namespace
}  // namespace linksim
