// SPDX-License-Identifier: Apache-2.0
// The nvidia-smi topo -m parser: every real capture parses; malformed tables fail with positions.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "linksim/sysimport.hpp"
#include "support/validation_data.hpp"

namespace {

using linksim::ConfigError;
using linksim::DeviceKind;
using linksim::parse_nvidia_smi_topo;
using linksim::PathClass;

std::string cell(const linksim::SmiMatrix& m, size_t r, size_t c) {
  return m.cells[r][c].label();
}

}  // namespace

TEST_SUITE("sysimport") {

TEST_CASE("nvidia-smi: every real topo -m output in the calibration set parses") {
  int parsed = 0;
  for (const std::string& path : linksim::testing::validation_files("topo-m")) {
    const std::string name = std::filesystem::path(path).filename().string();
    if (name.find("nccl-topo-xml") != std::string::npos) continue;  // the XML dump
    CAPTURE(name);
    const linksim::SmiMatrix m = linksim::read_nvidia_smi_topo(path);
    CHECK(m.count(DeviceKind::kGpu) >= 2);
    ++parsed;
  }
  CHECK(parsed >= 4);
}

TEST_CASE("nvidia-smi: DGX-1 capture with tabs and a shell prompt") {
  const auto m = linksim::read_nvidia_smi_topo(
      linksim::testing::validation_file("topo-m/06-v100x8-dgx1-cubemesh-topo-m-konnase.txt"));
  REQUIRE(m.devices.size() == 8);
  // Row GPU0 reads: X NV1 NV1 NV2 SYS SYS NV2 SYS, CPU Affinity 0-95.
  CHECK(cell(m, 0, 1) == "NV1");
  CHECK(cell(m, 0, 3) == "NV2");
  CHECK(m.cells[0][4].cls == PathClass::kSys);
  CHECK(m.devices[7].cpu_affinity == "0-95");
  CHECK(m.devices[7].numa_affinity.empty());
  CHECK_FALSE(m.has_nic_columns);
  // The header is line 9 of the file (7 header lines + prompt), so GPU3's row is line 13.
  CHECK(m.devices[3].where.line == 13);
}

TEST_CASE("nvidia-smi: NIC rows, legend and an empty tab-separated field") {
  const auto m = linksim::read_nvidia_smi_topo(linksim::testing::validation_file(
      "topo-m/13-rtx4090-x8-pcie-switch-server-topo-m-nccltests307.txt"));
  REQUIRE(m.devices.size() == 9);
  CHECK(m.count(DeviceKind::kNic) == 1);
  CHECK(m.devices[8].label == "NIC0");
  CHECK(m.devices[8].port_name == "mlx5_bond_0");
  CHECK(cell(m, 8, 0) == "PIX");
  CHECK(cell(m, 8, 4) == "SYS");
  CHECK(m.devices[4].cpu_affinity == "36-71,108-143");
  CHECK(m.devices[4].numa_affinity == "1");
  CHECK(m.devices[4].gpu_numa_id == "N/A");
}

TEST_CASE("nvidia-smi: CRLF line ends, trailing blanks and pre-legend NIC names") {
  const std::string text =
      "\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\r\n"
      "GPU0\t X \tNV4\tPXB\t0-15  \r\n"
      "GPU1\tNV4\t X \tPXB\t0-15\r\n"
      "mlx5_0\tPXB\tPXB\t X \r\n";
  const auto m = parse_nvidia_smi_topo(text, "input");
  REQUIRE(m.devices.size() == 3);
  CHECK(m.devices[2].kind == DeviceKind::kNic);
  CHECK(m.devices[2].port_name == "mlx5_0");
  CHECK(cell(m, 0, 1) == "NV4");
  CHECK(m.devices[0].cpu_affinity == "0-15");
}

TEST_CASE("nvidia-smi: malformed tables fail at their position") {
  SUBCASE("no table") {
    CHECK_THROWS_WITH_AS(parse_nvidia_smi_topo("hello\n", "input"),
                         "input:1:1: error: expected an nvidia-smi topo -m table (a header row "
                         "of GPU0.. columns), found none",
                         ConfigError);
  }
  SUBCASE("truncated at end of input") {
    CHECK_THROWS_WITH_AS(parse_nvidia_smi_topo("\tGPU0\tGPU1\nGPU0\t X \tPIX\n", "input"),
                         "input:3:1: error: truncated table: expected row GPU1, got end of input",
                         ConfigError);
  }
  SUBCASE("truncated by a blank line") {
    CHECK_THROWS_WITH_AS(
        parse_nvidia_smi_topo("\tGPU0\tGPU1\nGPU0\t X \tPIX\n\nLegend:\n", "input"),
        "input:3:1: error: truncated table: expected row GPU1, got a blank line", ConfigError);
  }
  SUBCASE("ragged row: a cell missing") {
    // Header: 2 device columns + CPU Affinity = 3 fields per GPU row; GPU1 has 2.
    CHECK_THROWS_WITH_AS(
        parse_nvidia_smi_topo("  GPU0 GPU1 CPU Affinity\nGPU0  X  PIX 0-7\nGPU1 PIX 0-7\n",
                              "input"),
        "input:3:13: error: ragged row GPU1: expected 3 fields (2 cells, CPU Affinity), got 2",
        ConfigError);
  }
  SUBCASE("ragged row: an extra field") {
    CHECK_THROWS_WITH_AS(
        parse_nvidia_smi_topo("  GPU0 GPU1\nGPU0  X  PIX\nGPU1 PIX  X  SYS\n", "input"),
        "input:3:14: error: ragged row GPU1: expected 2 fields (2 cells), got 3", ConfigError);
  }
  SUBCASE("unknown cell code") {
    CHECK_THROWS_WITH_AS(
        parse_nvidia_smi_topo("  GPU0 GPU1\nGPU0  X  PIY\nGPU1 PIX  X\n", "input"),
        "input:2:10: error: expected a cell code (X, NV#, PIX, PXB, PHB, NODE or SYS), got 'PIY'",
        ConfigError);
  }
  SUBCASE("X off the diagonal") {
    CHECK_THROWS_WITH_AS(
        parse_nvidia_smi_topo("  GPU0 GPU1\nGPU0  X  X\nGPU1 PIX  X\n", "input"),
        "input:2:10: error: expected a path class between GPU0 and GPU1, got 'X'", ConfigError);
  }
  SUBCASE("rows out of order") {
    CHECK_THROWS_WITH_AS(
        parse_nvidia_smi_topo("  GPU0 GPU1\nGPU1 PIX  X\nGPU0  X  PIX\n", "input"),
        "input:2:1: error: expected row GPU0, got 'GPU1'", ConfigError);
  }
  SUBCASE("asymmetric cells") {
    CHECK_THROWS_WITH_AS(
        parse_nvidia_smi_topo("  GPU0 GPU1\nGPU0  X  PIX\nGPU1 SYS  X\n", "input"),
        "input:3:6: error: expected PIX (as GPU0-GPU1), got 'SYS'", ConfigError);
  }
  SUBCASE("GPU columns out of order") {
    CHECK_THROWS_WITH_AS(parse_nvidia_smi_topo("  GPU0 GPU2\n", "input"),
                         "input:1:8: error: expected column GPU1, got 'GPU2'", ConfigError);
  }
}

TEST_CASE("nvidia-smi: malformed files under tests/data/sysimport fail with positions") {
  const std::string dir = LINKSIM_SOURCE_DIR "/tests/data/sysimport/";
  CHECK_THROWS_WITH_AS(linksim::read_nvidia_smi_topo(dir + "truncated-topo-m.txt"),
                       (dir + "truncated-topo-m.txt:5:1: error: truncated table: expected row "
                              "GPU2, got a blank line").c_str(),
                       ConfigError);
  CHECK_THROWS_WITH_AS(linksim::read_nvidia_smi_topo(dir + "unknown-cell-topo-m.txt"),
                       (dir + "unknown-cell-topo-m.txt:3:14: error: expected a cell code (X, "
                              "NV#, PIX, PXB, PHB, NODE or SYS), got 'NVL'").c_str(),
                       ConfigError);
}

}  // TEST_SUITE
