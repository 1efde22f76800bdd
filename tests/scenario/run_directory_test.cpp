// SPDX-License-Identifier: Apache-2.0
// The run directory: byte-identical data whatever --jobs, shard + merge equal to a single run,
// atomic writes and resume.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "linksim/runs.hpp"
#include "linksim/scenario_report.hpp"
#include "scenario/scenario_support.hpp"

namespace linksim {
namespace {

namespace fs = std::filesystem;
using testing::parse_inline;
using testing::ScratchDir;

const char* const kScenario = R"(machines:
  - topology: dgx-h100.yaml
  - topology: dual-4090.yaml
  - topology: dgx-h100-ib.yaml
    set: {nodes: [1, 2]}
collectives:
  - ops: [allreduce, reducescatter]
    minbytes: 8K
    maxbytes: 512M
    stepfactor: 64
  - name: too-many
    machines: [dual-4090]
    ops: allreduce
    sizes: [1M]
    g: 4
)";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing file " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

RunDirectoryOutcome run_into(const Scenario& s, const std::string& dir, int jobs,
                             Shard shard = {}, bool resume = false) {
  RunDirectoryOptions options;
  options.out_dir = dir;
  options.jobs = jobs;
  options.shard = shard;
  options.resume = resume;
  return run_to_directory(s, options);
}

int tmp_files_under(const fs::path& dir) {
  int count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() == ".tmp") ++count;
  }
  return count;
}

TEST_CASE("run directory: CSV and JSON are byte-identical with 1 and 4 threads") {
  const Scenario s = parse_inline(kScenario);
  ScratchDir scratch("jobs");
  const RunDirectoryOutcome one = run_into(s, scratch / "one", 1);
  const RunDirectoryOutcome four = run_into(s, scratch / "four", 4);
  CHECK(one.cases_total == 9);
  CHECK(one.cases_run == 9);
  CHECK(one.cases_failed == 1);
  CHECK(four.cases_run == 9);
  CHECK(slurp(scratch / "one/results.csv") == slurp(scratch / "four/results.csv"));
  CHECK(slurp(scratch / "one/results.json") == slurp(scratch / "four/results.json"));
  CHECK(one.table == four.table);
  CHECK(tmp_files_under(scratch.path()) == 0);
  // The generation time lives in run-info.json alone.
  CHECK(slurp(scratch / "one/run-info.json").find("\"generated_at\"") != std::string::npos);
  CHECK(slurp(scratch / "one/results.json").find("generated") == std::string::npos);
}

TEST_CASE("run directory: the CSV has the documented columns, one row per size") {
  const Scenario s = parse_inline(kScenario);
  ScratchDir scratch("csv");
  run_into(s, scratch / "out", 2);
  std::istringstream csv(slurp(scratch / "out/results.csv"));
  std::string header, line;
  std::getline(csv, header);
  CHECK(header ==
        "case_id,case_index,study,kind,machine,topology,ops,nodes,gpu_model,gpus,servers,"
        "status,collective,sim_mode,size_bytes,count,type,time_us,algbw_GBps,busbw_GBps,"
        "algorithm,protocol,bottleneck,model,plan_mode,rank,tp,pp,dp,cp,ep,sp,zero,micro_batch,"
        "global_batch,seq,batch,kv_len,step_time_s,tokens_per_s,tokens_per_s_per_gpu,mfu,"
        "ttft_s,tpot_s,compute_s,exposed_comm_s,bubble_s,comm_time_s,comm_compute_ratio,speedup,"
        "scaling_efficiency,memory_total_GB,memory_capacity_GB,fits,verdict,error");
  int rows = 0, error_rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    if (line.find(",error,") != std::string::npos) ++error_rows;
  }
  // 8 collective cases x 3 sizes (8K, 512K, 32M; 2G is past maxbytes) + 1 error row.
  CHECK(rows == 8 * 3 + 1);
  CHECK(error_rows == 1);
}

TEST_CASE("run directory: shard 0/2 and 1/2 merged equal a single run byte for byte") {
  const Scenario s = parse_inline(kScenario);
  ScratchDir scratch("shards");
  run_into(s, scratch / "single", 2);
  const RunDirectoryOutcome a = run_into(s, scratch / "s0", 1, parse_shard("0/2"));
  const RunDirectoryOutcome b = run_into(s, scratch / "s1", 2, parse_shard("1/2"));
  CHECK(a.cases_selected == 5);
  CHECK(b.cases_selected == 4);
  RunDirectoryOptions merge;
  merge.out_dir = scratch / "merged";
  const RunDirectoryOutcome merged = merge_directories({scratch / "s1", scratch / "s0"}, merge);
  CHECK(merged.cases_selected == 9);
  CHECK(slurp(scratch / "merged/results.csv") == slurp(scratch / "single/results.csv"));
  CHECK(slurp(scratch / "merged/results.json") == slurp(scratch / "single/results.json"));
  CHECK(slurp(scratch / "merged/manifest.json") == slurp(scratch / "single/manifest.json"));

  // One shard alone is not the whole scenario.
  merge.out_dir = scratch / "partial";
  CHECK_THROWS_WITH_AS(
      merge_directories({scratch / "s0"}, merge),
      "linksim: error: merge: 4 of 9 cases are in none of the directories (first: "
      "\"coll/dgx-h100/ops=reducescatter\"); run the missing shards, or `linksim run --resume` "
      "into one of them",
      ConfigError);
  // Shards of another scenario do not mix.
  const Scenario other = parse_inline("machines: [{topology: dual-4090.yaml}]\n"
                                      "collectives: [{ops: allreduce, sizes: [1M]}]\n");
  run_into(other, scratch / "other", 1);
  CHECK_THROWS_WITH_AS(merge_directories({scratch / "s0", scratch / "other"}, merge),
                       ("linksim: error: merge: \"" + (scratch / "other") +
                        "\" was run from a different scenario than \"" + (scratch / "s0") +
                        "\" (their manifest.json differ)").c_str(),
                       ConfigError);
}

TEST_CASE("run directory: a truncated file is replaced, and resume recomputes only what is missing") {
  const Scenario s = parse_inline(kScenario);
  ScratchDir scratch("resume");
  const std::string dir = scratch / "out";
  run_into(s, dir, 2);
  const std::string csv = slurp(dir + "/results.csv");
  const std::string json = slurp(dir + "/results.json");

  // An interrupted earlier write: a truncated results.csv and a truncated case file.
  { std::ofstream(dir + "/results.csv", std::ios::trunc) << csv.substr(0, csv.size() / 2); }
  const std::string truncated_case = dir + "/cases/" + s.cases[3].file_stem + ".json";
  const std::string case_text = slurp(truncated_case);
  { std::ofstream(truncated_case, std::ios::trunc) << case_text.substr(0, 40); }
  fs::remove(dir + "/cases/" + s.cases[6].file_stem + ".json");

  const RunDirectoryOutcome resumed = run_into(s, dir, 4, {}, true);
  CHECK(resumed.cases_run == 2);
  CHECK(resumed.cases_skipped == 7);
  CHECK(slurp(dir + "/results.csv") == csv);
  CHECK(slurp(dir + "/results.json") == json);
  CHECK(slurp(truncated_case) == case_text);
  CHECK(tmp_files_under(scratch.path()) == 0);
  CHECK(slurp(dir + "/run-info.json").find("\"cases_run\": 2") != std::string::npos);

  // A case file from a different definition of the case is not reused.
  std::string changed = kScenario;
  changed.replace(changed.find("stepfactor: 64"), 14, "stepfactor: 32");
  const RunDirectoryOutcome redone = run_into(parse_inline(changed), dir, 2, {}, true);
  CHECK(redone.cases_run == 8);  // every collective study case but the unchanged error case
  CHECK(redone.cases_skipped == 1);
}

TEST_CASE("run directory: write_file_atomically replaces the file and leaves no temporary") {
  ScratchDir scratch("atomic");
  const std::string path = scratch / "x.csv";
  { std::ofstream(path) << "old content that is longer"; }
  write_file_atomically(path, "new");
  CHECK(slurp(path) == "new");
  CHECK_FALSE(fs::exists(path + ".tmp"));
  CHECK_THROWS_WITH_AS(write_file_atomically(scratch / "no/such/dir/x.csv", "x"),
                       ("linksim: error: cannot write \"" + (scratch / "no/such/dir/x.csv") +
                        ".tmp\": No such file or directory").c_str(),
                       ConfigError);
}

}  // namespace
}  // namespace linksim
