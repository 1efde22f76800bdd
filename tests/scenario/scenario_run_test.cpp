// SPDX-License-Identifier: Apache-2.0
// The parallel runner: answers equal the library's direct calls, thread count does not change
// a byte, and a case the library rejects is an error row, not a failed run.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "linksim/error_bands.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/scenario_report.hpp"
#include "linksim/topology_yaml.hpp"
#include "scenario/scenario_support.hpp"

namespace linksim {
namespace {

using testing::parse_inline;

const char* const kMixed = R"(machines:
  - topology: dgx-h100.yaml
    set: {gpu: [h100-sxm, h200]}
  - topology: pcie-8gpu.yaml
  - topology: dgx-h100-ib.yaml
    set: {nodes: [1, 2]}
collectives:
  - ops: [allreduce, allgather, alltoall]
    minbytes: 1K
    maxbytes: 1G
    stepfactor: 32
  - name: flow
    machines: [pcie-8gpu, dgx-h100-ib]
    ops: allreduce
    sizes: [64K, 256M]
    mode: flow
)";

std::vector<std::string> documents(const Scenario& s, int jobs) {
  RunOptions options;
  options.jobs = jobs;
  std::vector<CaseResult> results = run_scenario(s, options);
  std::vector<std::string> docs;
  for (size_t i = 0; i < results.size(); ++i) docs.push_back(render_case_json(s.cases[i], results[i]));
  return docs;
}

TEST_CASE("scenario run: a case answers exactly what the library answers directly") {
  const Scenario s = parse_inline(kMixed);
  RunOptions options;
  options.jobs = 2;
  const std::vector<CaseResult> results = run_scenario(s, options);
  REQUIRE(results.size() == s.cases.size());
  REQUIRE(s.cases.size() == 6 + 3 + 6 + 1 + 2);

  const ScenarioCase& c = s.cases[0];
  CHECK(c.id == "coll/dgx-h100/gpu=h100-sxm,ops=allreduce");
  const CaseResult& r = results[0];
  CHECK(r.error.empty());
  CHECK(r.gpu_model == "h100-sxm");
  CHECK(r.gpus == 8);
  CHECK(r.nodes == 1);
  const Topology topology = load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100.yaml",
                                          {{"gpu", "h100-sxm"}});
  Communicator comm(topology, topology.gpus());
  const std::vector<double> sizes = {1024, 32768, 1048576, 33554432, 1073741824};
  REQUIRE(r.collective->report.rows.size() == sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    CollectiveQuery q;
    q.op = CollectiveOp::kAllReduce;
    q.size_bytes = sizes[i];
    const CollectiveResult direct = comm.run(q);
    const CollectiveRow& row = r.collective->report.rows[i];
    CHECK(row.size_bytes == sizes[i]);
    CHECK(row.count == sizes[i] / 4);
    CHECK(row.time_s == direct.time_s);
    CHECK(row.busbw_Bps == direct.busbw_Bps);
    CHECK(row.busbw_Bps == doctest::Approx(row.algbw_Bps * 2 * 7 / 8.0).epsilon(1e-12));
  }
  // AllGather's size counts every rank's block: 1K over 8 ranks is 32 floats per rank.
  const CollectiveRow& gather = results[1].collective->report.rows.front();
  CHECK(gather.size_bytes == 1024);
  CHECK(gather.count == 32);
  // The H200 case loads the same file with gpu=h200.
  CHECK(results[3].gpu_model == "h200");
  // The cluster with 2 nodes spans 16 GPUs on 2 servers.
  CHECK(s.cases[14].id == "coll/dgx-h100-ib/nodes=2,ops=alltoall");
  CHECK(results[14].gpus == 16);
  CHECK(results[14].nodes == 2);
  CHECK(s.cases[16].id == "flow/dgx-h100-ib/nodes=1");
  CHECK(results[16].collective->report.mode == "flow");
}

TEST_CASE("scenario run: a collective case's rows are coll's rows (one sweep: run_sweep)") {
  // The same sweep through the library as `linksim coll allreduce -d bf16 -o max -b 1M -e 64M
  // -f 8` would run: every field of every row equal, bands, release and reduction included.
  const Scenario s = parse_inline(R"(machines:
  - topology: dgx-h100.yaml
collectives:
  - ops: [allreduce, broadcast]
    minbytes: 1M
    maxbytes: 64M
    stepfactor: 8
    dtype: bf16
    redop: max
)");
  const std::vector<CaseResult> results = run_scenario(s, {});
  REQUIRE(results.size() == 2);
  const Topology topology =
      load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100.yaml", {});
  const Communicator comm(topology, topology.gpus());
  for (size_t i = 0; i < results.size(); ++i) {
    SweepRequest request;
    request.op = i == 0 ? CollectiveOp::kAllReduce : CollectiveOp::kBroadcast;
    request.sizes_bytes = sweep_sizes(1 << 20, 64 << 20, 8);
    request.type = *parse_data_type("bf16");
    request.redop = ReductionOp::kMax;
    const CollectiveReport want = to_collective_report(run_sweep(comm, request), topology);
    const CollectiveReport& got = results[i].collective->report;
    CHECK(got.nccl_version == want.nccl_version);
    CHECK(got.nccl_version == "2.29");
    REQUIRE(got.rows.size() == 3);
    REQUIRE(got.rows.size() == want.rows.size());
    for (size_t r = 0; r < got.rows.size(); ++r) {
      CHECK(got.rows[r].type == "bfloat16");
      CHECK(got.rows[r].redop == (i == 0 ? "max" : "none"));  // broadcast prints no reduction
      CHECK(got.rows[r].count == got.rows[r].size_bytes / 2);
      CHECK(got.rows[r].time_s == want.rows[r].time_s);
      CHECK(got.rows[r].bottleneck == want.rows[r].bottleneck);
      CHECK(got.rows[r].time_low_s == want.rows[r].time_low_s);
      CHECK(got.rows[r].time_high_s == want.rows[r].time_high_s);
      CHECK(got.rows[r].time_low_s <= got.rows[r].time_s);
      CHECK(got.rows[r].time_high_s >= got.rows[r].time_s);
      CHECK(!got.rows[r].confidence.empty());
    }
  }
}

TEST_CASE("scenario run: results do not depend on the number of threads") {
  const Scenario s = parse_inline(kMixed);
  const std::vector<std::string> one = documents(s, 1);
  CHECK(documents(s, 4) == one);
  CHECK(documents(s, 3) == one);
}

TEST_CASE("scenario run: a GPU selection the machine lacks is an error row, the others run") {
  const Scenario s = parse_inline(R"(machines: [{topology: dual-4090.yaml}, {topology: dgx-h100.yaml}]
collectives: [{ops: allreduce, sizes: [1M], g: 4}]
)");
  RunOptions options;
  options.jobs = 2;
  const std::vector<CaseResult> results = run_scenario(s, options);
  CHECK(results[0].error == "linksim: error: g: expected 1..2 GPUs, got 4");
  CHECK_FALSE(results[0].collective.has_value());
  CHECK(results[1].error.empty());
  CHECK(results[1].gpus == 4);
}

TEST_CASE("scenario run: a parameter value the topology rejects stops the run at the machine") {
  const Scenario s = parse_inline(R"(machines:
  - topology: dgx-h100.yaml
    set: {gpu: [h100-sxm, h100-sxmm]}
collectives: [{ops: allreduce, sizes: [1M]}]
)");
  RunOptions options;
  options.jobs = 2;
  try {
    run_scenario(s, options);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.where().line == 2);
    CHECK(e.where().column == 5);
    CHECK(e.message() == "machine \"dgx-h100\" does not load with gpu=h100-sxmm");
    REQUIRE(e.notes().size() == 1);
    CHECK(e.notes()[0].find("h100-sxmm") != std::string::npos);
  }
}

TEST_CASE("scenario run: shards are index mod N") {
  CHECK(parse_shard("1/3").contains(4));
  CHECK_FALSE(parse_shard("1/3").contains(5));
  CHECK(parse_shard("0/1").contains(7));
  for (const char* bad : {"3/3", "1", "-1/2", "a/b", "1/0", ""}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(parse_shard(bad),
                         ("linksim: error: --shard: expected I/N with 0 <= I < N, such as 0/4, got \"" +
                          std::string(bad) + "\"").c_str(),
                         ConfigError);
  }
}

}  // namespace
}  // namespace linksim
