// SPDX-License-Identifier: Apache-2.0
// Fabric generators: switch counts per tier for given radix and oversubscription, parallel
// cables, rail placement, up/down routes and the errors (docs/fabrics.md).
#include <doctest/doctest.h>

#include <map>
#include <numeric>

#include "linksim/fabric_summary.hpp"
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

/// Flows per directed link when NIC i of the cluster's hosts sends to NIC `to(i)`, over the
/// fabric only (the routes between the NICs); the busiest link's count.
template <typename Target>
int busiest_fabric_link(const Topology& t, int hosts, Target to) {
  const Router router(t);
  std::map<uint32_t, int> flows;
  for (int i = 0; i < hosts; ++i) {
    const std::string src = "host" + std::to_string(i) + ":nic0";
    const std::string dst = "host" + std::to_string(to(i)) + ":nic0";
    if (src == dst) continue;
    const Route route = router.route(*t.find(src), *t.find(dst));
    for (LinkId id : route.paths[0].links) ++flows[id.value];
  }
  int busiest = 0;
  for (const auto& [link, count] : flows) busiest = std::max(busiest, count);
  return busiest;
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

TEST_CASE("fabric: a fourth tier when the pods outnumber the radix") {
  // radix 4, 32 NICs: 16 leaves in 8 pods of 2 under 2 spines each (16 spines); spine j of
  // the 8 pods (8 > 4) is grouped in blocks of 2 under 2 half-down cores (4 blocks x 2 = 8
  // cores per j, 16 in all); core m of the 4 blocks of group j (4 <= 4) joins 4 / 4 = 1 cable
  // per pair, 2 uplinks -> 2 super-cores (4 groups x 2 = 8).
  const Topology t = testing::make_cluster(32, spec_of(detail::FabricKind::kFatTree, 4));
  CHECK(switches_by_tier(t) == std::map<int, int>{{1, 16}, {2, 16}, {3, 16}, {4, 8}});
  CHECK(t.find("super0").has_value());
  // host0 to host31: nic > leaf > spine > core > super-core > core > spine > leaf > nic.
  const Route r = Router(t).route(*t.find("host0:nic0"), *t.find("host31:nic0"));
  CHECK(r.paths[0].links.size() == 8);
  CHECK(describe_fabric(summarize_fabric(t)) ==
        "1 plane of 4 tiers: 16 leaves, 16 spines, 16 cores, 8 super-cores");
}

TEST_CASE("fabric: a partly filled last pod is reached only through the spines above it") {
  // radix 4, 10 NICs: 5 leaves in pods {0, 1}, {2, 3}, {4}; the last pod's one leaf sends
  // both uplinks to one spine, so core group 1 does not reach it. A route into it must not
  // climb through spine 1 of its pod: every pair has a route.
  const Topology t = testing::make_cluster(10, spec_of(detail::FabricKind::kFatTree, 4));
  CHECK(switches_by_tier(t) == std::map<int, int>{{1, 5}, {2, 5}, {3, 3}});
  const Router router(t);
  for (int a = 0; a < 10; ++a) {
    for (int b = 0; b < 10; ++b) {
      if (a == b) continue;
      CAPTURE(a);
      CAPTURE(b);
      const std::string src = "host" + std::to_string(a) + ":nic0";
      const std::string dst = "host" + std::to_string(b) + ":nic0";
      CHECK_NOTHROW(router.route(*t.find(src), *t.find(dst)));
    }
  }
}

TEST_CASE("fabric: D-mod-k carries shift permutations without contention") {
  // radix 8, 1:1: 4 NICs per leaf; 128 NICs fill 32 leaves, 8 pods of 4, three tiers, full.
  // Zahavi (2010): destination-mod-k with one digit of the destination's number per tier
  // puts at most one flow of any shift i -> i + c on each link. Numbering destinations by
  // device id, or taking the same digit at every tier, does not.
  const Topology t = testing::make_cluster(128, spec_of(detail::FabricKind::kFatTree, 8));
  CHECK(switches_by_tier(t) == std::map<int, int>{{1, 32}, {2, 32}, {3, 16}});
  for (int shift : {1, 3, 4, 7, 16, 17, 64, 100}) {
    CAPTURE(shift);
    CHECK(busiest_fabric_link(t, 128, [&](int i) { return (i + shift) % 128; }) == 1);
  }
}

TEST_CASE("fabric: one plane per rail when one plane would need a fourth tier") {
  // radix 4, 2 NICs per server: 2 NIC ports per leaf. 16 servers: 8 leaves per rail. One
  // plane of 16 leaves in pods of 2 would need four tiers (8 pods > 4), so each rail gets a
  // plane of its 8 leaves: 4 pods, 8 spines, 4 cores per plane.
  detail::FabricSpec spec = spec_of(detail::FabricKind::kRailOptimized, 4);
  const Topology t = testing::make_cluster(16, spec, "ib_hdr", 2);
  CHECK(switches_by_tier(t) == std::map<int, int>{{1, 16}, {2, 16}, {3, 8}});
  const FabricSummary summary = summarize_fabric(t);
  CHECK(summary.planes == 2);
  CHECK(summary.plane_per_rail);
  CHECK(describe_fabric(summary) ==
        "2 planes (one per rail) of 3 tiers: 16 leaves, 16 spines, 8 cores in all");
  CHECK(detail::plan_fabric(spec, 16, 2).planes == 2);
  const Router router(t);
  // Rail 1 stays on plane 1: every switch on the way is joined to rail 1's leaves only.
  const Route same_rail = router.route(*t.find("host0:nic1"), *t.find("host15:nic1"));
  CHECK(same_rail.paths[0].links.size() == 6);
  // Across planes the data leaves through the source server's NIC on the destination's rail.
  const Route across = router.route(*t.find("host0:nic0"), *t.find("host15:nic1"));
  CHECK(testing::path_text(t, across.paths[0]).starts_with("host0:nic0>host0:sw0>host0:nic1>leaf"));
  // planes: single keeps one plane and adds the fourth tier.
  spec.planes = detail::FabricPlanes::kSingle;
  const Topology single = testing::make_cluster(16, spec, "ib_hdr", 2);
  CHECK(summarize_fabric(single).planes == 1);
  CHECK(summarize_fabric(single).tiers == 4);
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
  // radix 4, four tiers: 4 blocks x 2 pods x 2 leaves x 2 NICs = 32 NICs at most.
  CHECK_THROWS_WITH_AS(testing::make_cluster(33, spec_of(detail::FabricKind::kFatTree, 4)),
                       "t.yaml:9:3: error: expected at most 32 NICs for radix 4 with four "
                       "tiers, got 33",
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
