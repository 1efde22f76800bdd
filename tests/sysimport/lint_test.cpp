// SPDX-License-Identifier: Apache-2.0
// topo lint: one purpose-built topology per rule (tests/data/sysimport/lint-*.yaml), the DGX
// descriptions clean, and the real weaknesses of pcie-8gpu and dual-4090 named.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "linksim/routing.hpp"
#include "linksim/sysimport.hpp"
#include "linksim/topology_yaml.hpp"

namespace {

std::vector<linksim::LintWarning> lint(const std::string& path) {
  const linksim::Topology t = linksim::load_topology(path);
  const linksim::Router router(t);
  return linksim::lint_topology(router, 0);
}

std::vector<linksim::LintWarning> lint_data(const std::string& name) {
  return lint(LINKSIM_SOURCE_DIR "/tests/data/sysimport/" + name);
}

// Messages of the warnings of one rule.
std::vector<std::string> messages(const std::vector<linksim::LintWarning>& warnings,
                                  const std::string& rule) {
  std::vector<std::string> out;
  for (const auto& w : warnings) {
    if (w.rule == rule) out.push_back(w.message);
  }
  return out;
}

bool has_rule(const std::vector<linksim::LintWarning>& warnings, const std::string& rule) {
  return !messages(warnings, rule).empty();
}

}  // namespace

TEST_SUITE("sysimport") {

TEST_CASE("lint gdr-lost: the only NIC is on the other socket") {
  const auto w = lint_data("lint-gdr-lost.yaml");
  REQUIRE(w.size() == 1);
  CHECK(w[0].rule == "gdr-lost");
  CHECK(w[0].devices == std::vector<std::string>{"gpu0", "nic0"});
  CHECK(w[0].message ==
        "gpu0: nearest NIC nic0 is SYS, across the socket link: GPUDirect RDMA is off at "
        "NCCL's default NCCL_NET_GDR_LEVEL (PXB), network traffic is staged through host memory");
}

TEST_CASE("lint pcie-oversubscribed: two PCIe-only GPUs behind one x16 uplink") {
  // Each GPU link is pcie4 x16 = 16 x 1.96875 GB/s = 31.5 GB/s; two of them = 63 GB/s behind
  // a 31.5 GB/s uplink: 2.0:1. The NIC serves GPUs below the same switch, so it is not counted.
  const auto w = lint_data("lint-pcie-oversubscribed.yaml");
  REQUIRE(w.size() == 1);
  CHECK(w[0].devices == std::vector<std::string>{"sw0", "gpu0", "gpu1"});
  CHECK(w[0].message ==
        "sw0: gpu0, gpu1 share one pcie4 x16 uplink: 63 GB/s of device links behind 31.5 GB/s "
        "(2.0:1); traffic leaving the switch (other switches, the other socket, host-staged "
        "copies) is throttled");
}

TEST_CASE("lint nvlink-lanes: 4 of an A100's 12 NVLinks wired") {
  // 4 / 12 = 33%.
  const auto w = lint_data("lint-nvlink-lanes.yaml");
  REQUIRE(w.size() == 1);
  CHECK(w[0].message ==
        "gpu0, gpu1 (a100-sxm-80g): 4 of the 12 NVLinks on its datasheet are wired: NVLink "
        "bandwidth is 33% of the design");
}

TEST_CASE("lint p2p-disabled: GeForce cards") {
  const auto w = lint_data("lint-p2p-disabled.yaml");
  REQUIRE(w.size() == 1);
  CHECK(w[0].message ==
        "gpu0, gpu1: the driver disables PCIe peer-to-peer (consumer card): NCCL moves "
        "GPU-to-GPU data through host memory (SHM), both legs on PCIe");
}

TEST_CASE("lint p2p-level: GPUs under different host bridges are NODE, beyond PXB") {
  const auto w = lint_data("lint-p2p-level.yaml");
  REQUIRE(w.size() == 1);
  CHECK(w[0].message ==
        "GPU pairs beyond NCCL's default P2P level (PXB, a generic host): gpu0-gpu1 (NODE): "
        "NCCL refuses P2P between them and copies through host memory (SHM)");
}

TEST_CASE("lint p2p-level: an AMD host with two GPUs allows P2P across its sockets") {
  // NCCL 2.23+: SYS on AMD with at most two GPUs, so gpu0 (socket 0) - gpu1 (socket 1) is fine.
  const std::string file = LINKSIM_SOURCE_DIR "/tests/data/sysimport/lint-p2p-level-amd.yaml";
  const linksim::Topology pair = linksim::load_topology(file);
  CHECK(messages(linksim::lint_topology(linksim::Router(pair), 0), "p2p-level").empty());
  // Three GPUs: PXB, and the SYS and NODE pairs are flagged.
  const linksim::Topology three = linksim::load_topology(file, {{"last", "2"}});
  CHECK(messages(linksim::lint_topology(linksim::Router(three), 0), "p2p-level") ==
        std::vector<std::string>{
            "GPU pairs beyond NCCL's default P2P level (PXB, an amd-zen3 host): gpu0-gpu1 (SYS), "
            "gpu0-gpu2 (SYS), gpu1-gpu2 (NODE): NCCL refuses P2P between them and copies "
            "through host memory (SHM)"});
}

TEST_CASE("lint nic-rail: too few NICs, and a NIC slower than the GPUs' rail rate") {
  // 3 GPUs need ceil(3/2) = 2 NICs; h100-sxm is PCIe Gen5, whose rail rate is NDR 400 Gb/s =
  // 50 GB/s, against HDR 200 Gb/s = 25 GB/s shared by 3 GPUs = 8.333 GB/s each.
  const auto w = lint_data("lint-nic-rail.yaml");
  CHECK(messages(w, "nic-rail") ==
        std::vector<std::string>{
            "1 NIC(s) for 3 GPUs: below the rail design (at least one NIC per 2 GPUs): GPUs "
            "share NICs for traffic between servers",
            "network bandwidth per GPU is 8.333 GB/s (1 NIC(s), 25 GB/s in all, for 3 GPUs), "
            "below the rail rate for PCIe Gen5 GPUs (ib_ndr, 50 GB/s): inter-server traffic is "
            "capped below what each GPU could feed"});
  CHECK(w.size() == 2);
}

TEST_CASE("lint ring-crosses-socket: one PCIe GPU per socket") {
  const auto w = lint_data("lint-ring-crosses-socket.yaml");
  CHECK(messages(w, "ring-crosses-socket") ==
        std::vector<std::string>{
            "a ring over gpu0, gpu1 must cross the socket link (e.g. gpu0-gpu1 is SYS) with no "
            "NVLink around it: ring bandwidth is capped by the inter-socket path"});
  CHECK(has_rule(w, "p2p-level"));  // SYS is beyond PXB too
}

TEST_CASE("lint nvlink-asymmetric: a chain of NVLink bonds") {
  // gpu0-gpu1 and gpu1-gpu2 bonds of 6: gpu1 has 12 links, gpu0 and gpu2 have 6.
  const auto w = lint_data("lint-nvlink-asymmetric.yaml");
  CHECK(messages(w, "nvlink-asymmetric") ==
        std::vector<std::string>{
            "asymmetric NVLink wiring (gpu0 6, gpu1 12, gpu2 6): collectives run at the pace of "
            "the GPU with the fewest links (6)"});
  CHECK(has_rule(w, "nvlink-lanes"));
}

TEST_CASE("lint: DGX descriptions are clean") {
  for (const std::string name : {"dgx-a100.yaml", "dgx-h100.yaml", "dgx1-v100.yaml"}) {
    CAPTURE(name);
    const auto w = lint(LINKSIM_SOURCE_DIR "/topologies/" + name);
    for (const auto& warning : w) MESSAGE(warning.message);
    CHECK(w.empty());
  }
}

TEST_CASE("lint: pcie-8gpu and dual-4090 have their weaknesses named") {
  const auto pcie = lint(LINKSIM_SOURCE_DIR "/topologies/pcie-8gpu.yaml");
  CHECK(has_rule(pcie, "pcie-oversubscribed"));
  CHECK(has_rule(pcie, "p2p-level"));
  CHECK(has_rule(pcie, "ring-crosses-socket"));
  const auto dual = lint(LINKSIM_SOURCE_DIR "/topologies/dual-4090.yaml");
  CHECK(has_rule(dual, "p2p-disabled"));
}

}  // TEST_SUITE
