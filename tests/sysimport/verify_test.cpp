// SPDX-License-Identifier: Apache-2.0
// topo verify: matrices compared cell by cell; shipped topologies against their real machines.
#include <doctest/doctest.h>

#include <string>

#include "linksim/routing.hpp"
#include "linksim/sysimport.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/validation_data.hpp"

namespace {

const std::string kTopologies = LINKSIM_SOURCE_DIR "/topologies/";

linksim::VerifyReport verify_file(const std::string& topology, const std::string& capture) {
  const linksim::Topology t = linksim::load_topology(kTopologies + topology);
  const linksim::Router router(t);
  return linksim::compare_matrices(linksim::implied_matrix(router, 0),
                                   linksim::read_nvidia_smi_topo(
                                       linksim::testing::validation_file("topo-m/" + capture)));
}

}  // namespace

TEST_SUITE("sysimport") {

TEST_CASE("verify: diff text names each differing pair, claim first") {
  // Claim: GPU0-GPU1 NV4, both PIX to NIC0. Reality: GPU0-GPU1 PIX, GPU1-NIC0 PXB.
  const auto claim = linksim::parse_nvidia_smi_topo(
      "  GPU0 GPU1 NIC0\nGPU0  X  NV4 PIX\nGPU1 NV4  X  PIX\nNIC0 PIX PIX  X\n", "claim");
  const auto real = linksim::parse_nvidia_smi_topo(
      "  GPU0 GPU1 NIC0\nGPU0  X  PIX PIX\nGPU1 PIX  X  PXB\nNIC0 PIX PXB  X\n", "real");
  const linksim::VerifyReport report = linksim::compare_matrices(claim, real);
  CHECK_FALSE(report.match());
  CHECK(report.text() ==
        "GPU0-GPU1: expected NV4, found PIX\n"
        "GPU1-NIC0: expected PIX, found PXB\n"
        "mismatch: 2 of 3 compared pairs differ\n");
}

TEST_CASE("verify: device counts and GPU-only real outputs") {
  const auto claim = linksim::parse_nvidia_smi_topo(
      "  GPU0 GPU1 GPU2 NIC0\nGPU0  X  NV1 NV1 PIX\nGPU1 NV1  X  NV1 PIX\n"
      "GPU2 NV1 NV1  X  PIX\nNIC0 PIX PIX PIX  X\n",
      "claim");
  const auto real = linksim::parse_nvidia_smi_topo("  GPU0 GPU1\nGPU0  X  NV1\nGPU1 NV1  X\n",
                                                   "real");
  const linksim::VerifyReport report = linksim::compare_matrices(claim, real);
  // Only GPU0-GPU1 exists on both sides; NIC0 is skipped because the real output has no NICs.
  CHECK(report.text() ==
        "GPU count: the claim has 3 GPUs, the real output 2 GPUs\n"
        "note: the real output shows no NIC columns: the claim's 1 NIC not compared\n"
        "mismatch: 0 of 1 compared pair differ, and the device counts differ\n");
}

TEST_CASE("verify: a matrix agrees with itself") {
  const auto m = linksim::parse_nvidia_smi_topo("  GPU0 GPU1\nGPU0  X  SYS\nGPU1 SYS  X\n", "m");
  const linksim::VerifyReport report = linksim::compare_matrices(m, m);
  CHECK(report.match());
  CHECK(report.text() == "match: 1 pair agree\n");
}

TEST_CASE("verify: shipped topologies match their machines' real outputs") {
  CHECK(verify_file("dgx1-v100.yaml", "06-v100x8-dgx1-cubemesh-topo-m-konnase.txt").match());
  CHECK(verify_file("dgx-a100.yaml", "04-a100x8-nvswitch-topo-m-mleng.txt").match());
  CHECK(verify_file("dual-2080ti.yaml", "07-rtx2080ti-x2-pix-topo-m-autodl.txt").match());
  CHECK(verify_file("dgx1-v100-broadwell.yaml", "14-v100x8-dgx1v-topo-m-empovit.txt").match());
  CHECK(verify_file("rtx4090-8gpu-server.yaml",
                    "13-rtx4090-x8-pcie-switch-server-topo-m-nccltests307.txt")
            .match());
}

TEST_CASE("verify: a different machine's output is a mismatch with a readable diff") {
  // DGX A100 (NV12 everywhere) against DGX-1's cube mesh: GPU0 row reads NV1 NV1 NV2 SYS SYS
  // NV2 SYS, so GPU0-GPU1 is the first differing pair.
  const linksim::VerifyReport report =
      verify_file("dgx-a100.yaml", "06-v100x8-dgx1-cubemesh-topo-m-konnase.txt");
  CHECK_FALSE(report.match());
  CHECK(report.text().rfind("GPU0-GPU1: expected NV12, found NV1\n", 0) == 0);
  CHECK(report.mismatches.size() == 28);  // all 8*7/2 GPU pairs differ
}

}  // TEST_SUITE
