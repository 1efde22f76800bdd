// SPDX-License-Identifier: Apache-2.0
// Link's compact layout: the pair rule behind Topology::reverse, the link-type table behind
// Topology::link_type, and the ranges of its narrow fields, refused rather than truncated.
#include <doctest/doctest.h>

#include <deque>
#include <string>

#include "linksim/catalog.hpp"
#include "linksim/topology.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/test_topologies.hpp"

namespace linksim {
namespace {

Device named(std::string name, DeviceKind kind) {
  Device d;
  d.name = std::move(name);
  d.kind = kind;
  return d;
}

std::string add_link_error(int lanes, int host_bridge) {
  Topology t(Catalog::builtin());
  const DeviceId a = t.add_device(named("cpu0", DeviceKind::kCpu));
  const DeviceId b = t.add_device(named("gpu0", DeviceKind::kGpu));
  try {
    t.add_link(b, a, *Catalog::builtin().find_link_type("pcie5"), lanes, 1e9, 0,
               {"t.yaml", 9, 7}, host_bridge);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace

TEST_SUITE("topology") {

TEST_CASE("link layout: a Link is at most 32 bytes") {
  CHECK(sizeof(Link) <= 32);
}

TEST_CASE("link layout: every link of a loaded cluster and its reverse are ids 2k and 2k+1") {
  const Topology t = load_topology(std::string(LINKSIM_SOURCE_DIR) +
                                   "/topologies/dgx-h100-ib.yaml", {{"nodes", "4"}});
  REQUIRE(t.links().size() % 2 == 0);
  for (uint32_t i = 0; i < t.links().size(); ++i) {
    const LinkId id{i};
    const Link& link = t.link(id);
    const Link& back = t.link(Topology::reverse(id));
    CHECK(Topology::reverse(Topology::reverse(id)) == id);
    CHECK((Topology::reverse(id).value / 2) == i / 2);
    CHECK(back.from == link.to);
    CHECK(back.to == link.from);
    CHECK(back.bw_Bps == link.bw_Bps);
    CHECK(t.link_type(back) == t.link_type(link));
  }
}

TEST_CASE("link layout: link_type names each link's own catalog type, up to 256 types") {
  Topology t(Catalog::builtin());
  const DeviceId a = t.add_device(named("a", DeviceKind::kGpu));
  const DeviceId b = t.add_device(named("b", DeviceKind::kGpu));
  std::deque<LinkType> types;  // stable addresses: the table keys on the LinkType
  for (size_t k = 0; k < kMaxLinkTypes; ++k) {
    types.push_back(LinkType{.key = "type" + std::to_string(k), .family = LinkFamily::kNvlink});
    t.add_link(a, b, types.back(), 1, 1e9, 0);
  }
  // A type seen before reuses its entry: no new one.
  t.add_link(a, b, types[7], 1, 1e9, 0);
  for (size_t k = 0; k < kMaxLinkTypes; ++k) {
    CHECK(t.link_type(LinkId{uint32_t(2 * k)}) == "type" + std::to_string(k));
    CHECK(t.link_type(LinkId{uint32_t(2 * k + 1)}) == "type" + std::to_string(k));
  }
  CHECK(t.link_type(LinkId{uint32_t(2 * kMaxLinkTypes)}) == "type7");
  types.push_back(LinkType{.key = "one_too_many", .family = LinkFamily::kNvlink});
  try {
    t.add_link(a, b, types.back(), 1, 1e9, 0, {"t.yaml", 3, 5});
    FAIL("expected a ConfigError");
  } catch (const ConfigError& error) {
    CHECK(std::string(error.what()) ==
          "t.yaml:3:5: error: expected at most 256 link types in a topology, got one more: "
          "'one_too_many'");
  }
}

TEST_CASE("link layout: add_link refuses lanes and host bridges its narrow fields cannot hold") {
  CHECK(add_link_error(32767, 32767) == "(no error)");
  CHECK(add_link_error(0, -1) == "(no error)");
  CHECK(add_link_error(32768, -1) == "t.yaml:9:7: error: expected a link of 0 to 32767 lanes, got 32768");
  CHECK(add_link_error(-1, -1) == "t.yaml:9:7: error: expected a link of 0 to 32767 lanes, got -1");
  CHECK(add_link_error(16, 32768) == "t.yaml:9:7: error: expected host_bridge 0 to 32767, got 32768");
  CHECK(add_link_error(16, -2) == "t.yaml:9:7: error: expected host_bridge 0 to 32767, got -2");
}

TEST_CASE("link layout: the loader names the lanes or host_bridge value out of range") {
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices:
    - {name: "gpu[0-1]", kind: gpu, model: a40}
  links:
    - {from: gpu0, to: gpu1, type: nvlink3, lanes: 40000}
)") == "input:7:52: error: expected at most 32767 lanes, got 40000");
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices:
    - {name: cpu0, kind: cpu}
    - {name: gpu0, kind: gpu, model: a40}
  links:
    - {from: gpu0, to: cpu0, type: pcie4, host_bridge: 40000}
)") == "input:8:56: error: expected host_bridge at most 32767, got 40000");
}

}  // TEST_SUITE

}  // namespace linksim
