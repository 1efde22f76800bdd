// SPDX-License-Identifier: Apache-2.0
// nvidia-smi style matrices: exact text for the docs' tiny-pair machine, bandwidth matrix.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "linksim/topo_matrix.hpp"
#include "linksim/topo_matrix_report.hpp"
#include "support/mini_topologies.hpp"

namespace linksim {
namespace {

Topology tiny_pair() {
  detail::FabricSpec spec;
  spec.radix = 40;
  return testing::make_cluster(1, spec);
}

}  // namespace

TEST_SUITE("routing") {

TEST_CASE("topo matrix: tiny pair, cells and affinity") {
  const Topology t = tiny_pair();
  const TopoMatrix m = topo_matrix(Router(t), 0);
  CHECK(m.names == std::vector<std::string>{"GPU0", "GPU1", "NIC0"});
  CHECK(m.cells[0] == std::vector<std::string>{"X", "NV4", "PIX"});
  CHECK(m.cells[2] == std::vector<std::string>{"PIX", "PIX", "X"});
  CHECK(m.cpu_affinity == std::vector<std::string>{"0-31", "0-31"});
  CHECK(m.numa_affinity == std::vector<std::string>{"0", "0"});
  CHECK(m.gpu_numa_id == std::vector<std::string>{"N/A", "N/A"});  // discrete GPUs
  CHECK(m.nic_ports == std::vector<std::string>{"mlx5_0"});
  CHECK(m.nic_legend == std::vector<std::string>{"NIC0: mlx5_0"});
}

TEST_CASE("topo matrix: rendered text, tab-separated as nvidia-smi prints it") {
  // The layout of data/validation/topo-m/13-rtx4090-x8-pcie-switch-server-topo-m-nccltests307.txt:
  // a leading tab, " X " on the diagonal, an empty field before GPU NUMA ID.
  const Topology t = tiny_pair();
  const std::string expected =
      "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tNV4\tPIX\t0-31\t0\t\tN/A\n"
      "GPU1\tNV4\t X \tPIX\t0-31\t0\t\tN/A\n"
      "NIC0\tPIX\tPIX\t X\n"
      "\n"
      "Legend:\n"
      "\n"
      "  X    = Self\n"
      "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
      "(e.g., QPI/UPI)\n"
      "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host "
      "Bridges within a NUMA node\n"
      "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
      "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
      "Bridge)\n"
      "  PIX  = Connection traversing at most a single PCIe bridge\n"
      "  NV#  = Connection traversing a bonded set of # NVLinks\n"
      "\n"
      "NIC Legend:\n"
      "\n"
      "  NIC0: mlx5_0\n";
  CHECK(render_topo_matrix(topo_matrix(Router(t), 0)) == expected);
}

TEST_CASE("topo matrix: bandwidth matrix") {
  // GPU0 <-> GPU1: one direct bond of 4 NVLink lanes x 25 GB/s = 100 GB/s per direction.
  const Topology t = tiny_pair();
  const auto bw = gpu_bandwidth_matrix_GBps(Router(t), 0);
  CHECK(bw[0][1] == doctest::Approx(100.0));
  CHECK(bw[1][0] == doctest::Approx(100.0));
  CHECK(bw[0][0] == 0.0);
  CHECK(render_bandwidth_matrix(bw) ==
        "      GPU0   GPU1\n"
        "GPU0  X      100.0\n"
        "GPU1  100.0  X\n");
}

TEST_CASE("topo matrix: JSON") {
  const Topology t = tiny_pair();
  const Router router(t);
  const nlohmann::json doc = nlohmann::json::parse(render_topo_matrix_json(
      "tiny", 0, topo_matrix(router, 0), gpu_bandwidth_matrix_GBps(router, 0)));
  CHECK(doc["topology"] == "tiny");
  CHECK(doc["host"] == 0);
  CHECK(doc["devices"] == nlohmann::json::array({"GPU0", "GPU1", "NIC0"}));
  CHECK(doc["matrix"][0] == nlohmann::json::array({"X", "NV4", "PIX"}));
  CHECK(doc["matrix"][2] == nlohmann::json::array({"PIX", "PIX", "X"}));
  CHECK(doc["gpus"][1] == nlohmann::json{{"name", "GPU1"}, {"cpu_affinity", "0-31"},
                                         {"numa_affinity", "0"}, {"gpu_numa_id", "N/A"}});
  CHECK(doc["nics"] == nlohmann::json::array({{{"name", "NIC0"}, {"port", "mlx5_0"}}}));
  // 4 NVLink lanes x 25 GB/s per direction.
  CHECK(doc["bandwidth_GBps"] == nlohmann::json::array({{0.0, 100.0}, {100.0, 0.0}}));
}

TEST_CASE("topo matrix: host out of range") {
  const Topology t = tiny_pair();
  CHECK_THROWS_WITH_AS(topo_matrix(Router(t), 1),
                       "linksim: error: expected a host between 0 and 0, got 1", ConfigError);
}

}  // TEST_SUITE

}  // namespace linksim
