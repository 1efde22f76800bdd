// SPDX-License-Identifier: Apache-2.0
// `--format nccl-tests`: the output reads back through the nccl-tests parser row for row, and
// its columns sit where a published nccl-tests log puts them.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/nccl_tests_output.hpp"
#include "linksim/report.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/cli_runner.hpp"

using namespace linksim;

namespace {

const std::string kSource = LINKSIM_SOURCE_DIR;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "missing test data file " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first line of `text` containing `needle`.
std::string line_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) return line;
  }
  return {};
}

// The column (0-based) one past the end of every whitespace-separated word.
std::vector<size_t> word_ends(const std::string& line) {
  std::vector<size_t> ends;
  for (size_t i = 0; i < line.size(); ++i) {
    const bool word = line[i] != ' ';
    const bool next_word = i + 1 < line.size() && line[i + 1] != ' ';
    if (word && !next_word) ends.push_back(i + 1);
  }
  return ends;
}

struct Rendered {
  CollectiveReport report;
  std::string text;
};

Rendered render_h100_allreduce() {
  const Topology t = load_topology(kSource + "/topologies/dgx-h100.yaml");
  const Communicator comm(t, select_gpus(t, {}));
  SweepRequest request;
  request.sizes_bytes = sweep_sizes(8, 8.0 * (1 << 30), 16);
  request.type = *parse_data_type("double");
  const CollectiveReport report = to_collective_report(run_sweep(comm, request), t);
  NcclTestsPreamble preamble{8, 8.0 * (1 << 30), 16, 1, nccl_tests_devices(t, comm.ranks())};
  return {report, render_nccl_tests(report, preamble)};
}

}  // namespace

TEST_SUITE("report") {

TEST_CASE("nccl-tests format: the parser reads back the collective, the ranks and every row") {
  const Rendered r = render_h100_allreduce();
  const NcclTestsTable table = parse_nccl_tests_output(r.text, "rendered");
  CHECK(table.collective == "allreduce");
  CHECK(table.ranks == 8);  // from the "#  Rank N" device lines
  // The release modelled, as nccl-tests' nccl-library word: 2.29 = 22900.
  CHECK(r.report.nccl_version == "2.29");
  CHECK(table.nccl_version_code == 22900);
  REQUIRE(table.rows.size() == r.report.rows.size());
  for (size_t i = 0; i < table.rows.size(); ++i) {
    CAPTURE(i);
    const NcclTestsRow& got = table.rows[i];
    const CollectiveRow& want = r.report.rows[i];
    CHECK(got.size_bytes == want.size_bytes);
    CHECK(got.count == want.count);
    CHECK(got.type == "double");
    CHECK(got.redop == "sum");
    CHECK(got.root == -1);
    // Printed with nccl-tests' precision: time to 2, 1 or 0 decimals (below 100 us, below
    // 10000 us, above), bandwidths to 2: each within half its last digit.
    const double time_us = want.time_s * 1e6;
    const double time_step = time_us < 100 ? 0.01 : time_us < 10000 ? 0.1 : 1.0;
    CHECK(std::abs(got.time_us - time_us) <= time_step / 2 + 1e-9);
    CHECK(std::abs(got.algbw_GBps - want.algbw_Bps / 1e9) <= 0.005 + 1e-9);
    CHECK(std::abs(got.busbw_GBps - want.busbw_Bps / 1e9) <= 0.005 + 1e-9);
    REQUIRE(got.in_place.has_value());
    CHECK(got.in_place->time_us == got.time_us);
    CHECK(got.in_place->busbw_GBps == got.busbw_GBps);
  }
  CHECK(r.text.find("# Out of bounds values : 0 OK\n") != std::string::npos);
  CHECK(r.text.find("# Avg bus bandwidth    : ") != std::string::npos);
  CHECK(r.text.find("# Collective test concluded: all_reduce_perf\n") != std::string::npos);
  CHECK(line_with(r.text, "#  Rank  7") ==
        "#  Rank  7 Group  0 Pid      0 on      host0 device  7 [0000:00:00] " +
            load_topology(kSource + "/topologies/dgx-h100.yaml").gpu_model(
                load_topology(kSource + "/topologies/dgx-h100.yaml").gpus()[7]).name);
}

TEST_CASE("nccl-tests format: header and rows line up with a published nccl-tests 2.17 log") {
  // xxrjun/nccl-tests-cluster, all_reduce_perf on 8 H100 (source_url inside the file).
  const std::string published =
      read_text(kSource + "/tests/data/nccl_tests/h100x8_all_reduce_published.txt");
  const Rendered r = render_h100_allreduce();
  CHECK(word_ends(line_with(r.text, "#wrong")) == word_ends(line_with(published, "#wrong")));
  CHECK(word_ends(line_with(r.text, "(elements)")) ==
        word_ends(line_with(published, "(elements)")));
  // (The published file's own header mentions "out-of-place/in-place" earlier.)
  const std::string group_line = "           out-of-place";
  CHECK(word_ends(line_with(r.text, group_line)) == word_ends(line_with(published, group_line)));
  // A row with the published row's numbers ends every field where the published one does
  // (time and #wrong included: both right-aligned in their widths).
  CollectiveReport one = r.report;
  one.rows.resize(1);
  one.rows[0].size_bytes = 33554432;
  one.rows[0].count = 4194304;
  one.rows[0].time_s = 182.87e-6;
  one.rows[0].algbw_Bps = 183.49e9;
  one.rows[0].busbw_Bps = 321.10e9;
  const std::string row_text = render_nccl_tests(one, {});
  CHECK(word_ends(line_with(row_text, "    33554432")) ==
        word_ends(line_with(published, "    33554432")));
}

TEST_CASE("nccl-tests format: linksim coll --format nccl-tests prints what the library renders") {
  const testing::CliRun cli = testing::run_linksim(
      "coll all_reduce --topo " + kSource + "/topologies/dgx-h100.yaml -b 8 -e 8G -f 16 -d double "
      "--format nccl-tests");
  REQUIRE(cli.status == 0);
  CHECK(cli.out == render_h100_allreduce().text);
  const testing::CliRun bad = testing::run_linksim(
      "coll all_reduce --topo " + kSource + "/topologies/dgx-h100.yaml --size 1M --format xml");
  CHECK(bad.status == 2);
  CHECK(bad.err ==
        "linksim: error: --format: expected one of text, json, csv, nccl-tests, got \"xml\"\n");
}

}  // TEST_SUITE
