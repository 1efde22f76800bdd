// SPDX-License-Identifier: Apache-2.0
// FabricRoutes' hop search: the shortcuts (an uplink taken by index among alike uplinks, a
// downlink found by binary search) choose the links that testing every link chooses.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "routing/fabric_routes.hpp"
#include "support/test_topologies.hpp"

namespace linksim::routing_detail {
namespace {

// Every ordered pair of NICs on different servers, routed both ways: the same answer and
// links. Returns the pairs joined and the most links a route took.
struct Compared {
  int routed = 0;
  size_t longest = 0;
};

Compared compare_searches(const Topology& t) {
  const FabricRoutes shortcuts(t, FabricRoutes::HopSearch::kShortcuts);
  const FabricRoutes every_link(t, FabricRoutes::HopSearch::kEveryLink);
  std::vector<DeviceId> nics;
  for (uint32_t i = 0; i < t.devices().size(); ++i) {
    if (t.device(DeviceId{i}).kind == DeviceKind::kNic) nics.push_back(DeviceId{i});
  }
  Compared out;
  std::vector<LinkId> fast, reference;
  for (DeviceId src : nics) {
    for (DeviceId dst : nics) {
      if (t.device(src).host == t.device(dst).host) continue;
      fast.assign(1, LinkId{7});  // appended after what the caller holds
      reference.assign(1, LinkId{7});
      const bool joined = every_link.append_route(src, dst, &reference);
      REQUIRE(shortcuts.append_route(src, dst, &fast) == joined);
      REQUIRE(fast == reference);
      if (joined) {
        ++out.routed;
        out.longest = std::max(out.longest, reference.size() - 1);
      }
    }
  }
  return out;
}

TEST_CASE("fabric hop search: the shortcuts take every link search's links on shipped clusters") {
  using linksim::testing::library_topology;
  // Two tiers: leaf and spine.
  const Compared two = compare_searches(library_topology("dgx-h100-ib.yaml", {{"nodes", "4"}}));
  CHECK(two.routed == 32 * 24);
  // Radix 8 on 40 servers: three tiers, routes of up to 6 links (NIC up to a core and down).
  const Compared three = compare_searches(
      library_topology("dgx-h100-ib.yaml", {{"nodes", "40"}, {"radix", "8"}}));
  CHECK(three.routed > 0);
  CHECK(three.longest == 6);
  // One plane per rail: only a rail's NICs are joined (3 servers, 8 rails, 3 x 2 pairs each).
  CHECK(compare_searches(library_topology("dgx-h100-ib.yaml",
                                          {{"nodes", "3"}, {"planes", "per_rail"}}))
            .routed == 8 * 3 * 2);
  CHECK(compare_searches(library_topology("aws-p5-efa.yaml", {{"nodes", "2"}})).routed > 0);
  CHECK(compare_searches(library_topology("gcp-a4-roce.yaml", {{"nodes", "3"}})).routed > 0);
  CHECK(compare_searches(library_topology("gb200-nvl72.yaml", {{"racks", "2"}})).routed > 0);
}

}  // namespace
}  // namespace linksim::routing_detail
