// SPDX-License-Identifier: Apache-2.0
// The scenario runner on several threads: cases sharing one cached topology, flow and analytic
// queries at once, per-case files written concurrently. Built into the ThreadSanitizer tree
// (scripts/test.sh), where any data race fails the run; here it also checks that the answers
// equal a single-threaded run.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "linksim/scenario.hpp"
#include "linksim/runs.hpp"
#include "linksim/scenario_report.hpp"

namespace linksim {
namespace {

const char* const kScenario = R"(machines:
  - topology: dgx-h100.yaml
  - topology: dgx-h100-ib.yaml
    set: {nodes: [1, 2]}
collectives:
  - ops: [allreduce, allgather, reducescatter, broadcast]
    sizes: [4K, 1M, 64M]
    mode: [analytic, flow]
    algo: [auto, ring]
)";

Scenario scenario() {
  return parse_scenario(kScenario, std::string(LINKSIM_SOURCE_DIR) + "/scenarios/threads.yaml");
}

TEST_CASE("scenario runner threads: four workers answer what one worker answers") {
  const Scenario s = scenario();
  REQUIRE(s.cases.size() == 3 * 16);
  RunOptions one;
  one.jobs = 1;
  RunOptions four;
  four.jobs = 4;
  std::atomic<int> callbacks{0};
  four.on_done = [&callbacks](int, const CaseResult&) { ++callbacks; };
  const std::vector<CaseResult> serial = run_scenario(s, one);
  const std::vector<CaseResult> parallel = run_scenario(s, four);
  CHECK(callbacks.load() == static_cast<int>(s.cases.size()));
  for (size_t i = 0; i < s.cases.size(); ++i) {
    CAPTURE(s.cases[i].id);
    CHECK(render_case_json(s.cases[i], parallel[i]) == render_case_json(s.cases[i], serial[i]));
  }
}

TEST_CASE("scenario runner threads: the run directory written by four workers") {
  const Scenario s = scenario();
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("linksim-threads-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  RunDirectoryOptions options;
  options.out_dir = dir.string();
  options.jobs = 4;
  int last_done = 0;
  options.progress = [&last_done](int done, int) { last_done = done; };
  const RunDirectoryOutcome outcome = run_to_directory(s, options);
  CHECK(outcome.cases_run == static_cast<int>(s.cases.size()));
  CHECK(last_done == static_cast<int>(s.cases.size()));
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "cases")) {
    CHECK(entry.path().extension() == ".json");
    ++files;
  }
  CHECK(files == static_cast<int>(s.cases.size()));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace linksim
