// SPDX-License-Identifier: Apache-2.0
// summarize_topology (linksim/topology_summary.hpp): what `topo show` and Python's
// Topology.summary() report, from the shipped machines.
#include <doctest/doctest.h>

#include <string>

#include "linksim/routing.hpp"
#include "linksim/topology_summary.hpp"
#include "linksim/topology_summary_report.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim {
namespace {

TopologySummary shipped_summary(const std::string& name, const ParamOverrides& params = {}) {
  const Topology topology =
      load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/" + name + ".yaml", params);
  return summarize_topology(Router(topology));
}

TEST_CASE("topology summary: a DGX H100's parts, NVLink lanes and bisection") {
  const TopologySummary s = shipped_summary("dgx-h100");
  CHECK(s.name == "dgx-h100");
  CHECK(s.servers == 1);
  CHECK_FALSE(s.fabric.has_value());
  CHECK(s.devices_by_kind.at("gpu") == 8);
  CHECK(s.devices_by_kind.at("nvswitch") == 4);
  REQUIRE(s.gpus.size() == 8);
  CHECK(s.gpus[0].name == "GPU0");
  CHECK(s.gpus[0].nvlink_lanes == 18);  // 5 + 4 + 4 + 5 links to the four NVSwitches
  CHECK(s.gpus[0].nvlink_bw_Bps == doctest::Approx(450e9));
  REQUIRE(s.bisection_Bps.has_value());
  // Four GPUs' NVLink into the switches (4 x 450 GB/s), and 62.4 GB/s more through the CPUs.
  CHECK(*s.bisection_Bps == doctest::Approx(1862.4e9));
}

TEST_CASE("topology summary: two RTX 4090s, no NVLink, no NIC, PCIe to the CPU") {
  const TopologySummary s = shipped_summary("dual-4090");
  REQUIRE(s.gpus.size() == 2);
  CHECK(s.gpus[1].nvlink_lanes == 0);
  CHECK(s.gpus[1].pcie_path == "gpu1 > cpu0");
  CHECK(s.gpus[1].nic == "none");
  REQUIRE(s.links.size() == 1);
  CHECK(s.links[0].type == "pcie4");
  CHECK(s.links[0].count == 2);
  CHECK(s.links[0].lanes == 16);
}

TEST_CASE("topology summary: a cluster has a fabric, rendered in text and JSON") {
  const TopologySummary s = shipped_summary("dgx-h100-ib", {{"nodes", "4"}});
  CHECK(s.servers == 4);
  REQUIRE(s.fabric.has_value());
  CHECK(s.devices_by_kind.at("gpu") == 32);
  CHECK(s.gpus.size() == 8);  // server 0's
  const std::string text = render_topology_summary_text(s);
  CHECK(text.find("servers: 4\n") != std::string::npos);
  CHECK(text.find("gpus (server 0; every server is alike):") != std::string::npos);
  const std::string json = render_topology_summary_json(s);
  CHECK(json.find("\"fabric\": {") != std::string::npos);
  CHECK(json.find("\"servers\": 4") != std::string::npos);
  CHECK(json.find("\"nccl_env\": {}") != std::string::npos);
  CHECK(text.find("NCCL environment") == std::string::npos);
}

TEST_CASE("topology summary: the NCCL environment a platform's plugin sets, in text and JSON") {
  const TopologySummary s = shipped_summary("aws-p5-efa");
  CHECK(s.nccl_env.nvls_chunk_bytes == 524288);
  const std::string text = render_topology_summary_text(s);
  CHECK(text.find("NCCL environment the platform sets: NCCL_NVLS_CHUNKSIZE=524288 "
                  "NCCL_NVLSTREE_MAX_CHUNKSIZE=524288 NCCL_BUFFSIZE=8388608\n") != std::string::npos);
  const std::string json = render_topology_summary_json(s);
  CHECK(json.find("\"NCCL_NVLSTREE_MAX_CHUNKSIZE\": 524288") != std::string::npos);
}

}  // namespace
}  // namespace linksim
