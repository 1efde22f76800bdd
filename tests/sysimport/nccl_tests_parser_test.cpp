// SPDX-License-Identifier: Apache-2.0
// Reading real nccl-tests output (calibration files) and rejecting malformed tables.
#include <doctest/doctest.h>

#include <string>

#include "linksim/error.hpp"
#include "linksim/nccl_tests_output.hpp"
#include "support/validation_data.hpp"

namespace {

using linksim::ConfigError;
using linksim::NcclTestsRow;
using linksim::NcclTestsTable;

std::string calibration(const std::string& name) {
  return linksim::testing::validation_file("nccl-tests/" + name);
}
std::string bad_input(const std::string& name) {
  return std::string(LINKSIM_SOURCE_DIR) + "/tests/data/nccl_tests/" + name;
}

// Out-of-place values of one row, copied by hand from the file.
struct RowValues {
  double size_bytes, time_us, algbw_GBps, busbw_GBps;
};

struct CalibrationCase {
  const char* file;
  const char* collective;
  int ranks;      // gpus_per_node x nodes from the header
  size_t rows;    // sizes from -b to -e by factor 2, counted in the file
  bool has_root;  // false for the 2019 layout
  bool in_place;  // false for the author-trimmed table
  RowValues first, last;
};

// Row counts: sweeps of powers of two, so (log2 max - log2 min + 1), plus the two size-0
// rows nccl-tests prints first for all_gather/alltoall with -b 8 on 2 ranks.
// clang-format off
const CalibrationCase kCases[] = {
    {"01-h100x8-allreduce-bitdeer.txt", "allreduce", 8, 4, true, true,  // 2^28..2^31
     {268435456, 1119.8, 239.71, 419.49}, {2147483648, 7983.5, 268.99, 470.73}},
    {"02-h100x16-2node-ib-allreduce-bitdeer.txt", "allreduce", 16, 6, true, true,  // 2^28..33
     {268435456, 1291.8, 207.79, 389.61}, {8589934592, 34417, 249.59, 467.97}},
    {"05-a40x2-nv4-allreduce-llminsights.txt", "allreduce", 2, 4, true, true,  // 2^30..2^33
     {1073741824, 22661, 47.38, 47.38}, {8589934592, 180860, 47.49, 47.49}},
    {"06-a40x4-sys-p2pdisable-allreduce-llminsights.txt", "allreduce", 4, 4, true, true,
     {1073741824, 1121937, 0.96, 1.44}, {8589934592, 9542917, 0.90, 1.35}},
    {"16-a100-40g-x16-2node-oci-roce-allreduce.txt", "allreduce", 16, 31, true, true,  // 2^3..2^33
     {8, 36.47, 0.00, 0.00}, {8589934592, 67689, 126.90, 237.94}},
    {"30-v100-sxm2x8-dgx1-cubemesh-allreduce-konnase.txt", "allreduce", 8, 25, false, true,
     {8, 48.46, 0.00, 0.00}, {134217728, 1818.8, 73.80, 129.14}},  // 2^3..2^27
    {"35-rtx2080ti-x2-pix-nop2p-all_reduce-autodl.txt", "allreduce", 2, 28, true, true,
     {8, 12.25, 0.00, 0.00}, {1073741824, 268588, 4.00, 4.00}},  // 2^3..2^30
    {"36-rtx2080ti-x2-pix-nop2p-all_gather-autodl.txt", "allgather", 2, 28, true, true,
     {0, 0.33, 0.00, 0.00}, {1073741824, 141614, 7.58, 3.79}},  // 0, 0, 2^5..2^30
    {"37-rtx2080ti-x2-pix-nop2p-alltoall-autodl.txt", "alltoall", 2, 28, true, true,
     {0, 12.97, 0.00, 0.00}, {1073741824, 116573, 9.21, 4.61}},  // 0, 0, 2^5..2^30
    {"49-a100x8-nvswitch-allreduce-32k-16g-mleng.txt", "allreduce", 8, 20, false, false,
     {32768, 43.83, 0.75, 1.31}, {17179869184, 127997, 134.22, 234.89}},  // 2^15..2^34
    {"53-h100x8-1node-all_reduce-xxrjun.txt", "allreduce", 8, 10, true, true,  // 2^25..2^34
     {33554432, 182.87, 183.49, 321.10}, {17179869184, 62340.7, 275.58, 482.27}},
    {"54-h100x8-1node-all_gather-xxrjun.txt", "allgather", 8, 10, true, true,
     {33554432, 123.44, 271.83, 237.85}, {17179869184, 41542.0, 413.55, 361.86}},
    {"55-h100x8-1node-reduce_scatter-xxrjun.txt", "reducescatter", 8, 10, true, true,
     {33554432, 111.83, 300.05, 262.55}, {17179869184, 41211.4, 416.87, 364.76}},
    {"56-h100x8-1node-alltoall-xxrjun.txt", "alltoall", 8, 10, true, true,
     {33554432, 124.79, 268.89, 235.28}, {17179869184, 43193.3, 397.74, 348.03}},
    {"57-h100x8-1node-sendrecv-xxrjun.txt", "sendrecv", 8, 10, true, true,
     {33554432, 422.19, 79.48, 79.48}, {17179869184, 46779.2, 367.25, 367.25}},
    {"66-h100x10-10node-1gpn-all_reduce-xxrjun.txt", "allreduce", 10, 10, true, true,
     {33554432, 1405.25, 23.88, 42.98}, {17179869184, 632480, 27.16, 48.89}},
    {"71-a100-dgx-x16-2node-hdr8x200-allreduce-deepops.txt", "allreduce", 16, 30, false, true,
     {8, 38.63, 0.00, 0.00}, {4294967296, 42715, 100.55, 188.53}},  // 2^3..2^32
};
// clang-format on

void check_row(const NcclTestsRow& row, const RowValues& expected) {
  CHECK(row.size_bytes == expected.size_bytes);
  CHECK(row.time_us == doctest::Approx(expected.time_us).epsilon(1e-12));
  CHECK(row.algbw_GBps == doctest::Approx(expected.algbw_GBps).epsilon(1e-12));
  CHECK(row.busbw_GBps == doctest::Approx(expected.busbw_GBps).epsilon(1e-12));
}

}  // namespace

TEST_SUITE("sysimport") {
  TEST_CASE("nccl_tests: every calibration file parses with its row count, first and last row") {
    for (const CalibrationCase& c : kCases) {
      CAPTURE(c.file);
      const NcclTestsTable table = linksim::load_nccl_tests_output(calibration(c.file));
      CHECK(table.collective == c.collective);
      CHECK(table.ranks == c.ranks);
      REQUIRE(table.rows.size() == c.rows);
      check_row(table.rows.front(), c.first);
      check_row(table.rows.back(), c.last);
      CHECK(table.rows.front().root.has_value() == c.has_root);
      CHECK(table.rows.front().in_place.has_value() == c.in_place);
      CHECK(table.rows.front().count.has_value() == c.in_place);  // trimmed drops count too
    }
  }

  TEST_CASE("nccl_tests: modern row keeps count, type, redop, root and the in-place timing") {
    // 53-...: "33554432  4194304  double  sum  -1  182.87 183.49 321.10  0  182.88 183.48 321.08 0"
    const NcclTestsTable table =
        linksim::load_nccl_tests_output(calibration("53-h100x8-1node-all_reduce-xxrjun.txt"));
    const NcclTestsRow& row = table.rows.front();
    CHECK(*row.count == 4194304);
    CHECK(row.type == "double");
    CHECK(row.redop == "sum");
    CHECK(*row.root == -1);
    REQUIRE(row.in_place.has_value());
    CHECK(row.in_place->time_us == doctest::Approx(182.88));
    CHECK(row.in_place->algbw_GBps == doctest::Approx(183.48));
    CHECK(row.in_place->busbw_GBps == doctest::Approx(321.08));
    CHECK(table.header.at("gpu") == "H100 SXM 80GB HBM3");
    CHECK(table.env.empty());  // "defaults (no NCCL_* overrides ...)" holds no NAME=value
  }

  TEST_CASE("nccl_tests: 2019 row without root column and with an error column") {
    // 71-...: "8  2  float  sum  38.63  0.00  0.00  2e-07  38.85  0.00  0.00  1e-07"
    const NcclTestsTable table = linksim::load_nccl_tests_output(
        calibration("71-a100-dgx-x16-2node-hdr8x200-allreduce-deepops.txt"));
    const NcclTestsRow& row = table.rows.front();
    CHECK(*row.count == 2);
    CHECK(row.type == "float");
    CHECK(row.redop == "sum");
    CHECK_FALSE(row.root.has_value());
    CHECK(row.in_place->time_us == doctest::Approx(38.85));
    CHECK(table.env.at("NCCL_ALGO") == "RING");
    CHECK(table.env.at("NCCL_IB_DISABLE") == "0");
  }

  TEST_CASE("nccl_tests: trimmed table with underscored sizes") {
    // 49-...: "1048_576   101.9   10.29   18.00" (the author's odd grouping) is 1048576 bytes.
    const NcclTestsTable table = linksim::load_nccl_tests_output(
        calibration("49-a100x8-nvswitch-allreduce-32k-16g-mleng.txt"));
    CHECK(table.rows[5].size_bytes == 1048576);
    CHECK(table.rows[5].time_us == doctest::Approx(101.9));
    CHECK(table.rows[5].type.empty());
    CHECK(table.header.at("format").find("trimmed") != std::string::npos);
  }

  TEST_CASE("nccl_tests: env header gives NAME=value pairs") {
    const NcclTestsTable p2p = linksim::load_nccl_tests_output(
        calibration("06-a40x4-sys-p2pdisable-allreduce-llminsights.txt"));
    CHECK(p2p.env.size() == 2);
    CHECK(p2p.env.at("NCCL_P2P_DISABLE") == "1");
    CHECK(p2p.env.at("CUDA_VISIBLE_DEVICES") == "0,1,6,7");
    const NcclTestsTable roce = linksim::load_nccl_tests_output(
        calibration("16-a100-40g-x16-2node-oci-roce-allreduce.txt"));
    CHECK(roce.env.at("NCCL_SOCKET_IFNAME") == "=eth0");  // "==eth0" as published
    CHECK(roce.env.at("NCCL_IB_HCA") == "mlx5");
    CHECK(roce.env.count("(from") == 0);
  }

  TEST_CASE("nccl_tests: bare output without our header: collective and ranks from the text") {
    // Two "#  Rank N" lines -> 2 ranks; "reduce_scatter_perf" -> reducescatter.
    // Sizes with nccl-tests' suffixes: 1K = 1024, 2M = 2 * 1024^2, 1KB = 1000.
    const char* text =
        "$ ./build/reduce_scatter_perf -b 1K -e 2M -g 2\n"
        "# nThread 1 nGpus 2 minBytes 1024 maxBytes 2097152 step: 2(factor) warmup iters: 5\n"
        "#\n"
        "# Using devices\n"
        "#  Rank  0 Group  0 Pid 1 on host device  0 [0x1b] NVIDIA H100 80GB HBM3\n"
        "#  Rank  1 Group  0 Pid 1 on host device  1 [0x43] NVIDIA H100 80GB HBM3\n"
        "#       size    time   algbw   busbw\n"
        "          1K   10.00    0.10    0.05\n"
        "          2M   100.0   20.97   10.49\n"
        "         1KB   10.00    0.10    0.05\n"
        "# Avg bus bandwidth    : 3.53\n";
    const NcclTestsTable table = linksim::parse_nccl_tests_output(text, "input");
    CHECK(table.collective == "reducescatter");
    CHECK(table.ranks == 2);
    CHECK(table.header.empty());
    REQUIRE(table.rows.size() == 3);
    CHECK(table.rows[0].size_bytes == 1024);
    CHECK(table.rows[1].size_bytes == 2097152);
    CHECK(table.rows[2].size_bytes == 1000);
    CHECK(table.rows[1].line == 9);
  }

  TEST_CASE("nccl_tests: malformed inputs name file, line and column") {
    struct BadCase {
      const char* file;
      int line, column;
      const char* message;
    };
    const BadCase cases[] = {
        {"no_table.txt", 7, 1,
         "expected an nccl-tests table (a column header naming size, time, algbw and busbw, "
         "or its data rows), got none"},
        {"ragged_row.txt", 9, 11, "expected 13 fields as in the column header on line 6, got 12"},
        {"bad_number.txt", 9, 57, "expected a number, got '1O.01'"},
        {"unknown_collective.txt", 4, 15,
         "expected a collective such as all_reduce or alltoall, got 'all_scatter'"},
        {"bad_gpus_per_node.txt", 2, 18,
         "expected a positive integer for 'gpus_per_node', got 'eight'"},
        {"no_ranks.txt", 5, 1,
         "expected '# gpus_per_node:' and '# nodes:' headers, nccl-tests '#  Rank N' device "
         "lines or a busbw/algbw that depends on the rank count to tell the number of ranks, "
         "got none"},
        {"bad_size.txt", 6, 13, "expected a size in bytes such as 33554432 or 32M, got '32Q'"},
    };
    for (const BadCase& c : cases) {
      CAPTURE(c.file);
      const std::string path = bad_input(c.file);
      const std::string expected = path + ":" + std::to_string(c.line) + ":" +
                                   std::to_string(c.column) + ": error: " + c.message;
      CHECK_THROWS_WITH_AS(linksim::load_nccl_tests_output(path), expected.c_str(), ConfigError);
    }
  }

  TEST_CASE("nccl_tests: a missing file is a ConfigError naming it") {
    const std::string path = bad_input("does_not_exist.txt");
    CHECK_THROWS_WITH_AS(linksim::load_nccl_tests_output(path),
                         (path + ": error: cannot read file: No such file or directory").c_str(),
                         ConfigError);
  }

  TEST_CASE("nccl_tests: measured rows become a report in SI units") {
    // 05-...: first row 1073741824 B, 22661 us, algbw 47.38 GB/s, busbw 47.38 GB/s.
    const linksim::CollectiveReport report = linksim::to_collective_report(
        linksim::load_nccl_tests_output(calibration("05-a40x2-nv4-allreduce-llminsights.txt")),
        "a40 pair (measured)");
    CHECK(report.topology == "a40 pair (measured)");
    CHECK(report.collective == "allreduce");
    CHECK(report.ranks == 2);
    CHECK(report.mode == "measured");
    REQUIRE(report.rows.size() == 4);
    CHECK(report.rows[0].time_s == doctest::Approx(22661e-6));
    CHECK(report.rows[0].busbw_Bps == doctest::Approx(47.38e9));
    CHECK(report.rows[0].count == 268435456);
    CHECK(report.rows[0].root == -1);
  }
}
