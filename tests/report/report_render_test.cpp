// SPDX-License-Identifier: Apache-2.0
// Renderings of a CollectiveReport: nccl-tests-style text, JSON, CSV, side by side.
#include <doctest/doctest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "linksim/error.hpp"
#include "linksim/report.hpp"

namespace {

using linksim::CollectiveReport;
using linksim::CollectiveRow;

// A small AllReduce sweep on 8 ranks, busbw = algbw * 2(8-1)/8 = algbw * 1.75:
//   1 KiB in 25.5 us: algbw = 1024 / 25.5e-6 = 40.157 MB/s, busbw 70.27 MB/s
//   1 GiB in 4000 us: algbw = 2^30 / 4e-3 = 268.435456 GB/s, busbw 469.762048 GB/s
//   8 GiB in 32000 us: the same bandwidths.
CollectiveReport small_report() {
  CollectiveReport report;
  report.topology = "dgx_h100";
  report.collective = "allreduce";
  report.ranks = 8;
  report.mode = "flow";
  report.notes = {"NVLS on: busbw may exceed the per-GPU link rate"};
  const double small_algbw_Bps = 1024 / 25.5e-6;
  report.rows.push_back({1024, 256, "float", "sum", -1, 25.5e-6, small_algbw_Bps,
                         small_algbw_Bps * 1.75, "ring", "ll", "gpu0->nvswitch0"});
  report.rows.push_back({1073741824, 268435456, "float", "sum", -1, 4000e-6, 268.435456e9,
                         469.762048e9, "nvls", "simple", "nvswitch0 (in-switch reduction)"});
  report.rows.push_back({8589934592, 2147483648, "float", "sum", -1, 32000e-6, 268.435456e9,
                         469.762048e9, "nvls", "simple", "nvswitch0 (in-switch reduction)"});
  return report;
}

}  // namespace

TEST_SUITE("report") {
  TEST_CASE("render_text: nccl-tests columns, widths and time precision") {
    // Expected text generated with Python's printf using nccl-tests' formats
    // ("%12li  %12li  %8s  %6s  %6i", then time "%7.2f" below 100 us, "%7.1f" below
    // 10000 us, "%7.0f" above, "%6.2f" GB/s). Average busbw = (0.0702745 + 2 * 469.762048)
    // / 3 = 313.198 ("%g").
    const std::string expected =
        "# linksim allreduce: 8 ranks on dgx_h100, mode flow\n"
        "# note: NVLS on: busbw may exceed the per-GPU link rate\n"
        "#\n"
        "#       size         count      type   redop    root     time   algbw   busbw  "
        "algorithm  protocol  bottleneck\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n"
        "        1024           256     float     sum      -1    25.50    0.04    0.07  "
        "ring       ll        gpu0->nvswitch0\n"
        "  1073741824     268435456     float     sum      -1   4000.0  268.44  469.76  "
        "nvls       simple    nvswitch0 (in-switch reduction)\n"
        "  8589934592    2147483648     float     sum      -1    32000  268.44  469.76  "
        "nvls       simple    nvswitch0 (in-switch reduction)\n"
        "# Avg bus bandwidth    : 313.198\n";
    CHECK(linksim::render_text(small_report()) == expected);
  }

  TEST_CASE("render_text: long algorithm names widen their column; no rows, no footer") {
    CollectiveReport report = small_report();
    report.notes.clear();
    report.rows.resize(1);
    report.rows[0].algorithm = "hierarchical";  // 12 characters > "algorithm"
    const std::string text = linksim::render_text(report);
    CHECK(text.find("busbw  algorithm     protocol  bottleneck\n") != std::string::npos);
    CHECK(text.find("0.07  hierarchical  ll        gpu0->nvswitch0\n") != std::string::npos);
    report.rows.clear();
    CHECK(linksim::render_text(report).find("Avg bus bandwidth") == std::string::npos);
  }

  TEST_CASE("format_nccl_time_us: nccl-tests' three precisions") {
    CHECK(linksim::format_nccl_time_us(36.47) == "  36.47");
    CHECK(linksim::format_nccl_time_us(99.994) == "  99.99");
    CHECK(linksim::format_nccl_time_us(100.0) == "  100.0");
    CHECK(linksim::format_nccl_time_us(9999.94) == " 9999.9");
    CHECK(linksim::format_nccl_time_us(10000.0) == "  10000");
    CHECK(linksim::format_nccl_time_us(1121937.0) == "1121937");
  }

  TEST_CASE("render_json: one object with the contract's field names, round trip") {
    const nlohmann::json doc = nlohmann::json::parse(linksim::render_json(small_report()));
    CHECK(doc.at("topology") == "dgx_h100");
    CHECK(doc.at("collective") == "allreduce");
    CHECK(doc.at("ranks") == 8);
    CHECK(doc.at("mode") == "flow");
    CHECK(doc.at("notes").size() == 1);
    const nlohmann::json& results = doc.at("results");
    REQUIRE(results.size() == 3);
    const nlohmann::json& first = results.at(0);
    CHECK(first.size() == 11);
    CHECK(first.at("size_bytes").is_number_integer());
    CHECK(first.at("size_bytes") == 1024);
    CHECK(first.at("count") == 256);
    CHECK(first.at("type") == "float");
    CHECK(first.at("redop") == "sum");
    CHECK(first.at("root") == -1);
    // 25.5e-6 s is 25.5 us exactly after rounding to 10 significant digits.
    CHECK(first.at("time_us").get<double>() == 25.5);
    CHECK(first.at("algbw_GBps").get<double>() == doctest::Approx(1024 / 25.5e-6 / 1e9));
    CHECK(first.at("busbw_GBps").get<double>() == doctest::Approx(1.75 * 1024 / 25.5e-6 / 1e9));
    CHECK(first.at("algorithm") == "ring");
    CHECK(first.at("protocol") == "ll");
    CHECK(first.at("bottleneck") == "gpu0->nvswitch0");
    CHECK(results.at(2).at("size_bytes").get<std::uint64_t>() == 8589934592ULL);
    CHECK(results.at(2).at("busbw_GBps").get<double>() == 469.762048);
  }

  TEST_CASE("render_csv: header row and quoted fields") {
    CollectiveReport report = small_report();
    report.rows.resize(2);
    report.nccl_version = "2.29";
    const std::string csv = linksim::render_csv(report);
    const std::string header =
        "topology,collective,ranks,mode,size_bytes,count,type,redop,root,time_us,algbw_GBps,"
        "busbw_GBps,algorithm,protocol,bottleneck,nccl_version,time_low_us,time_high_us,"
        "confidence\n";
    CHECK(csv.substr(0, header.size()) == header);
    // Row 2: 4000 us, 268.435456 and 469.762048 GB/s; the bottleneck has no comma, so no
    // quotes. 1024 / 25.5e-6 / 1e9 = 0.04015686275 (10 significant digits).
    CHECK(csv.find("dgx_h100,allreduce,8,flow,1073741824,268435456,float,sum,-1,4000,"
                   "268.435456,469.762048,nvls,simple,nvswitch0 (in-switch reduction),2.29,,,\n") !=
          std::string::npos);
    CHECK(csv.find(",1024,256,float,sum,-1,25.5,0.04015686275,") != std::string::npos);
    report.rows[0].bottleneck = "a \"b\", c";
    CHECK(linksim::render_csv(report).find(",ll,\"a \"\"b\"\", c\",2.29,,,\n") != std::string::npos);
    // A row with its band: 20 to 30 us, validated.
    report.rows[0].time_low_s = 20e-6;
    report.rows[0].time_high_s = 30e-6;
    report.rows[0].confidence = "validated";
    CHECK(linksim::render_csv(report).find(",2.29,20,30,validated\n") != std::string::npos);
  }

  TEST_CASE("render_side_by_side: one busbw column per topology over the union of sizes") {
    CollectiveReport pcie;
    pcie.topology = "pcie_4090";
    pcie.collective = "allreduce";
    pcie.ranks = 2;
    pcie.rows.push_back({1024, 256, "float", "sum", -1, 1, 0.5e9, 0.5e9, "", "", ""});
    pcie.rows.push_back({1048576, 262144, "float", "sum", -1, 1, 10.25e9, 10.25e9, "", "", ""});
    CollectiveReport nvlink;
    nvlink.topology = "dgx_h100";
    nvlink.collective = "allreduce";
    nvlink.ranks = 8;
    nvlink.rows.push_back({1048576, 262144, "float", "sum", -1, 1, 1, 120e9, "", "", ""});
    nvlink.rows.push_back({1073741824, 268435456, "float", "sum", -1, 1, 1, 469.76e9, "", "", ""});
    // Columns are max(8, len(label), len("allreduce xN") = 12) wide; Python printf reference.
    const std::string expected =
        "# busbw (GB/s, GB = 1e9 bytes/s) by message size\n"
        "#       size     pcie_4090      dgx_h100\n"
        "#        (B)  allreduce x2  allreduce x8\n"
        "        1024          0.50             -\n"
        "     1048576         10.25        120.00\n"
        "  1073741824             -        469.76\n";
    CHECK(linksim::render_side_by_side({pcie, nvlink}) == expected);
  }

  TEST_CASE("busbw_factor: nccl-tests factors per collective") {
    // n = 8: allreduce 2*7/8 = 1.75; allgather/reducescatter/alltoall 7/8 = 0.875; else 1.
    CHECK(linksim::busbw_factor("allreduce", 8) == 1.75);
    CHECK(linksim::busbw_factor("all_reduce", 8) == 1.75);
    CHECK(linksim::busbw_factor("allgather", 8) == 0.875);
    CHECK(linksim::busbw_factor("ReduceScatter", 8) == 0.875);
    CHECK(linksim::busbw_factor("alltoall", 8) == 0.875);
    CHECK(linksim::busbw_factor("broadcast", 8) == 1.0);
    CHECK(linksim::busbw_factor("reduce", 8) == 1.0);
    CHECK(linksim::busbw_factor("sendrecv", 2) == 1.0);
    // n = 2: allreduce 2*1/2 = 1; n = 1: no traffic, factor 0.
    CHECK(linksim::busbw_factor("allreduce", 2) == 1.0);
    CHECK(linksim::busbw_factor("allreduce", 1) == 0.0);
    CHECK_THROWS_WITH_AS(linksim::busbw_factor("allscatter", 8),
                         "linksim: error: expected a collective (allreduce, allgather, "
                         "reducescatter, alltoall, broadcast, reduce, sendrecv), got 'allscatter'",
                         linksim::ConfigError);
    CHECK_THROWS_WITH_AS(linksim::busbw_factor("allreduce", 0),
                         "linksim: error: expected at least 1 rank, got 0", linksim::ConfigError);
  }

  TEST_CASE("canonical_collective_name: spellings people and nccl-tests use") {
    CHECK(*linksim::canonical_collective_name("all_reduce") == "allreduce");
    CHECK(*linksim::canonical_collective_name("All-Gather") == "allgather");
    CHECK(*linksim::canonical_collective_name("reduce_scatter_perf") == "reducescatter");
    CHECK(*linksim::canonical_collective_name("sendrecv") == "sendrecv");
    CHECK_FALSE(linksim::canonical_collective_name("gather").has_value());
    CHECK_FALSE(linksim::canonical_collective_name("").has_value());
  }
}
