// SPDX-License-Identifier: Apache-2.0
// LinkCapacities: per-link values held once per server block read as the full array would,
// by hand-built tables and against each link's own effective capacity on a faulty cluster.
#include <doctest/doctest.h>

#include <vector>

#include "collectives/link_capacities.hpp"
#include "collectives/link_efficiency.hpp"
#include "linksim/faults.hpp"
#include "support/test_topologies.hpp"

namespace linksim::detail {
namespace {

TEST_CASE("link capacities: server blocks repeat host 0's block, the rest follows") {
  // Three links per server, two servers, two fabric links: ids 0-2 host 0, 3-5 host 1
  // (host 0's values), 6-7 the fabric's.
  const LinkCapacities caps({1.0, 2.0, 3.0}, 2, {10.0, 20.0});
  REQUIRE(caps.size() == 8);
  const std::vector<double> expected{1, 2, 3, 1, 2, 3, 10, 20};
  for (size_t id = 0; id < expected.size(); ++id) CHECK(caps[id] == expected[id]);
  CHECK(caps.to_vector() == expected);
  CHECK(caps.to_vector(0.5) == std::vector<double>{0.5, 1, 1.5, 0.5, 1, 1.5, 5, 10});
  // No server blocks: every link its own.
  const LinkCapacities flat({}, 0, {4.0, 5.0});
  REQUIRE(flat.size() == 2);
  CHECK(flat[0] == 4.0);
  CHECK(flat[1] == 5.0);
  CHECK(flat.to_vector() == std::vector<double>{4, 5});
  CHECK(LinkCapacities() == LinkCapacities({}, 0, {}));
  CHECK_FALSE(caps == flat);
}

TEST_CASE("link capacities: each link's effective capacity on a cluster with faults") {
  const Topology intact = linksim::testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "3"}});
  const Topology t = with_degraded(intact, "gpu1~nvswitch0:width=2,nic3:speed=200Gb/s");
  const ModelCalibration calibration;
  const LinkCapacities caps = effective_link_capacities(t, calibration);
  REQUIRE(caps.size() == t.links().size());
  for (uint32_t id = 0; id < t.links().size(); ++id) {
    const Link& link = t.link(LinkId{id});
    CHECK(caps[id] == link.bw_Bps * link_efficiency(t, link, calibration));
  }
  // One server: no block to share.
  const Topology one = linksim::testing::library_topology("dgx-h100.yaml");
  const LinkCapacities single = effective_link_capacities(one, calibration);
  REQUIRE(single.size() == one.links().size());
  for (uint32_t id = 0; id < one.links().size(); ++id) {
    const Link& link = one.link(LinkId{id});
    CHECK(single[id] == link.bw_Bps * link_efficiency(one, link, calibration));
  }
}

}  // namespace
}  // namespace linksim::detail
