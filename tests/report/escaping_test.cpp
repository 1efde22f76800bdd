// SPDX-License-Identifier: Apache-2.0
// Names come from user files: every HTML, SVG and CSV output prints them as text. A scenario
// whose machine, topology, study, plan and title names hold markup and spreadsheet formulas
// (cells starting with =, +, -, @) is run through the real binary, and `coll --csv` renders a
// topology named as a formula.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/cli_runner.hpp"
#include "support/scratch_path.hpp"

namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A copy of topologies/dgx-h100.yaml under another `name:`.
void write_renamed_h100(const std::filesystem::path& to, const std::string& name) {
  std::string text = slurp(std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100.yaml");
  const size_t at = text.find("\nname: dgx-h100\n");
  REQUIRE(at != std::string::npos);
  text.replace(at, 16, "\nname: \"" + name + "\"\n");
  std::ofstream(to) << text;
}

}  // namespace

TEST_CASE("escaping: markup and formulas in user names stay text in HTML, SVG and CSV") {
  const std::filesystem::path dir =
      linksim::testing::scratch_path("linksim_escaping_test");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  write_renamed_h100(dir / "evil.yaml", "<script>alert(1)</script>=HYPERLINK(1)");
  std::ofstream(dir / "s.yaml") << R"yaml(report:
  title: "<i>title</i> & =SUM(A1)"
machines:
  - topology: evil.yaml
  - label: "=cmd|' /C calc'!A0"
    topology: evil.yaml
collectives:
  - name: "@study<b>x</b>"
    ops: allreduce
    minbytes: 1M
    maxbytes: 4M
    stepfactor: 2
plans:
  - {name: "+plan<img src=x>", machines: [evil], model: llama3.1-8b, mode: train, tp: 8,
     global_batch: 64}
)yaml";
  const linksim::testing::CliRun run = linksim::testing::run_linksim(
      "run '" + (dir / "s.yaml").string() + "' --out '" + (dir / "out").string() +
      "' --format html,csv");
  REQUIRE_MESSAGE(run.status == 0, run.err);
  const std::string html = slurp(dir / "out" / "report.html");
  const std::string csv = slurp(dir / "out" / "results.csv");
  std::filesystem::remove_all(dir);

  // No user text arrives as markup, in the page or in its inline SVG charts.
  for (const char* raw : {"<script>alert", "<i>title", "<b>x</b>", "<img src=x>"}) {
    CHECK_MESSAGE(html.find(raw) == std::string::npos, raw);
  }
  CHECK(html.find("&lt;i&gt;title&lt;/i&gt; &amp; =SUM(A1)") != std::string::npos);
  CHECK(html.find("@study&lt;b&gt;x&lt;/b&gt;") != std::string::npos);
  // Cells a spreadsheet would evaluate are quoted text behind a leading '.
  CHECK(csv.find(",\"'@study<b>x</b>\",") != std::string::npos);
  CHECK(csv.find(",\"'=cmd|' /C calc'!A0\",") != std::string::npos);
  CHECK(csv.find("\"'+plan<img src=x>") != std::string::npos);
  CHECK(csv.find(",@study") == std::string::npos);
  CHECK(csv.find(",=cmd") == std::string::npos);
}

TEST_CASE("escaping: coll --csv writes a formula-like topology name as text") {
  const std::filesystem::path dir = linksim::testing::scratch_path("linksim_csv_test");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  write_renamed_h100(dir / "t.yaml", "-2+3");
  const linksim::testing::CliRun run =
      linksim::testing::run_linksim("coll allreduce --topo '" + (dir / "t.yaml").string() +
                           "' --size 1M --csv");
  std::filesystem::remove_all(dir);
  REQUIRE_MESSAGE(run.status == 0, run.err);
  CHECK(run.out.find("\n\"'-2+3\",allreduce,8,") != std::string::npos);
}
