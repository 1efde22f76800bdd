// SPDX-License-Identifier: Apache-2.0
// Router::fabric_leg: for two NICs of different servers it appends exactly the links of the one
// path Router::route_paths answers when the fabric joins them directly, and refuses (leaving
// the links as they were) the pairs the router sends otherwise (the rail fallback of disjoint
// planes, docs/routing.md#planes).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "linksim/routing.hpp"
#include "support/test_topologies.hpp"

namespace linksim {
namespace {

struct LegCounts {
  int joined = 0;   ///< pairs fabric_leg answered
  int refused = 0;  ///< pairs it left to the router
};

// Every ordered pair of NICs on different servers, against the router's own route.
LegCounts check_legs(const Topology& t) {
  const Router router(t);
  std::vector<DeviceId> nics;
  for (uint32_t i = 0; i < t.devices().size(); ++i) {
    if (t.device(DeviceId{i}).kind == DeviceKind::kNic) nics.push_back(DeviceId{i});
  }
  LegCounts counts;
  const std::vector<LinkId> before{LinkId{7}};  // a caller's links the leg is appended to
  for (DeviceId src : nics) {
    for (DeviceId dst : nics) {
      if (t.device(src).host == t.device(dst).host) continue;
      std::vector<LinkId> links = before;
      const Route routed = router.route_paths(src, dst);
      const std::string pair = t.display_name(src) + " -> " + t.display_name(dst);
      CAPTURE(pair);
      if (router.fabric_leg(src, dst, &links)) {
        REQUIRE(routed.paths.size() == 1);
        std::vector<LinkId> expected = before;
        expected.insert(expected.end(), routed.paths.front().links.begin(),
                        routed.paths.front().links.end());
        CHECK(links == expected);
        ++counts.joined;
      } else {
        CHECK(links == before);
        // The router's path leaves through another NIC of the source server first.
        REQUIRE(routed.paths.size() == 1);
        CHECK(t.device(t.link(routed.paths.front().links.front()).to).host == t.device(src).host);
        ++counts.refused;
      }
    }
  }
  return counts;
}

TEST_CASE("fabric leg: the router's path between NICs the fabric joins, and only those") {
  using linksim::testing::library_topology;
  // 3 x 8 NICs on one plane: every pair between servers is joined (24 x 16 pairs).
  const LegCounts one_plane = check_legs(library_topology("dgx-h100-ib.yaml", {{"nodes", "3"}}));
  CHECK(one_plane.joined == 24 * 16);
  CHECK(one_plane.refused == 0);
  // One plane per rail: a rail's NICs are joined (8 rails x 3 x 2 pairs), the rest refused.
  const LegCounts per_rail = check_legs(
      library_topology("dgx-h100-ib.yaml", {{"nodes", "3"}, {"planes", "per_rail"}}));
  CHECK(per_rail.joined == 8 * 3 * 2);
  CHECK(per_rail.refused == 24 * 16 - 8 * 3 * 2);
}

}  // namespace
}  // namespace linksim
