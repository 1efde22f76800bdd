// SPDX-License-Identifier: Apache-2.0
// The ring plan's throughput and bottleneck between servers (CommGraph::plan_rings, which loads
// the first two servers' links and the fabric's alone when the other servers are their
// twins) are those of a StreamSet of every hop of every ring on its full route: the same
// doubles and the same link, on twins and on communicators that are not.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "collectives/comm_graph.hpp"
#include "collectives/link_efficiency.hpp"
#include "linksim/collectives.hpp"
#include "linksim/faults.hpp"
#include "support/test_topologies.hpp"

namespace linksim::detail {
namespace {

using linksim::testing::library_topology;

// Every hop of every ring on the router's route with route_rate_cap's cap, rings in order.
StreamSet::Limit every_hop_limit(const CommGraph& g, const CommOptions& options) {
  const Topology& t = g.topology();
  StreamSet set(g.capacities());
  Route scratch;
  const RingPlan& plan = g.ring();
  for (size_t k = 0; k < plan.rings.size(); ++k) {
    const std::vector<int>& ring = plan.rings[k];
    for (size_t i = 0; i < ring.size(); ++i) {
      const Route& r = g.route_paths(ring[i], ring[(i + 1) % ring.size()], &scratch);
      Bottleneck why;
      const double cap = route_rate_cap(t, r, options.calibration, &why, &g.gdr_nics());
      set.add(r, plan.weights[k], cap, why);
    }
  }
  return set.limit();
}

void check_plan(const Topology& t, const std::vector<DeviceId>& ranks, const CommOptions& options) {
  const CommGraph g(t, ranks, options);
  REQUIRE(g.node_count() >= 3);
  const StreamSet::Limit expected = every_hop_limit(g, options);
  CHECK(g.ring().throughput_Bps == expected.throughput_Bps);
  CHECK(g.ring().bottleneck == expected.bottleneck(t));
}

CommOptions gdr_off() {
  CommOptions off;
  off.net_gdr_level = PathClass::kSelf;
  return off;
}

// The GPUs of servers `hosts` (in that order), the first `per_server` of each.
std::vector<DeviceId> gpus_of(const Topology& t, const std::vector<int>& hosts, size_t per_server) {
  std::vector<DeviceId> out;
  for (int host : hosts) {
    const auto gpus = t.devices_of(host, DeviceKind::kGpu);
    for (size_t i = 0; i < per_server && i < gpus.size(); ++i) out.push_back(gpus[i]);
  }
  return out;
}

TEST_CASE("twin rings: every shipped rail topology, GPUDirect on and off") {
  const std::vector<std::pair<std::string, ParamOverrides>> cases = {
      {"dgx-h100-ib.yaml", {{"nodes", "3"}}},
      {"dgx-h100-ib.yaml", {{"nodes", "6"}, {"radix", "8"}}},
      {"dgx-a100-ib.yaml", {{"nodes", "4"}}},
      {"aws-p4d-efa.yaml", {{"nodes", "3"}}},
      {"lambda-b200-ib.yaml", {{"nodes", "5"}}},
      {"gcp-a3mega-tcpxo.yaml", {{"nodes", "3"}}},
  };
  for (const auto& topology_case : cases) {
    const std::string& file = topology_case.first;
    CAPTURE(file);
    const Topology t = library_topology(file, topology_case.second);
    for (const CommOptions& options : {CommOptions{}, gdr_off()}) check_plan(t, t.gpus(), options);
  }
}

TEST_CASE("twin rings: faults in every server, and servers in their own order") {
  const Topology intact = library_topology("dgx-h100-ib.yaml", {{"nodes", "5"}, {"radix", "8"}});
  const Topology t =
      with_degraded(intact, "pciesw0~cpu0:width=8,gpu1~nvswitch0:width=2,nic3:speed=200Gb/s");
  check_plan(t, t.gpus(), CommOptions{});
  check_plan(t, t.gpus(), gdr_off());
  // Half of each server's GPUs, the servers out of order: server 3 is the ring's first.
  check_plan(intact, gpus_of(intact, {3, 0, 4, 2, 1}, 4), CommOptions{});
}

TEST_CASE("twin rings: communicators whose servers are not twins") {
  const Topology t = library_topology("dgx-h100-ib.yaml", {{"nodes", "4"}});
  // One server with fewer ranks than the others.
  std::vector<DeviceId> uneven = gpus_of(t, {0, 1, 2}, 8);
  for (DeviceId gpu : gpus_of(t, {3}, 5)) uneven.push_back(gpu);
  check_plan(t, uneven, CommOptions{});
  // Servers with different local GPUs: the last four of server 2.
  std::vector<DeviceId> shifted = gpus_of(t, {0, 1}, 4);
  const auto third = t.devices_of(2, DeviceKind::kGpu);
  shifted.insert(shifted.end(), third.end() - 4, third.end());
  check_plan(t, shifted, CommOptions{});
  // Without P2P on disjoint rail planes: hops the router sends by its rail fallback.
  const Topology planes = library_topology("dgx-h100-ib.yaml", {{"nodes", "3"}, {"planes", "per_rail"}});
  CommOptions no_p2p;
  no_p2p.p2p_disable = true;
  check_plan(planes, planes.gpus(), no_p2p);
}

}  // namespace
}  // namespace linksim::detail
