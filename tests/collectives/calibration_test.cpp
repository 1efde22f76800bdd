// SPDX-License-Identifier: Apache-2.0
// Predictions held against real nccl-tests tables (data/validation/nccl-tests/), case by
// case as listed in tests/data/calibration/cases.yaml: busbw within the case's tolerance
// (default 10%) from 64 MiB, time within a factor of 1.5 below. Runs the real CLI.
#include <algorithm>
#include <array>
#include <cstdio>
#include <doctest/doctest.h>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <yaml-cpp/yaml.h>

#include "linksim/nccl_tests_output.hpp"
#include "support/validation_data.hpp"

namespace {

const std::string kSource = LINKSIM_SOURCE_DIR;
constexpr double kLargeBytes = 64.0 * 1048576.0;
/// Sizes within this fraction are one row: nccl-tests' AllGather sizes on 10 ranks sit up to
/// 160 bytes from the sweep's doubled ones (268435360 against 268435200).
constexpr double kSameSize = 1e-4;

std::string quote(const std::string& s) { return "'" + s + "'"; }

std::string run_cli(const std::string& args) {
  std::string out;
  FILE* pipe = popen((std::string(LINKSIM_CLI_PATH) + " " + args + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  pclose(pipe);
  return out;
}

std::string collective_of(const std::string& file) {
  const std::map<std::string, std::string> names = {
      {"all_reduce", "allreduce"}, {"allreduce", "allreduce"}, {"all_gather", "allgather"},
      {"reduce_scatter", "reducescatter"}, {"alltoall", "alltoall"}, {"sendrecv", "sendrecv"}};
  for (const auto& [key, op] : names) {
    if (file.find(key) != std::string::npos) return op;
  }
  return "";
}

}  // namespace

TEST_SUITE("calibration") {
  TEST_CASE("calibration: every real nccl-tests table is predicted within its tolerance") {
    YAML::Node cases = YAML::LoadFile(kSource + "/tests/data/calibration/cases.yaml")["cases"];
    REQUIRE(cases.size() >= 26);
    for (const YAML::Node& c : cases) {
      const std::string file = c["file"].as<std::string>();
      CAPTURE(file);
      auto table =
          linksim::load_nccl_tests_output(linksim::testing::validation_file("nccl-tests/" + file));
      double lo = 0, hi = 0;
      for (const auto& row : table.rows) {
        if (row.size_bytes <= 0) continue;
        lo = lo == 0 ? row.size_bytes : std::min(lo, row.size_bytes);
        hi = std::max(hi, row.size_bytes);
      }
      std::string args = "coll " + collective_of(file) + " --json --topo " +
                         quote(kSource + "/topologies/" + c["topology"].as<std::string>()) +
                         " -b " + std::to_string(static_cast<long long>(lo)) + " -e " +
                         std::to_string(static_cast<long long>(hi)) + " -f 2";
      for (const YAML::Node& a : c["args"]) args += " " + quote(a.as<std::string>());
      const std::string out = run_cli(args);
      nlohmann::json json = nlohmann::json::parse(out, nullptr, false);
      REQUIRE_MESSAGE(!json.is_discarded(), out);
      std::map<double, nlohmann::json> predicted;
      for (const auto& r : json["results"]) predicted[r["size_bytes"].get<double>()] = r;
      const double tolerance = c["tolerance"] ? c["tolerance"].as<double>() : 0.10;
      const double small_factor = c["small_factor"] ? c["small_factor"].as<double>() : 1.5;
      std::set<double> outliers;
      if (c["outliers"]) {
        for (const YAML::Node& o : c["outliers"]) outliers.insert(o["size"].as<double>());
      }
      int compared = 0, rows = 0;
      for (const auto& row : table.rows) rows += row.size_bytes > 0 ? 1 : 0;
      for (const auto& row : table.rows) {
        if (row.size_bytes <= 0) continue;
        // The sweep doubles the table's first size; nccl-tests rounds each of its own sizes to
        // whole elements per rank, so a row may sit a few elements below the sweep's size.
        auto it = predicted.lower_bound(row.size_bytes * (1 - kSameSize));
        if (it == predicted.end() || it->first > row.size_bytes * (1 + kSameSize)) continue;
        CAPTURE(row.size_bytes);
        ++compared;
        if (outliers.count(row.size_bytes) != 0) continue;
        if (row.size_bytes >= kLargeBytes) {
          const double busbw = it->second["busbw_GBps"].get<double>();
          CHECK(busbw == doctest::Approx(row.busbw_GBps).epsilon(tolerance));
        } else {
          const double ratio = it->second["time_us"].get<double>() / row.time_us;
          CHECK(ratio <= small_factor);
          CHECK(ratio >= 1 / small_factor);
        }
      }
      // Every size of the table (a published run may hold a single size).
      CHECK(compared >= std::min(4, rows));
    }
  }

  TEST_CASE("calibration: an outlier names a row of its table and says why") {
    // A row left out of the checks is never silent: it is a size the table holds, with a
    // reason of its own (docs/validation.md shows it).
    int listed = 0;
    for (const YAML::Node& c :
         YAML::LoadFile(kSource + "/tests/data/calibration/cases.yaml")["cases"]) {
      const std::string file = c["file"].as<std::string>();
      CAPTURE(file);
      if (!c["outliers"]) continue;
      const auto table =
          linksim::load_nccl_tests_output(linksim::testing::validation_file("nccl-tests/" + file));
      for (const YAML::Node& o : c["outliers"]) {
        ++listed;
        const double size = o["size"].as<double>();
        CAPTURE(size);
        CHECK(std::any_of(table.rows.begin(), table.rows.end(),
                          [&](const auto& row) { return row.size_bytes == size; }));
        REQUIRE(o["why"]);
        CHECK(o["why"].as<std::string>().size() >= 40);
      }
    }
    CHECK(listed <= 2);  // a handful at most: more is a mechanism, not noise
  }

  TEST_CASE("calibration: every nccl-tests table in data/validation has exactly one case") {
    std::map<std::string, int> cases_of;
    for (const YAML::Node& c :
         YAML::LoadFile(kSource + "/tests/data/calibration/cases.yaml")["cases"]) {
      ++cases_of[c["file"].as<std::string>()];
    }
    for (const std::string& path : linksim::testing::validation_files("nccl-tests")) {
      const std::string file = std::filesystem::path(path).filename().string();
      CAPTURE(file);
      CHECK(cases_of[file] == 1);
    }
    for (const auto& entry : cases_of) {
      const auto& file = entry.first;  // clang 14: CAPTURE cannot take a structured binding
      CAPTURE(file);
      linksim::testing::validation_file("nccl-tests/" + file);
    }
  }
}
