// SPDX-License-Identifier: Apache-2.0
// The topology loader on valid input: devices, links, bandwidths from the catalog, pairing
// rules, ranges, parameters, --set, includes and the host-major layout.
#include <doctest/doctest.h>

#include <string>

#include "linksim/topology_yaml.hpp"

namespace linksim {
namespace {

std::string loader_data(const std::string& file) {
  return std::string(LINKSIM_SOURCE_DIR) + "/tests/data/loader/" + file;
}

// The directed link from `a` to `b` (display names); fails the test when there is none.
LinkId link_id_between(const Topology& topology, const std::string& a, const std::string& b) {
  std::optional<DeviceId> from = topology.find(a);
  std::optional<DeviceId> to = topology.find(b);
  REQUIRE(from.has_value());
  REQUIRE(to.has_value());
  for (LinkId id : topology.out_links(*from)) {
    if (topology.link(id).to == *to) return id;
  }
  FAIL("no link " << a << " -> " << b);
  return LinkId{0};
}

Link link_between(const Topology& topology, const std::string& a, const std::string& b) {
  return topology.link(link_id_between(topology, a, b));
}

bool linked(const Topology& topology, const std::string& a, const std::string& b) {
  DeviceId from = *topology.find(a);
  DeviceId to = *topology.find(b);
  for (LinkId id : topology.out_links(from)) {
    if (topology.link(id).to == to) return true;
  }
  return false;
}

// The worked example of docs/topology-format.md (GPU model spelled by its alias A40).
constexpr const char* kTinyPair = R"(
name: tiny-pair
params: {nodes: 2, gpu: A40}
node:
  devices:
    - {name: cpu0, kind: cpu, cores: "0-31"}
    - {name: sw0, kind: pcie_switch}
    - {name: "gpu[0-1]", kind: gpu, model: "${gpu}"}
    - {name: nic0, kind: nic, type: ib_hdr, port: mlx5_0}
  links:
    - {from: sw0, to: cpu0, type: pcie4, width: 16}
    - {from: "gpu[0-1]", to: sw0, type: pcie4}
    - {from: nic0, to: sw0, type: pcie4}
    - {from: gpu0, to: gpu1, type: nvlink3, lanes: 4}
nodes: ${nodes}
fabric: {kind: single_switch, radix: 40}
)";

}  // namespace

TEST_SUITE("loader") {

TEST_CASE("loader: worked example has two host blocks and one switch") {
  // Per host: cpu0 sw0 gpu0 gpu1 nic0 = 5 devices and 5 links = 10 directed links.
  // Two hosts, then the fabric: switch0 and one link per NIC (2 links, 4 directed).
  Topology topology = parse_topology(kTinyPair, "input");
  CHECK(topology.name() == "tiny-pair");
  CHECK(topology.host_count() == 2);
  CHECK(topology.devices_per_host() == 5);
  CHECK(topology.links_per_host() == 10);
  CHECK(topology.devices().size() == 2 * 5 + 1);
  CHECK(topology.links().size() == 2 * 10 + 4);
  CHECK(topology.gpus().size() == 4);
  // Host 1's block is host 0's shifted by 5 devices and 10 links.
  for (uint32_t local = 0; local < 10; ++local) {
    const Link& l0 = topology.link(LinkId{local});
    const Link& l1 = topology.link(LinkId{topology.host_link_offset(1) + local});
    CHECK(l1.from.value == l0.from.value + 5);
    CHECK(l1.to.value == l0.to.value + 5);
  }
}

TEST_CASE("loader: bandwidths come from the catalog per lane") {
  Topology topology = parse_topology(kTinyPair, "input");
  // pcie4: 1.96875 GB/s per lane x 16 = 31.5 GB/s per direction, 105 ns.
  CHECK(link_between(topology, "sw0", "cpu0").bw_Bps == doctest::Approx(31.5e9));
  CHECK(link_between(topology, "cpu0", "sw0").bw_Bps == doctest::Approx(31.5e9));
  CHECK(link_between(topology, "gpu1", "sw0").lanes == 16);
  CHECK(link_between(topology, "gpu1", "sw0").latency_s == doctest::Approx(105e-9));
  // nvlink3 is 25 GB/s per lane but an A40 port runs 14.0625 GB/s: 4 x 14.0625 = 56.25 GB/s.
  const Link nvlink = link_between(topology, "host1:gpu0", "host1:gpu1");
  CHECK(nvlink.bw_Bps == doctest::Approx(56.25e9));
  CHECK(nvlink.lanes == 4);
  CHECK(nvlink.family == LinkFamily::kNvlink);
  CHECK(topology.link_type(nvlink) == "nvlink3");
  CHECK(nvlink.latency_s == doctest::Approx(100e-9));
  // host 1's link reports its template entry, as host 0's does.
  const LinkId nvlink_id = link_id_between(topology, "host1:gpu0", "host1:gpu1");
  CHECK(topology.link_where(nvlink_id).line == 14);
  CHECK(topology.link_where(LinkId{nvlink_id.value - topology.links_per_host()}).line == 14);
  CHECK(sizeof(Link) == 32);
}

TEST_CASE("loader: device fields and host naming") {
  Topology topology = parse_topology(kTinyPair, "input");
  DeviceId gpu = *topology.find("host1:gpu1");
  CHECK(topology.display_name(gpu) == "host1:gpu1");
  const Device& g = topology.device(gpu);
  CHECK(g.host == 1);
  CHECK(g.index == 1);
  CHECK(g.model == "a40");  // alias A40 canonicalized to the catalog key
  CHECK(topology.details(g).where.line == 8);
  CHECK(topology.details(g).where.column == 14);
  const Device& nic = topology.device(*topology.find("host1:nic0"));
  CHECK(nic.model == "ib_hdr");
  CHECK(topology.details(nic).port_name == "mlx5_0");
  const Device& cpu = topology.device(*topology.find("cpu0"));
  CHECK(cpu.host == 0);
  CHECK(topology.details(cpu).numa == 0);
  CHECK(topology.details(cpu).cpu_affinity == "0-31");
  CHECK(topology.find("host2:gpu0") == std::nullopt);
}

TEST_CASE("loader: pairing rules") {
  constexpr const char* kText = R"(
name: pairing
node:
  devices:
    - {name: "gpu[0-7]", kind: gpu, model: h100-sxm}
    - {name: "sw[0-3]", kind: pcie_switch}
    - {name: "nic[0-7]", kind: nic, type: ib_ndr, port: "mlx5_[0-7]"}
    - {name: "cpu[0-1]", kind: cpu}
    - {name: "nvs[0-3]", kind: nvswitch, reduction: true}
    - {name: nvx, kind: nvswitch}
  links:
    - {from: "gpu[0-7]", to: "sw[0-3]", type: pcie5}
    - {from: "cpu[0-1]", to: "sw[0-3]", type: pcie5}
    - {from: "nic[0-7]", to: "sw[0-3]", type: pcie5}
    - {from: "gpu[0-7]", to: "nvs[0-3]", type: nvlink4, lanes: 4}
    - {from: "gpu[0-7]", to: nvx, type: nvlink4, lanes: 2}
    - {from: cpu0, to: cpu1, type: upi}
)";
  Topology topology = parse_topology(kText, "input");
  SUBCASE("n = k*m puts blocks of k on each: gpu0, gpu1 on sw0; gpu6, gpu7 on sw3") {
    CHECK(linked(topology, "gpu1", "sw0"));
    CHECK(linked(topology, "gpu2", "sw1"));
    CHECK(linked(topology, "gpu7", "sw3"));
    CHECK_FALSE(linked(topology, "gpu2", "sw0"));
  }
  SUBCASE("m = k*n: cpu0 takes sw0, sw1; cpu1 takes sw2, sw3") {
    CHECK(linked(topology, "cpu0", "sw1"));
    CHECK(linked(topology, "cpu1", "sw2"));
    CHECK_FALSE(linked(topology, "cpu0", "sw2"));
  }
  SUBCASE("many to 1 and 1 to 1: every gpu on nvx; cpu0 and cpu1 by one upi link") {
    CHECK(linked(topology, "gpu5", "nvx"));
    CHECK(linked(topology, "nvx", "gpu0"));
    // gpu-nvs blocks again: 8 GPUs on 4 switches, 2 each.
    CHECK(linked(topology, "gpu7", "nvs3"));
    CHECK_FALSE(linked(topology, "gpu5", "nvs3"));
    // 8 + 4 + 8 + 8 + 8 + 1 = 37 links, 74 directed.
    CHECK(topology.links().size() == 74);
    // nvlink4 x2: 2 x 25 GB/s = 50 GB/s.
    CHECK(link_between(topology, "nvx", "gpu3").bw_Bps == doctest::Approx(50e9));
    // upi is fixed-rate: 62.4 GB/s per direction whatever the lanes.
    CHECK(link_between(topology, "cpu1", "cpu0").bw_Bps == doctest::Approx(62.4e9));
  }
  SUBCASE("ranges expand in order, ports alongside names, ordinals by kind") {
    const Device& nic5 = topology.device(*topology.find("nic5"));
    CHECK(topology.details(nic5).port_name == "mlx5_5");
    CHECK(nic5.index == 5);
    CHECK(topology.details(*topology.find("cpu1")).numa == 1);
    CHECK(topology.device(*topology.find("nvs2")).reduction);
    CHECK(topology.device(*topology.find("nvs2")).index == 2);
    // nvlink4: 25 GB/s per lane x 4 = 100 GB/s.
    CHECK(link_between(topology, "nvs3", "gpu7").bw_Bps == doctest::Approx(100e9));
  }
}

TEST_CASE("loader: list ranges and explicit overrides") {
  constexpr const char* kText = R"(
name: overrides
node:
  devices:
    - name: gpu[0,2,5]
      kind: gpu
      model: rtx4090
    - {name: "gpu[1, 3-4]", kind: gpu, model: rtx3090, p2p: false}
    - {name: cpu0, kind: cpu, numa: 3}
  links:
    - {from: "gpu[0-5]", to: cpu0, type: pcie5, width: 8, latency: 1.2 us}
    - {from: gpu3, to: gpu1, type: nvlink3, bandwidth: 400 Gb/s}
)";
  Topology topology = parse_topology(kText, "input");
  // Declaration order numbers GPUs: gpu0 gpu2 gpu5 gpu1 gpu3 gpu4 get indices 0..5.
  CHECK(topology.device(*topology.find("gpu5")).index == 2);
  CHECK(topology.device(*topology.find("gpu1")).index == 3);
  // rtx4090: the catalog says no P2P; rtx3090 has it, and the second entry overrides that.
  CHECK_FALSE(topology.device(*topology.find("gpu2")).p2p);
  CHECK_FALSE(topology.device(*topology.find("gpu3")).p2p);
  CHECK(topology.details(*topology.find("cpu0")).numa == 3);
  // pcie5 x8: 3.9375 GB/s x 8 = 31.5 GB/s; latency override 1.2 us.
  const Link& pcie = link_between(topology, "gpu4", "cpu0");
  CHECK(pcie.bw_Bps == doctest::Approx(31.5e9));
  CHECK(pcie.lanes == 8);
  CHECK(pcie.latency_s == doctest::Approx(1.2e-6));
  // 400 Gb/s = 50e9 bytes/s, the override wins over the RTX 3090's 14.0625 GB/s x 1 lane.
  CHECK(link_between(topology, "gpu1", "gpu3").bw_Bps == doctest::Approx(50e9));
}

TEST_CASE("loader: host bridges on PCIe links into a cpu") {
  constexpr const char* kText = R"(
name: bridges
node:
  devices:
    - {name: cpu0, kind: cpu}
    - {name: "gpu[0-1]", kind: gpu, model: a40}
  links:
    - {from: gpu0, to: cpu0, type: pcie4, host_bridge: 0}
    - {from: gpu1, to: cpu0, type: pcie4, host_bridge: 1}
)";
  Topology topology = parse_topology(kText, "input");
  CHECK(link_between(topology, "gpu0", "cpu0").host_bridge == 0);
  CHECK(link_between(topology, "cpu0", "gpu1").host_bridge == 1);
}

TEST_CASE("loader: parameters and --set overrides") {
  SUBCASE("defaults") {
    Topology topology = parse_topology(kTinyPair, "input");
    CHECK(topology.host_count() == 2);
  }
  SUBCASE("--set nodes=3 gpu=rtx3090") {
    // rtx3090 is also GA102: 14.0625 GB/s per NVLink port, 4 lanes = 56.25 GB/s.
    Topology topology = parse_topology(kTinyPair, "input", {{"nodes", "3"}, {"gpu", "rtx3090"}});
    CHECK(topology.host_count() == 3);
    CHECK(topology.gpus().size() == 6);
    CHECK(topology.device(*topology.find("host2:gpu1")).model == "rtx3090");
  }
  SUBCASE("--set gpu=h100-sxm lifts the NVLink port cap: 4 x 25 GB/s = 100 GB/s") {
    Topology topology = parse_topology(kTinyPair, "input", {{"gpu", "h100-sxm"}});
    CHECK(link_between(topology, "gpu0", "gpu1").bw_Bps == doctest::Approx(100e9));
  }
  SUBCASE("parameters inside a longer scalar") {
    Topology topology = parse_topology(R"(
name: "${base}-x${n}"
params: {base: box, n: 2}
node:
  devices:
    - {name: "gpu[0-${n}]", kind: gpu, model: h100-sxm}
    - {name: nvs0, kind: nvswitch}
  links:
    - {from: "gpu[0-${n}]", to: nvs0, type: nvlink4, lanes: 6}
)",
                                       "input");
    CHECK(topology.name() == "box-x2");
    CHECK(topology.gpus().size() == 3);
  }
}

TEST_CASE("loader: parse_override splits name=value") {
  CHECK(parse_override("nodes=16") == std::pair<std::string, std::string>("nodes", "16"));
  CHECK(parse_override(" gpu = a40 ") == std::pair<std::string, std::string>("gpu", "a40"));
  CHECK(parse_override("name=a=b").second == "a=b");
  CHECK_THROWS_WITH_AS(parse_override("nodes"),
                       "linksim: error: expected name=value for --set, got \"nodes\"",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_override("=4"),
                       "linksim: error: expected name=value for --set, got \"=4\"", ConfigError);
}

TEST_CASE("loader: includes merge params by name, other keys replace") {
  // cluster.yaml includes base_server.yaml (2 GPUs, nic0), overrides name, nodes and gpu.
  Topology topology = load_topology(loader_data("cluster.yaml"));
  CHECK(topology.name() == "cluster");
  CHECK(topology.host_count() == 3);
  CHECK(topology.devices_per_host() == 4);
  CHECK(topology.device(*topology.find("host2:gpu0")).model == "h100-pcie");
  // A device declared in the included file points there.
  CHECK(topology.details(*topology.find("gpu0")).where.file == loader_data("base_server.yaml"));
  // --set still reaches a parameter declared only in the included file's scope.
  Topology more = load_topology(loader_data("cluster.yaml"), {{"nodes", "5"}});
  CHECK(more.host_count() == 5);
}

TEST_CASE("loader: include paths are relative to the including file") {
  Topology topology = load_topology(loader_data("nested/outer.yaml"));
  CHECK(topology.name() == "nested-outer");
  CHECK(topology.host_count() == 1);
  CHECK(topology.device(*topology.find("gpu1")).model == "a40");
}

TEST_CASE("loader: 4096 rail-optimized 8-GPU servers, every server expanded") {
  // 8 GPUs, 4 NVSwitches, 8 NICs, 2 CPUs, 4 PCIe switches per server.
  constexpr const char* kText = R"(
name: big
params: {nodes: 4096}
node:
  devices:
    - {name: "cpu[0-1]", kind: cpu}
    - {name: "psw[0-3]", kind: pcie_switch}
    - {name: "gpu[0-7]", kind: gpu, model: h100-sxm}
    - {name: "nvs[0-3]", kind: nvswitch}
    - {name: "nic[0-7]", kind: nic, type: ib_ndr, port: "mlx5_[0-7]"}
  links:
    - {from: cpu0, to: cpu1, type: upi}
    - {from: "psw[0-3]", to: "cpu[0-1]", type: pcie5}
    - {from: "gpu[0-7]", to: "psw[0-3]", type: pcie5}
    - {from: "nic[0-7]", to: "psw[0-3]", type: pcie5}
    - {from: "gpu[0-7]", to: nvs0, type: nvlink4, lanes: 5}
    - {from: "gpu[0-7]", to: nvs1, type: nvlink4, lanes: 4}
    - {from: "gpu[0-7]", to: nvs2, type: nvlink4, lanes: 4}
    - {from: "gpu[0-7]", to: nvs3, type: nvlink4, lanes: 5}
nodes: ${nodes}
fabric: {kind: rail_optimized, radix: 64}
)";
  // Speed is measured by scripts/bench.sh (whole CLI runs up to 4096 servers), not asserted here.
  Topology topology = parse_topology(kText, "input");
  CHECK(topology.gpus().size() == 4096 * 8);
  CHECK(topology.devices_per_host() == 26);
  // upi 1 + psw-cpu 4 + gpu-psw 8 + nic-psw 8 + gpu-nvs 4 x 8 = 53 links, 106 directed.
  CHECK(topology.links_per_host() == 106);
  CHECK(topology.details(*topology.find("host4095:nic7")).port_name == "mlx5_7");
}

}  // TEST_SUITE
}  // namespace linksim
