// SPDX-License-Identifier: Apache-2.0
// The device record and its shared details table: every server instance's device names host
// 0's details entry, fabric switches share their fabric's, copies keep the indexes.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "linksim/catalog.hpp"
#include "linksim/topology.hpp"
#include "linksim/topology_variants.hpp"
#include "linksim/topology_yaml.hpp"

using namespace linksim;

namespace {

// Two servers of one CPU, one GPU and one NIC each, under a single switch.
constexpr const char* kTwoServers = R"(name: two
node:
  devices:
    - {name: cpu0, kind: cpu, numa: 1, cores: "0-35,72-107", platform: intel-sapphire-rapids}
    - {name: gpu0, kind: gpu, model: h100-sxm}
    - {name: nic0, kind: nic, type: ib_ndr, port: mlx5_4}
  links:
    - {from: gpu0, to: cpu0, type: pcie5}
    - {from: nic0, to: cpu0, type: pcie5}
nodes: 2
fabric: {kind: single_switch, radix: 40}
)";

}  // namespace

TEST_SUITE("topology") {

TEST_CASE("device details: the per-device record stays at most 48 bytes") {
  // 501,760 devices at 16,384 DGX servers: 48 bytes each is 24 MB (224 bytes was 112 MB).
  CHECK(sizeof(Device) <= 48);
}

TEST_CASE("device details: every server's device shares host 0's entry") {
  Topology t = parse_topology(kTwoServers, "input");
  REQUIRE(t.host_count() == 2);
  for (const char* local : {"cpu0", "gpu0", "nic0"}) {
    const DeviceId first = *t.find(local);
    const DeviceId second = *t.find(std::string("host1:") + local);
    CHECK(t.device(first).details == t.device(second).details);
    CHECK(t.device(first).details != 0);  // entry 0 is the default, nothing declared
  }
  const DeviceDetails& cpu = t.details(*t.find("host1:cpu0"));
  CHECK(cpu.numa == 1);
  CHECK(cpu.cpu_affinity == "0-35,72-107");
  CHECK(cpu.where.line == 4);
  CHECK(cpu.where.column == 14);
  CHECK(t.details(*t.find("host1:nic0")).port_name == "mlx5_4");
  CHECK(t.device(*t.find("host1:cpu0")).model == "intel-sapphire-rapids");
  // The three template devices and the fabric's switch: four entries beside the default.
  uint32_t highest = 0;
  for (const Device& d : t.devices()) highest = std::max(highest, d.details);
  CHECK(highest == 4);
}

TEST_CASE("device details: the fabric's switches point at the fabric's declaration") {
  Topology t = parse_topology(kTwoServers, "input");
  const DeviceId leaf{t.host_device_offset(t.host_count())};
  REQUIRE(t.device(leaf).kind == DeviceKind::kNetSwitch);
  CHECK(t.details(leaf).where.line == 11);
  CHECK(t.details(leaf).port_name.empty());
}

TEST_CASE("device details: a copied topology keeps every device's details") {
  Topology t = parse_topology(kTwoServers, "input");
  Topology faster = with_faster_links(t, LinkClass::kPcie, 2);
  REQUIRE(faster.devices().size() == t.devices().size());
  for (uint32_t i = 0; i < t.devices().size(); ++i) {
    const DeviceDetails& a = t.details(DeviceId{i});
    const DeviceDetails& b = faster.details(DeviceId{i});
    CHECK(a.port_name == b.port_name);
    CHECK(a.cpu_affinity == b.cpu_affinity);
    CHECK(a.numa == b.numa);
    CHECK(a.where.line == b.where.line);
  }
}

TEST_CASE("device details: add_device refuses an index outside the table") {
  Topology t(Catalog::builtin());
  Device gpu;
  gpu.name = "gpu0";
  gpu.details = 1;  // only the default entry 0 exists
  CHECK_THROWS_AS(t.add_device(gpu), std::out_of_range);
  DeviceDetails own;
  own.numa = 2;
  const DeviceId id = t.add_device(gpu, own);
  CHECK(t.device(id).details == 1);
  CHECK(t.details(id).numa == 2);
  gpu.details = t.device(id).details;
  CHECK(t.details(t.add_device(gpu)).numa == 2);  // a second device sharing the entry
}

}  // TEST_SUITE
