// SPDX-License-Identifier: Apache-2.0
// Fabric generators: switch counts per tier for given radix and oversubscription, parallel
// cables, rail placement, up/down routes and the errors (docs/fabrics.md).
#include <doctest/doctest.h>

#include <map>

#include "linksim/routing.hpp"
#include "support/mini_topologies.hpp"

namespace linksim {
namespace {

/// Number of network switches per tier (1 leaf, 2 spine, 3 core).
std::map<int, int> switches_by_tier(const Topology& topology) {
  std::map<int, int> count;
  for (const Device& device : topology.devices()) {
    if (device.kind == DeviceKind::kNetSwitch) ++count[device.tier];
  }
  return count;
}

detail::FabricSpec spec_of(detail::FabricKind kind, int radix, double oversubscription = 1.0) {
  detail::FabricSpec spec;
  spec.kind = kind;
  spec.radix = radix;
  spec.oversubscription = oversubscription;
  spec.where = {"t.yaml", 9, 3};
  return spec;
}

}  // namespace

TEST_SUITE("routing") {

TEST_CASE("fabric: single switch joins every NIC") {
  const Topology t = testing::make_cluster(3, spec_of(detail::FabricKind::kSingleSwitch, 4));
  CHECK(switches_by_tier(t) == std::map<int, int>{{1, 1}});
  CHECK(t.find("switch0").has_value());
  CHECK(t.out_links(*t.find("switch0")).size() == 3);
}

TEST_CASE("fabric: two-tier fat tree") {
  // radix 4, 1:1: d = 4 * 1 / 2 = 2 NICs and u = 2 uplinks per leaf. 8 NICs -> 4 leaves.
  // 4 leaves <= radix: one spine tier; 4 / 4 = 1 cable per leaf-spine pair, 2 / 1 = 2 spines.
  const Topology t = testing::make_cluster(8, spec_of(detail::FabricKind::kFatTree, 4));
  CHECK(switches_by_tier(t) == std::map<int, int>{{1, 4}, {2, 2}});
  const DeviceId spine0 = *t.find("spine0");
  CHECK(t.out_links(spine0).size() == 4);
  // host0 and host1 share leaf0; host0 to host2 goes leaf0 > spine > leaf1.
  const Router router(t);
  CHECK(router.route(*t.find("host0:nic0"), *t.find("host1:nic0")).paths[0].links.size() == 2);
  const Route far = router.route(*t.find("host0:nic0"), *t.find("host2:nic0"));
  CHECK(far.paths[0].links.size() == 4);
}

TEST_CASE("fabric: three-tier fat tree when leaves outnumber the radix") {
  // radix 4, 16 NICs: 8 leaves > 4, so pods of radix/2 = 2 leaves (4 pods <= radix); in a pod
  // 2 / 2 = 1 cable per pair, 2 uplinks -> 2 spines (8 in all); spine j of every pod goes to
  // core group j: 4 spines, 2 uplinks each, 4 / 4 = 1 cable -> 2 cores per group (4 in all).
  // The classic k = 4 fat tree: 8 edge, 8 aggregation, 4 core switches.
  const Topology t = testing::make_cluster(16, spec_of(detail::FabricKind::kFatTree, 4));
  CHECK(switches_by_tier(t) == std::map<int, int>{{1, 8}, {2, 8}, {3, 4}});
  // host0 (pod 0) to host15 (pod 3): nic > leaf > spine > core > spine > leaf > nic.
  const Route r = Router(t).route(*t.find("host0:nic0"), *t.find("host15:nic0"));
  CHECK(r.paths[0].links.size() == 6);
  // host0 to host2 stay in pod 0: nic > leaf0 > spine > leaf1 > nic.
  const Route near = Router(t).route(*t.find("host0:nic0"), *t.find("host2:nic0"));
  CHECK(near.paths[0].links.size() == 4);
}

TEST_CASE("fabric: oversubscription and parallel cables") {
  // radix 64, 3:1: d = 64 * 3 / 4 = 48 NICs, u = 48 / 3 = 16 uplinks per leaf. 50 hosts x 2
  // NICs = 100 -> 3 leaves; 64 / 3 = 21 cables per pair, capped at 16 -> 1 spine; each leaf's
  // 16 cables to it are one link of 16 lanes and 16 x the cable rate.
  detail::FabricSpec spec = spec_of(detail::FabricKind::kFatTree, 64, 3.0);
  const Topology t = testing::make_cluster(50, spec, "ib_hdr", 2);
  CHECK(switches_by_tier(t) == std::map<int, int>{{1, 3}, {2, 1}});
  const LinkType& hdr = *Catalog::builtin().find_link_type("ib_hdr");
  const Link& trunk = t.link(t.out_links(*t.find("leaf0")).back());
  CHECK(t.device(trunk.to).name == "spine0");
  CHECK(trunk.lanes == 16);
  CHECK(trunk.bw_Bps == doctest::Approx(16 * hdr.lane_bw_Bps));
}

TEST_CASE("fabric: rail-optimized puts NIC i of every server on rail i") {
  // radix 4: d = 2. 4 hosts x 2 NICs: each rail has ceil(4 / 2) = 2 leaves; 4 leaves <= 4:
  // spines: 1 cable per pair, 2 uplinks -> 2 spines.
  const Topology t = testing::make_cluster(4, spec_of(detail::FabricKind::kRailOptimized, 4),
                                           "ib_hdr", 2);
  CHECK(switches_by_tier(t) == std::map<int, int>{{1, 4}, {2, 2}});
  const auto leaf_of = [&](const char* nic) {
    return t.device(t.link(t.out_links(*t.find(nic)).back()).to).name;
  };
  CHECK(leaf_of("host0:nic0") == "leaf0");
  CHECK(leaf_of("host1:nic0") == "leaf0");
  CHECK(leaf_of("host2:nic0") == "leaf1");
  CHECK(leaf_of("host0:nic1") == "leaf2");
  CHECK(leaf_of("host3:nic1") == "leaf3");
  CHECK(t.device(*t.find("leaf3")).group == 1);
  // gpu0's nearest NIC is nic0 (both PIX, lower index): host0 to host1 stays on leaf0.
  const Route r = Router(t).route(*t.find("host0:gpu0"), *t.find("host1:gpu0"));
  CHECK(testing::path_text(t, r.paths[0]) ==
        "host0:gpu0>host0:sw0>host0:nic0>leaf0>host1:nic0>host1:sw0>host1:gpu0");
}

TEST_CASE("fabric: errors") {
  CHECK_THROWS_WITH_AS(
      testing::make_cluster(5, spec_of(detail::FabricKind::kSingleSwitch, 4)),
      "t.yaml:9:3: error: expected a radix of at least 5 for a single_switch fabric (one port "
      "per NIC), got 4",
      ConfigError);
  // radix 4 three tiers: 4 pods x 2 leaves x 2 NICs = 16 NICs at most.
  CHECK_THROWS_WITH_AS(testing::make_cluster(17, spec_of(detail::FabricKind::kFatTree, 4)),
                       "t.yaml:9:3: error: expected at most 16 NICs for radix 4 with three "
                       "tiers, got 17",
                       ConfigError);
}

TEST_CASE("fabric: 4096 servers x 8 NICs, radix 64") {
  // d = u = 32: 32768 NICs -> 1024 leaves > 64: pods of 32 leaves (32 pods), 32 spines per pod
  // (1024), core group j joins spine j of the 32 pods: 64 / 32 = 2 cables, 32 / 2 = 16 cores
  // per group (512).
  const Topology t = testing::make_cluster(4096, spec_of(detail::FabricKind::kFatTree, 64),
                                           "ib_ndr", 8);
  CHECK(switches_by_tier(t) == std::map<int, int>{{1, 1024}, {2, 1024}, {3, 512}});
  const Router router(t);
  const auto& gpus = t.gpus();
  double min_bw_Bps = 1e30;
  for (size_t i = 0; i < gpus.size(); ++i) {
    const Route r = router.route(gpus[i], gpus[(i + 1) % gpus.size()]);
    min_bw_Bps = std::min(min_bw_Bps, r.bw_Bps);
  }
  CHECK(min_bw_Bps > 0);
}

}  // TEST_SUITE

}  // namespace linksim
