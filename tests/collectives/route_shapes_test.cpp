// SPDX-License-Identifier: Apache-2.0
// RouteShapes: routes between servers from a table per route shape are the router's own
// routes (CommGraph::route_paths), and their caps route_rate_cap's, on every shipped
// multi-server topology, with faults in every server, GPUDirect RDMA off and NCCL_IB_HCA.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "collectives/comm_graph.hpp"
#include "collectives/route_caps.hpp"
#include "collectives/route_shapes.hpp"
#include "linksim/collectives.hpp"
#include "linksim/faults.hpp"
#include "support/test_topologies.hpp"

namespace linksim::detail {
namespace {

using linksim::testing::library_topology;

struct Tally {
  int between_servers = 0;  // pairs of ranks on different servers
  int answered = 0;         // of those, answered by the table
};

// Every ordered pair of ranks, twice over (the second pass reads built shapes): a pair the
// table answers must carry the router's paths, ends, class, transport and proxy, and
// route_rate_cap's value for them.
Tally compare_all(const Topology& t, const CommOptions& options) {
  const CommGraph g(t, t.gpus(), options);
  RouteCaps caps(t, options.calibration, &g.gdr_nics(), g.network_legs_by_link_id());
  RouteShapes shapes(g);
  Tally tally;
  const int n = static_cast<int>(g.ranks().size());
  Route scratch, expected_scratch;
  TransferPaths paths;
  for (int pass = 0; pass < 2; ++pass) {
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (a == b) continue;
        const bool between = server_of(t, g.ranks()[a]) != server_of(t, g.ranks()[b]);
        double cap_Bps = -1;
        const bool answered = shapes.route(a, b, caps, &scratch, &cap_Bps);
        if (pass == 1) {
          tally.between_servers += between ? 1 : 0;
          tally.answered += answered ? 1 : 0;
        }
        if (!between) CHECK_FALSE(answered);
        if (!answered) continue;
        const Route& expected = g.route_paths(a, b, &expected_scratch);
        CHECK(scratch.src == expected.src);
        CHECK(scratch.dst == expected.dst);
        CHECK(scratch.cls == expected.cls);
        CHECK(scratch.transport == expected.transport);
        CHECK(scratch.proxy == expected.proxy);
        REQUIRE(scratch.paths.size() == expected.paths.size());
        for (size_t p = 0; p < expected.paths.size(); ++p) {
          CHECK(scratch.paths[p].share == expected.paths[p].share);
          CHECK(scratch.paths[p].links == expected.paths[p].links);
        }
        const double expected_cap =
            route_rate_cap(t, expected, options.calibration, nullptr, &g.gdr_nics());
        CHECK(cap_Bps == expected_cap);
        // The same paths as a transfer takes them.
        double paths_cap_Bps = -1;
        REQUIRE(shapes.route(a, b, caps, &paths, &paths_cap_Bps));
        CHECK(paths_cap_Bps == expected_cap);
        REQUIRE(paths.paths.size() == expected.paths.size());
        for (size_t p = 0; p < expected.paths.size(); ++p) {
          CHECK(paths.paths[p].share == expected.paths[p].share);
          std::vector<LinkId> links;
          for (ResourceId r : paths.paths[p].resources) links.push_back(LinkId{r.value});
          CHECK(links == expected.paths[p].links);
        }
      }
    }
  }
  return tally;
}

CommOptions gdr_off() {
  CommOptions off;
  off.net_gdr_level = PathClass::kSelf;
  return off;
}

TEST_CASE("route shapes: the router's routes on every shipped multi-server topology") {
  const std::vector<std::pair<std::string, ParamOverrides>> cases = {
      {"aws-p4d-efa.yaml", {{"nodes", "3"}}},
      {"aws-p5-efa.yaml", {{"nodes", "2"}}},
      {"dgx-a100-ib.yaml", {{"nodes", "2"}}},
      {"dgx-h100-ib.yaml", {{"nodes", "4"}}},
      {"gcp-a3high-tcpx.yaml", {{"nodes", "2"}}},
      {"gcp-a3mega-tcpxo.yaml", {{"nodes", "3"}}},
      {"gcp-a4-roce.yaml", {{"nodes", "2"}}},
      {"lambda-b200-ib.yaml", {{"nodes", "4"}}},
      {"oci-a100-roce.yaml", {{"nodes", "2"}}},
      {"gb200-nvl72.yaml", {{"racks", "2"}}},
  };
  for (const auto& entry : cases) {
    const std::string& file = entry.first;
    CAPTURE(file);
    const Topology t = library_topology(file, entry.second);
    for (const CommOptions& options : {CommOptions{}, gdr_off()}) {
      const Tally tally = compare_all(t, options);
      CHECK(tally.between_servers > 0);
      // Every topology here has server blocks and a network-only fabric, and the pairs' NICs
      // are joined by it: the table answers every pair between servers.
      CHECK(tally.answered == tally.between_servers);
    }
  }
}

TEST_CASE("route shapes: every pair between servers of a rail-optimized cluster") {
  // dgx-h100-ib on 4 servers: 32 GPUs, 24 peers on other servers each.
  const Topology t = library_topology("dgx-h100-ib.yaml", {{"nodes", "4"}});
  const Tally direct = compare_all(t, CommOptions{});
  CHECK(direct.between_servers == 32 * 24);
  CHECK(direct.answered == 32 * 24);
  const Tally staged = compare_all(t, gdr_off());
  CHECK(staged.answered == 32 * 24);
}

TEST_CASE("route shapes: faults in every server, and NICs left out by NCCL_IB_HCA") {
  const Topology intact = library_topology("dgx-h100-ib.yaml", {{"nodes", "3"}});
  // A derated PCIe and NVLink link and a slower NIC, in every server (linksim/faults.hpp).
  const Topology t =
      with_degraded(intact, "pciesw0~cpu0:width=8,gpu1~nvswitch0:width=2,nic3:speed=200Gb/s");
  const Tally derated = compare_all(t, gdr_off());
  CHECK(derated.answered == 24 * 16);
  CHECK(compare_all(t, CommOptions{}).answered == 24 * 16);
  // Half the NICs left out: GPUs share the rest, PXN hands over to other rails.
  CommOptions hca;
  hca.ib_hca = parse_ib_hca("=mlx5_0,mlx5_1,mlx5_2,mlx5_3");
  const Tally filtered = compare_all(intact, hca);
  CHECK(filtered.answered == 24 * 16);
}

TEST_CASE("route shapes: pairs the router sends by its rail fallback are left to it") {
  // Without P2P there is no PXN hand-over: a GPU sends through its own NIC, and on a fabric
  // of disjoint rail planes a receiver on another rail is reached through the source server's
  // NIC on that rail (docs/routing.md#planes), which no shape holds.
  const Topology t = library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}, {"planes", "per_rail"}});
  CommOptions no_p2p;
  no_p2p.p2p_disable = true;
  const Tally tally = compare_all(t, no_p2p);
  CHECK(tally.between_servers == 16 * 8);
  // The table answers each GPU's pair with its own rail's GPU on the other server alone.
  CHECK(tally.answered == 2 * 8);
}

TEST_CASE("route shapes: one server answers nothing") {
  const Topology t = library_topology("dgx-h100.yaml");
  const Tally tally = compare_all(t, CommOptions{});
  CHECK(tally.between_servers == 0);
  CHECK(tally.answered == 0);
}

}  // namespace
}  // namespace linksim::detail
