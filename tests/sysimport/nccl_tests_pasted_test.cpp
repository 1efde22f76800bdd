// SPDX-License-Identifier: Apache-2.0
// Tables as people paste them: the real published tables with their headers stripped (the
// collective and rank count worked out from the rows), and the refusals of what is no table.
#include <doctest/doctest.h>

#include <cctype>
#include <sstream>
#include <string>

#include "linksim/error.hpp"
#include "linksim/input_file.hpp"
#include "linksim/nccl_tests_output.hpp"
#include "support/validation_data.hpp"

namespace {

using linksim::ConfigError;
using linksim::NcclTestsReadOptions;
using linksim::NcclTestsTable;

std::string published(const std::string& name) {
  return linksim::read_input_file(linksim::testing::validation_file("nccl-tests/" + name));
}
std::string bad_input(const std::string& name) {
  return std::string(LINKSIM_SOURCE_DIR) + "/tests/data/nccl_tests/" + name;
}

// Only the data rows: every line whose first word does not start with a digit goes (our
// "# key: value" header, nccl-tests' preamble, column headers, prose, command lines).
std::string rows_only(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && std::isdigit(static_cast<unsigned char>(line[first]))) {
      out += line + "\n";
    }
  }
  return out;
}

// Without our header and without any line naming the binary: nccl-tests' "#  Rank N" lines
// and column headers stay.
std::string without_names(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  bool in_header = true;
  while (std::getline(in, line)) {
    if (in_header && line.rfind("# ", 0) == 0 && line.find(':') != std::string::npos &&
        line.find("Rank") == std::string::npos) {
      if (line.rfind("# ----", 0) == 0) in_header = false;
      continue;
    }
    in_header = false;
    if (line.find("_perf") != std::string::npos) continue;
    out += line + "\n";
  }
  return out;
}

NcclTestsTable parse(const std::string& text, const std::string& collective = "") {
  NcclTestsReadOptions options;
  options.collective = collective;
  return linksim::parse_nccl_tests_output(text, "pasted.txt", options);
}

void check_same_rows(const NcclTestsTable& pasted, const NcclTestsTable& full) {
  REQUIRE(pasted.rows.size() == full.rows.size());
  for (size_t i = 0; i < full.rows.size(); ++i) {
    CHECK(pasted.rows[i].size_bytes == full.rows[i].size_bytes);
    CHECK(pasted.rows[i].time_us == full.rows[i].time_us);
    CHECK(pasted.rows[i].busbw_GBps == full.rows[i].busbw_GBps);
    CHECK(pasted.rows[i].root.has_value() == full.rows[i].root.has_value());
    CHECK(pasted.rows[i].in_place.has_value() == full.rows[i].in_place.has_value());
  }
}

// Published tables whose rows alone tell the collective and the rank count: AllReduce's
// busbw/algbw is 2(n-1)/n with a reduction, ReduceScatter's (n-1)/n with a reduction.
struct Told {
  const char* file;
  const char* collective;
  int ranks;
};
const Told kTold[] = {
    {"01-h100x8-allreduce-bitdeer.txt", "allreduce", 8},                // 470.73/268.99 = 1.75
    {"02-h100x16-2node-ib-allreduce-bitdeer.txt", "allreduce", 16},     // 1.875
    {"16-a100-40g-x16-2node-oci-roce-allreduce.txt", "allreduce", 16},
    {"30-v100-sxm2x8-dgx1-cubemesh-allreduce-konnase.txt", "allreduce", 8},  // 2019, no root
    {"53-h100x8-1node-all_reduce-xxrjun.txt", "allreduce", 8},
    {"55-h100x8-1node-reduce_scatter-xxrjun.txt", "reducescatter", 8},  // 364.76/416.87
    {"66-h100x10-10node-1gpn-all_reduce-xxrjun.txt", "allreduce", 10},  // 48.89/27.16 = 1.8
    {"71-a100-dgx-x16-2node-hdr8x200-allreduce-deepops.txt", "allreduce", 16},
};

}  // namespace

TEST_SUITE("sysimport") {
  TEST_CASE("pasted tables: data rows alone tell the collective and the rank count") {
    for (const Told& c : kTold) {
      CAPTURE(c.file);
      const std::string text = published(c.file);
      const NcclTestsTable full = parse(text);
      const NcclTestsTable pasted = parse(rows_only(text));
      CHECK(pasted.collective == c.collective);
      CHECK(pasted.collective_source == "busbw/algbw and redop");
      CHECK(pasted.ranks == c.ranks);
      CHECK(pasted.ranks_source == "busbw/algbw");
      CHECK(full.collective == c.collective);
      CHECK(full.ranks == c.ranks);
      check_same_rows(pasted, full);
    }
  }

  TEST_CASE("pasted tables: without a binary name, rank lines and the ratio tell the rest") {
    const std::string text = without_names(published("55-h100x8-1node-reduce_scatter-xxrjun.txt"));
    REQUIRE(text.find("_perf") == std::string::npos);
    const NcclTestsTable table = parse(text);
    CHECK(table.collective == "reducescatter");
    CHECK(table.ranks == 8);
    CHECK(table.ranks_source == "the device lines");
    CHECK(table.rows.size() == 10);
  }

  TEST_CASE("pasted tables: AllGather and AllToAll print the same ratio, so the reader asks") {
    // 413.55 and 361.86 GB/s: 0.875 = 7/8 with redop none fits both.
    const std::string rows = rows_only(published("54-h100x8-1node-all_gather-xxrjun.txt"));
    CHECK_THROWS_WITH_AS(parse(rows),
                         "pasted.txt:10:1: error: expected one collective to fit the rows, got "
                         "allgather (8 ranks) or alltoall (8 ranks): busbw/algbw 0.8750 with "
                         "redop 'none' and root -1; name it (--collective NAME)",
                         ConfigError);
    const NcclTestsTable named = parse(rows, "all_gather");
    CHECK(named.collective == "allgather");
    CHECK(named.collective_source == "the caller");
    CHECK(named.ranks == 8);
    CHECK(parse(rows, "alltoall").collective == "alltoall");
  }

  TEST_CASE("pasted tables: 2-rank AllReduce and SendRecv both print busbw = algbw") {
    const std::string rows = rows_only(published("05-a40x2-nv4-allreduce-llminsights.txt"));
    CHECK_THROWS_WITH_AS(parse(rows),
                         "pasted.txt:4:1: error: expected one collective to fit the rows, got "
                         "allreduce (2 ranks) or sendrecv: busbw/algbw 1.0000 with redop 'sum' "
                         "and root -1; name it (--collective NAME)",
                         ConfigError);
    const NcclTestsTable named = parse(rows, "allreduce");
    CHECK(named.ranks == 2);
    // SendRecv's factor is 1 at any rank count: its rows cannot tell how many ranks ran.
    CHECK_THROWS_WITH_AS(
        parse(rows_only(published("57-h100x8-1node-sendrecv-xxrjun.txt")), "sendrecv"),
        "pasted.txt:10:1: error: expected '# gpus_per_node:' and '# nodes:' headers, nccl-tests "
        "'#  Rank N' device lines or a busbw/algbw that depends on the rank count to tell the "
        "number of ranks, got none",
        ConfigError);
  }

  TEST_CASE("pasted tables: a collective the text names wins over a different --collective") {
    CHECK_THROWS_WITH_AS(parse(published("55-h100x8-1node-reduce_scatter-xxrjun.txt"), "alltoall"),
                         "pasted.txt:26:1: error: expected the collective the header names "
                         "(reducescatter), got 'alltoall' from the caller (--collective)",
                         ConfigError);
    CHECK(parse(published("55-h100x8-1node-reduce_scatter-xxrjun.txt"), "reduce_scatter")
              .collective == "reducescatter");
  }

  TEST_CASE("pasted tables: rows below 1 GB/s cannot tell the collective") {
    // 06-...: NCCL_P2P_DISABLE on A40s, the best algbw is 0.96 GB/s.
    CHECK_THROWS_WITH_AS(
        parse(rows_only(published("06-a40x4-sys-p2pdisable-allreduce-llminsights.txt"))),
        "pasted.txt:1:1: error: expected a '# collective:' header, an nccl-tests binary name such "
        "as all_reduce_perf or rows that tell the collective, got no row with algbw of at least "
        "1 GB/s; name it (--collective NAME)",
        ConfigError);
  }

  TEST_CASE("pasted tables: what is no table is refused at the line that shows it") {
    struct BadCase {
      const char* file;
      int line, column;
      const char* message;
    };
    const BadCase cases[] = {
        {"other_program.txt", 1, 9,
         "expected nccl-tests output (a column header naming size, time, algbw and busbw, or "
         "its data rows), got 'GPU0    GPU1    NIC0    CPU Affinity    ...'"},
        {"binary.txt", 2, 3, "expected nccl-tests output as text, got the binary byte 0x03"},
        {"bare_bad_row.txt", 3, 5,
         "expected a column header naming size, time, algbw and busbw, or an nccl-tests data "
         "row (size count type redop [root], then time algbw busbw #wrong once or twice), got "
         "6 fields"},
        {"bare_ragged_row.txt", 2, 4, "expected 13 fields as in the first data row on line 1, got 9"},
    };
    for (const BadCase& c : cases) {
      CAPTURE(c.file);
      const std::string path = bad_input(c.file);
      const std::string expected = path + ":" + std::to_string(c.line) + ":" +
                                   std::to_string(c.column) + ": error: " + c.message;
      CHECK_THROWS_WITH_AS(linksim::load_nccl_tests_outputs(path), expected.c_str(), ConfigError);
    }
  }
}
