// SPDX-License-Identifier: Apache-2.0
// `linksim accept`: the sheet's commands and thresholds, and the check of real tables (one
// within band passes, one below fails with the mechanism that explains it).
#include <doctest/doctest.h>

#include <fmt/core.h>

#include <string>

#include "linksim/acceptance.hpp"
#include "linksim/error.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/units.hpp"
#include "support/test_topologies.hpp"
#include "support/validation_data.hpp"

namespace {

using linksim::AcceptanceCheck;
using linksim::AcceptanceSheet;
using linksim::CollectiveOp;
using linksim::Topology;
using linksim::testing::library_topology;

// An all_reduce_perf table of `ranks` ranks (modern layout) whose busbw at each size is
// `busbw_GBps[i]`; algbw and time follow from nccl-tests' definitions.
std::string table_text(int ranks, const std::vector<double>& sizes,
                       const std::vector<double>& busbw_GBps) {
  std::string text = fmt::format("# collective: all_reduce\n# gpus_per_node: {}\n# nodes: 1\n"
                                 "#       size    count   type   redop    root     time   algbw"
                                 "   busbw #wrong\n",
                                 ranks);
  const double factor = 2.0 * (ranks - 1) / ranks;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const double algbw = busbw_GBps[i] / factor;
    const double time_us = sizes[i] / (algbw * 1e9) * 1e6;
    text += fmt::format("{:>12.0f} {:>8.0f}  float     sum      -1  {:>7.2f}  {:>6.2f}  {:>6.2f}  0\n",
                        sizes[i], sizes[i] / 4, time_us, algbw, busbw_GBps[i]);
  }
  return text;
}

}  // namespace

TEST_SUITE("calibration") {
  TEST_CASE("accept: the sheet's commands and thresholds (the slow end of each band)") {
    const Topology t = library_topology("dgx-h100.yaml");
    const AcceptanceSheet sheet = linksim::acceptance_sheet(t, t.gpus(), {});
    CHECK(sheet.ranks == 8);
    CHECK(sheet.nodes == 1);
    REQUIRE(sheet.runs.size() == 4);
    CHECK(sheet.runs[0].op == CollectiveOp::kAllReduce);
    CHECK(sheet.runs[0].command == "./build/all_reduce_perf -b 64M -e 4G -f 4 -g 8 -d float");
    CHECK(sheet.runs[3].command == "./build/alltoall_perf -b 64M -e 4G -f 4 -g 8 -d float");
    for (const linksim::AcceptanceRun& run : sheet.runs) {
      REQUIRE(run.sizes.size() == 4);
      for (const linksim::AcceptanceSize& s : run.sizes) {
        CHECK(s.threshold_busbw_Bps == s.predicted_busbw_Bps / s.band.high_factor);
        CHECK(s.threshold_busbw_Bps <= s.predicted_busbw_Bps);
        CHECK(s.threshold_busbw_Bps > 0);
      }
    }
    const Topology cluster = library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    linksim::AcceptanceRequest two;
    two.collectives = {CollectiveOp::kAllGather};
    two.sizes_bytes = {1073741824, 3221225472};
    const AcceptanceSheet across = linksim::acceptance_sheet(cluster, cluster.gpus(), two);
    CHECK(across.nodes == 2);
    // 1G and 3G are no sweep of one integer factor: one run per size, 16 processes.
    CHECK(across.runs[0].command ==
          "mpirun -np 16 -N 8 ./build/all_gather_perf -b 1G -e 1G -f 2 -g 1 -d float && "
          "mpirun -np 16 -N 8 ./build/all_gather_perf -b 3G -e 3G -f 2 -g 1 -d float");
  }

  TEST_CASE("accept --check: a table within the band passes, one below it fails") {
    const Topology t = library_topology("dgx-h100.yaml");
    linksim::AcceptanceRequest request;
    request.collectives = {CollectiveOp::kAllReduce};
    const AcceptanceSheet sheet = linksim::acceptance_sheet(t, t.gpus(), request);
    std::vector<double> sizes, at_prediction, below;
    for (const linksim::AcceptanceSize& s : sheet.runs[0].sizes) {
      sizes.push_back(s.size_bytes);
      at_prediction.push_back(s.predicted_busbw_Bps / linksim::kGB);
      below.push_back(0.9 * s.threshold_busbw_Bps / linksim::kGB);
    }
    const auto check = [&](const std::vector<double>& busbw) {
      const std::vector<linksim::NcclTestsTable> tables = {
          linksim::parse_nccl_tests_output(table_text(8, sizes, busbw), "run.txt")};
      return linksim::check_acceptance(t, {}, tables);
    };
    const AcceptanceCheck good = check(at_prediction);
    CHECK(good.failed == 0);
    CHECK(good.rows.size() == 4);
    const AcceptanceCheck bad = check(below);
    CHECK(bad.failed == 4);
    for (const linksim::AcceptanceRowCheck& r : bad.rows) {
      CHECK_FALSE(r.passed);
      CHECK(r.line >= 5);
      CHECK_FALSE(r.likeliest.key.empty());
    }
  }

  TEST_CASE("accept --check: a real healthy 8xH100 table passes on dgx-h100") {
    const Topology t = library_topology("dgx-h100.yaml");
    const std::string file =
        linksim::testing::validation_file("nccl-tests/53-h100x8-1node-all_reduce-xxrjun.txt");
    const AcceptanceCheck check =
        linksim::check_acceptance(t, {}, linksim::load_nccl_tests_outputs(file));
    CHECK(check.rows.size() == 10);  // 32 MiB to 16 GiB
    CHECK(check.failed == 0);
  }

  TEST_CASE("accept --check: A40s run with NCCL_P2P_DISABLE fail, and P2P off explains it") {
    // 06-...: 4 A40s (GPUs 0,1,6,7) with NCCL_P2P_DISABLE=1: 1.35-1.44 GB/s busbw.
    const Topology t = library_topology("a40-8gpu-nvlink-pairs.yaml");
    linksim::GpuSelection gpus;
    gpus.list = "0,1,6,7";
    const std::string file = linksim::testing::validation_file(
        "nccl-tests/06-a40x4-sys-p2pdisable-allreduce-llminsights.txt");
    const AcceptanceCheck check =
        linksim::check_acceptance(t, gpus, linksim::load_nccl_tests_outputs(file));
    REQUIRE(check.rows.size() == 4);
    CHECK(check.failed == 4);
    for (const linksim::AcceptanceRowCheck& r : check.rows) {
      CHECK(r.likeliest.key == "p2p-disabled");
    }
  }
}
