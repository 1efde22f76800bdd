// SPDX-License-Identifier: Apache-2.0
// Outputs as people paste them (launcher prefixes, several runs, nccl-tests' JSON), the run
// each describes, and the comparison with linksim on every shipped real table.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "linksim/error.hpp"
#include "linksim/measured.hpp"
#include "linksim/measured_report.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/cli_runner.hpp"
#include "support/test_topologies.hpp"
#include "support/validation_cases.hpp"
#include "support/validation_data.hpp"
#include "support/scratch_path.hpp"

namespace {

using namespace linksim;

std::string fixture(const std::string& name) {
  return std::string(LINKSIM_SOURCE_DIR) + "/tests/data/nccl_tests/" + name;
}

std::string error_of(const std::string& path) {
  try {
    load_nccl_tests_outputs(path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("calibration") {
  TEST_CASE("compare: mpirun --tag-output prefixes and two runs in one paste") {
    const auto tables = load_nccl_tests_outputs(fixture("mpi_tagged_two_runs.txt"));
    REQUIRE(tables.size() == 2);
    CHECK(tables[0].collective == "allreduce");
    CHECK(tables[1].collective == "allgather");
    CHECK(tables[0].ranks == 8);
    CHECK(tables[1].ranks == 8);
    CHECK(tables[0].gpus_per_thread == 1);
    REQUIRE(!tables[0].rows.empty());
    REQUIRE(!tables[1].rows.empty());
    CHECK(tables[0].rows.front().size_bytes == 33554432);
    CHECK(tables[1].rows.front().time_us == 123.44);  // 54's first row
    CHECK(tables[1].rows.front().type == "double");
  }

  TEST_CASE("compare: srun --label prefixes") {
    const auto tables = load_nccl_tests_outputs(fixture("srun_labelled.txt"));
    REQUIRE(tables.size() == 1);
    CHECK(tables[0].collective == "sendrecv");
    REQUIRE(tables[0].rows.size() >= 3);
    CHECK(tables[0].rows[2].time_us == 825.74);
  }

  TEST_CASE("compare: a prefixed bad field is reported at its column in the line as written") {
    const std::string text = "[1,0]<stdout>:# Collective test starting: all_reduce_perf\n"
                             "[1,0]<stdout>:#  Rank  0 Group  0 Pid 1 on h device  0 [0000:1b:00] X\n"
                             "[1,0]<stdout>:#       size   time   algbw   busbw\n"
                             "[1,0]<stdout>:        1024   x1.0    1.00    1.00\n";
    try {
      parse_nccl_tests_outputs(text, "t.txt");
      FAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
      CHECK(std::string(e.what()) == "t.txt:4:30: error: expected a number, got 'x1.0'");
    }
  }

  TEST_CASE("compare: nccl-tests' JSON output") {
    const auto tables = load_nccl_tests_outputs(fixture("all_gather_nccl_tests.json"));
    REQUIRE(tables.size() == 1);
    const NcclTestsTable& t = tables[0];
    CHECK(t.collective == "allgather");
    CHECK(t.ranks == 8);
    CHECK(t.gpus_per_thread == 1);
    CHECK(t.env.at("NCCL_NVLS_ENABLE") == "0");
    CHECK(t.env.count("PATH") == 0);
    REQUIRE(t.rows.size() == 10);
    CHECK(t.rows[0].size_bytes == 33554432);
    CHECK(t.rows[0].time_us == 123.44);
    CHECK(t.rows[0].busbw_GBps == 237.85);
    CHECK(t.rows[0].root == -1);
    REQUIRE(t.rows[0].in_place.has_value());
    CHECK(t.rows[0].in_place->time_us == 120.61);
    const MeasuredSetup setup = measured_setup(t);
    CHECK_FALSE(setup.options.nvls_enable);
    CHECK(setup.type.name == "double");
  }

  TEST_CASE("compare: broken JSON is an error at its line and column") {
    CHECK(error_of(fixture("broken.json")) ==
          fixture("broken.json") + ":3:1: error: invalid nccl-tests JSON: expected a complete "
                                   "JSON document");
  }

  TEST_CASE("compare: the environment and header set the run") {
    const NcclTestsTable t = load_nccl_tests_output(testing::validation_file(
        "nccl-tests/06-a40x4-sys-p2pdisable-allreduce-llminsights.txt"));
    const MeasuredSetup s = measured_setup(t);
    CHECK(s.op == CollectiveOp::kAllReduce);
    CHECK(s.ranks == 4);
    CHECK(s.options.p2p_disable);
    CHECK(s.options.gpus_per_thread == 4);
    CHECK(s.visible_devices == "0,1,6,7");
    const Topology a40 = testing::library_topology("a40-8gpu-nvlink-pairs.yaml");
    const std::vector<DeviceId> ranks = measured_ranks(a40, s, {}, t.file);
    REQUIRE(ranks.size() == 4);
    CHECK(a40.display_name(ranks[2]) == "gpu6");
  }

  TEST_CASE("compare: nccl-tests' nccl-library word sets the NCCL release") {
    // Case 53 ran NCCL 2.29.2: "# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902".
    const NcclTestsTable shipped = load_nccl_tests_output(
        testing::validation_file("nccl-tests/53-h100x8-1node-all_reduce-xxrjun.txt"));
    CHECK(shipped.nccl_version_code == 22902);
    CHECK(measured_setup(shipped).options.nccl_version == NcclVersion{2, 29});
    // An older run: 2.18.3 is modelled as 2.18 (the patch level changes nothing modelled).
    const NcclTestsTable older = parse_nccl_tests_output(
        "# nccl-tests version 2.13.8 nccl-headers=21803 nccl-library=21803\n"
        "# ./build/all_reduce_perf -b 1M -e 1M\n# Using devices\n#  Rank  0 Group  0 Pid 1 on host device  0 [0x01] NVIDIA H100\n"
        "#  Rank  1 Group  0 Pid 1 on host device  1 [0x02] NVIDIA H100\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
        "     1048576        262144     float     sum      -1    20.00   52.43   52.43      0\n",
        "older.txt");
    const MeasuredSetup s = measured_setup(older);
    CHECK(s.options.nccl_version == NcclVersion{2, 18});
    CHECK(std::find(s.inferred.begin(), s.inferred.end(),
                    "NCCL 2.18 (nccl-library=21803): --nccl-version 2.18") != s.inferred.end());
    // A code beyond the releases known keeps the default and says so.
    const NcclTestsTable future = parse_nccl_tests_output(
        "# nccl-tests version 9.0.0 nccl-headers=39900 nccl-library=39900\n"
        "# ./build/all_reduce_perf -b 1M -e 1M\n#  Rank  0 Group  0 Pid 1 on host device  0 [0x01] NVIDIA H100\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
        "     1048576        262144     float     sum      -1    20.00   52.43   52.43      0\n",
        "future.txt");
    CHECK(measured_setup(future).options.nccl_version == kDefaultNcclVersion);
  }

  TEST_CASE("compare: a calibration header's nccl_version sets the release the output omits") {
    // Table 09 states "# nccl_version: 2.16.2 (coreweave container)" and prints no preamble.
    const NcclTestsTable shipped = load_nccl_tests_output(
        testing::validation_file("nccl-tests/09-a100x4-dgx-p2pdisable-allreduce-llminsights.txt"));
    CHECK(shipped.nccl_version_code == 21602);
    CHECK(shipped.nccl_version_source == "the header");
    const MeasuredSetup s = measured_setup(shipped);
    CHECK(s.options.nccl_version == NcclVersion{2, 16});
    CHECK(std::find(s.inferred.begin(), s.inferred.end(),
                    "NCCL 2.16 (the header): --nccl-version 2.16") != s.inferred.end());
    const std::string rows =
        "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
        "     1048576        262144     float     sum      -1    20.00   52.43   52.43      0\n";
    const auto code = [&](const std::string& header) {
      return parse_nccl_tests_output("# gpus_per_node: 2\n# nodes: 1\n# collective: all_reduce\n" +
                                         header + rows, "h.txt")
          .nccl_version_code;
    };
    CHECK(code("# nccl_version: 2.19.3 per manifest image\n") == 21903);
    CHECK(code("# nccl_version: 2.18\n") == 21800);
    // Words first, a bare number or no header: no release stated.
    CHECK(code("# nccl_version: not printed\n") == 0);
    CHECK(code("# nccl_version: probably 2.16.2\n") == 0);
    CHECK(code("# nccl_version: 2\n") == 0);
    CHECK(code("") == 0);
    // nccl-tests' own preamble wins over the header.
    CHECK(code("# nccl_version: 2.16.2\n# nccl-tests version 2.17.8 nccl-headers=22902 "
               "nccl-library=22902\n") == 22902);
  }

  TEST_CASE("compare: too many ranks for the topology is a clear error") {
    const NcclTestsTable t = load_nccl_tests_output(
        testing::validation_file("nccl-tests/02-h100x16-2node-ib-allreduce-bitdeer.txt"));
    const Topology dgx = testing::library_topology("dgx-h100.yaml");
    try {
      measured_ranks(dgx, measured_setup(t), {}, t.file);
      FAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
      CHECK(e.message() == "expected at most 8 ranks, the GPUs of dgx-h100; the output has 16 "
                           "(a larger machine: --set nodes=N, or another --topo)");
    }
  }

  TEST_CASE("compare: every shipped real output is read and compared row by row") {
    const std::vector<std::string> files = testing::validation_files("nccl-tests");
    REQUIRE(!files.empty());
    for (const std::string& path : files) {
      CAPTURE(path);
      const std::vector<NcclTestsTable> tables = load_nccl_tests_outputs(path);
      const std::vector<Comparison> comparisons = testing::compare_validation_file(path);
      REQUIRE(comparisons.size() == tables.size());
      for (size_t t = 0; t < tables.size(); ++t) {
        const NcclTestsTable& table = tables[t];
        const Comparison& cmp = comparisons[t];
        size_t measured = 0;
        for (const NcclTestsRow& row : table.rows) measured += row.size_bytes > 0 && row.time_us > 0;
        CHECK(cmp.rows.size() == measured);
        CHECK(!cmp.verdicts.empty());
        const std::string text = render_comparison_text(cmp);
        CHECK(text.find("# verdict ") != std::string::npos);
      }
    }
  }
}

TEST_SUITE("calibration") {
  TEST_CASE("compare: `linksim coll compare` prints its side-by-side for every shipped output") {
    const std::vector<std::string> files = testing::validation_files("nccl-tests");
    REQUIRE(!files.empty());
    const YAML::Node cases =
        YAML::LoadFile(std::string(LINKSIM_SOURCE_DIR) + "/tests/data/calibration/cases.yaml")["cases"];
    for (const std::string& path : files) {
      CAPTURE(path);
      const std::string name = std::filesystem::path(path).filename().string();
      std::string args = fmt::format("coll compare '{}'", path);
      for (const YAML::Node& c : cases) {
        if (c["file"].as<std::string>() != name) continue;
        args += fmt::format(" --topo '{}/topologies/{}'", LINKSIM_SOURCE_DIR,
                            c["topology"].as<std::string>());
        const YAML::Node flags = c["args"];
        for (size_t i = 0; flags && i + 1 < flags.size(); ++i) {
          const std::string flag = flags[i].as<std::string>();
          if (flag == "--set" || flag == "--per-node") {
            args += fmt::format(" {} '{}'", flag, flags[i + 1].as<std::string>());
          }
        }
      }
      const testing::CliRun run = testing::run_linksim(args);
      CHECK_MESSAGE(run.status == 0, run.err);
      CHECK(run.out.find("# linksim coll compare: ") == 0);
      CHECK(run.out.find("# verdict ") != std::string::npos);
    }
  }

  TEST_CASE("compare: coll --json rows carry their band, ordered low <= time <= high") {
    const testing::CliRun run = testing::run_linksim(
        fmt::format("coll allreduce --topo '{}/topologies/dgx-h100.yaml' -b 8 -e 8G -f 4 --json",
                    LINKSIM_SOURCE_DIR));
    REQUIRE(run.status == 0);
    const nlohmann::json doc = nlohmann::json::parse(run.out);
    REQUIRE(doc["results"].size() == 16);
    for (const nlohmann::json& row : doc["results"]) {
      CAPTURE(row.dump());
      REQUIRE(row.contains("time_low_us"));
      REQUIRE(row.contains("time_high_us"));
      const std::string confidence = row["confidence"].get<std::string>();
      CHECK((confidence == "validated" || confidence == "extrapolated"));
      CHECK(row["time_low_us"].get<double>() <= row["time_us"].get<double>());
      CHECK(row["time_us"].get<double>() <= row["time_high_us"].get<double>());
      CHECK(row["time_low_us"].get<double>() > 0);
    }
    // NVLS on an NVSwitch server is covered by the shipped tables (01, 53-55).
    CHECK(doc["results"].back()["confidence"] == "validated");
  }
}

TEST_SUITE("calibration") {
  TEST_CASE("calibrate: the written profile, given to --calibration, makes compare closer") {
    const std::string table = testing::validation_file(
        "nccl-tests/36-rtx2080ti-x2-pix-nop2p-all_gather-autodl.txt");
    const std::string topo = std::string(LINKSIM_SOURCE_DIR) + "/topologies/dual-2080ti.yaml";
    const std::string profile =
        (linksim::testing::scratch_path("linksim-calibrate-test-2080ti.yaml")).string();
    const testing::CliRun fit = testing::run_linksim(
        fmt::format("calibrate '{}' --topo '{}' --out '{}'", table, topo, profile));
    REQUIRE_MESSAGE(fit.status == 0, fit.err);
    CHECK(fit.out.find("host_staging_rate") != std::string::npos);
    CHECK(fit.out.find("nvls_efficiency") != std::string::npos);
    CHECK(fit.out.find("left at its default: no measured row depends on it") != std::string::npos);
    const auto rms_of = [&](const std::string& extra) {
      const testing::CliRun run =
          testing::run_linksim(fmt::format("coll compare '{}' --topo '{}' --json{}", table, topo, extra));
      REQUIRE_MESSAGE(run.status == 0, run.err);
      double sum = 0;
      int n = 0;
      const nlohmann::json doc = nlohmann::json::parse(run.out);
      for (const auto& row : doc["comparisons"][0]["rows"]) {
        const double e = std::log(row["time_us"].get<double>() / row["measured_time_us"].get<double>());
        sum += e * e;
        ++n;
      }
      REQUIRE(n > 0);
      return std::sqrt(sum / n);
    };
    const double before = rms_of("");
    const double after = rms_of(fmt::format(" --calibration '{}'", profile));
    MESSAGE(fmt::format("36-2080ti allgather: RMS ln error {:.4f} -> {:.4f}", before, after));
    CHECK(after < 0.9 * before);
    std::filesystem::remove(profile);
  }

  TEST_CASE("calibrate: a bad --calibration profile is an error at its line and column") {
    const testing::CliRun run = testing::run_linksim(fmt::format(
        "coll allreduce --topo '{0}/topologies/dgx-h100.yaml' --size 1M --calibration "
        "'{0}/tests/data/calibration/bad_profile.yaml'",
        LINKSIM_SOURCE_DIR));
    CHECK(run.status == 2);
    CHECK(run.err.find("bad_profile.yaml:4:3: error: unknown key \"nvlink_eficiency\"; did you "
                       "mean \"nvlink_efficiency\"?") != std::string::npos);
  }
}
