// SPDX-License-Identifier: Apache-2.0
// `extend:`: a file that includes a server adds devices and links to it and puts its own link
// in place of an included one (docs/topology-format.md#extending-an-included-server).
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "linksim/error.hpp"
#include "linksim/topology.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim {
namespace {

std::string extend_data(const std::string& file) {
  return std::string(LINKSIM_SOURCE_DIR) + "/tests/data/extend/" + file;
}

std::optional<Link> link_between(const Topology& t, const std::string& a, const std::string& b) {
  const DeviceId from = *t.find(a);
  const DeviceId to = *t.find(b);
  for (const Link& l : t.links()) {
    if (l.from == from && l.to == to) return l;
  }
  return std::nullopt;
}

TEST_CASE("extend: devices and links are added, a link of the same pair replaces the included one") {
  const Topology base = load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/pcie-8gpu.yaml");
  const Topology t = load_topology(extend_data("pcie-8gpu-bridged.yaml"));
  // pcie-8gpu: 2 CPUs, 4 switches, 8 GPUs, 4 NICs; extend adds nic4.
  CHECK(t.devices().size() == base.devices().size() + 1);
  REQUIRE(t.find("nic4"));
  // 4 bridges and nic4's uplink are new; gpu7's uplink replaces the included one. Every
  // template link is two directed links.
  CHECK(t.links().size() == base.links().size() + 2 * 5);
  // An A40 NVLink bridge: 4 links of 14.0625 GB/s per direction = 56.25 GB/s (the A40's
  // 112.5 GB/s bidirectional).
  const std::optional<Link> bridge = link_between(t, "gpu2", "gpu3");
  REQUIRE(bridge.has_value());
  CHECK(bridge->family == LinkFamily::kNvlink);
  CHECK(bridge->lanes == 4);
  CHECK(bridge->bw_Bps == doctest::Approx(56.25e9));
  CHECK_FALSE(link_between(t, "gpu1", "gpu2").has_value());
  // PCIe Gen4 x8 = 8 x 1.96875 GB/s = 15.75 GB/s, in place of the included x16 (31.5 GB/s),
  // and positioned in the extending file.
  const std::optional<Link> slot = link_between(t, "gpu7", "pciesw3");
  REQUIRE(slot.has_value());
  CHECK(slot->lanes == 8);
  CHECK(slot->bw_Bps == doctest::Approx(15.75e9));
  CHECK(link_between(t, "gpu6", "pciesw3")->bw_Bps == doctest::Approx(31.5e9));
  // The included params still apply, overridden by the extending file's.
  CHECK(t.device(*t.find("gpu0")).model == "a40");
}

TEST_CASE("extend: errors point into the extending file") {
  try {
    load_topology(extend_data("duplicate-device.yaml"));
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.message() == "duplicate device name \"nic0\"");
    CHECK(e.where().line == 5);
    CHECK(e.where().column == 14);
    CHECK(e.where().file.find("duplicate-device.yaml") != std::string::npos);
  }
  try {
    load_topology(extend_data("unknown-key.yaml"));
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.message() == "unknown key \"link\"; did you mean \"links\"?");
    CHECK(e.where().line == 4);
    CHECK(e.where().column == 3);
  }
}

}  // namespace
}  // namespace linksim
