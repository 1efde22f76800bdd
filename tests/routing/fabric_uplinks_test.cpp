// SPDX-License-Identifier: Apache-2.0
// FabricRoutes' NIC uplinks, found in one pass over the fabric's links: every fabric route
// leaves its source NIC by that NIC's first network link to a switch (in its out_links order)
// and enters its destination NIC by the reverse of the destination's.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "routing/fabric_routes.hpp"
#include "support/test_topologies.hpp"

namespace linksim::routing_detail {
namespace {

// The NIC's first link, in out_links order, of the network family to a network switch.
std::optional<LinkId> first_uplink(const Topology& t, DeviceId nic) {
  for (LinkId id : t.out_links(nic)) {
    const Link& link = t.link(id);
    if (link.family == LinkFamily::kNetwork && t.device(link.to).kind == DeviceKind::kNetSwitch) {
      return id;
    }
  }
  return std::nullopt;
}

// Every ordered pair of NICs on different servers: the route's ends are the two uplinks.
int check_ends(const Topology& t) {
  const FabricRoutes fabric(t);
  std::vector<DeviceId> nics;
  for (uint32_t i = 0; i < t.devices().size(); ++i) {
    if (t.device(DeviceId{i}).kind == DeviceKind::kNic) nics.push_back(DeviceId{i});
  }
  int routed = 0;
  std::vector<LinkId> links;
  for (DeviceId src : nics) {
    for (DeviceId dst : nics) {
      if (t.device(src).host == t.device(dst).host) continue;
      links.clear();
      if (!fabric.append_route(src, dst, &links)) continue;
      const std::optional<LinkId> up = first_uplink(t, src);
      const std::optional<LinkId> down = first_uplink(t, dst);
      REQUIRE(up);
      REQUIRE(down);
      REQUIRE(links.size() >= 2);
      CHECK(links.front() == *up);
      CHECK(links.back() == Topology::reverse(*down));
      ++routed;
    }
  }
  return routed;
}

TEST_CASE("fabric uplinks: each NIC's first network link to a switch, on shipped clusters") {
  using linksim::testing::library_topology;
  // 4 x 8 NICs on one plane: every pair between servers is joined.
  CHECK(check_ends(library_topology("dgx-h100-ib.yaml", {{"nodes", "4"}})) == 32 * 24);
  // One plane per rail: only a rail's NICs are joined (3 servers, 8 rails, 3 x 2 pairs each).
  CHECK(check_ends(library_topology("dgx-h100-ib.yaml",
                                    {{"nodes", "3"}, {"planes", "per_rail"}})) == 8 * 3 * 2);
  CHECK(check_ends(library_topology("aws-p5-efa.yaml", {{"nodes", "2"}})) > 0);
  CHECK(check_ends(library_topology("gcp-a4-roce.yaml", {{"nodes", "3"}})) > 0);
  CHECK(check_ends(library_topology("gb200-nvl72.yaml", {{"racks", "2"}})) > 0);
}

}  // namespace
}  // namespace linksim::routing_detail
