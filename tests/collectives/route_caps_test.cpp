// SPDX-License-Identifier: Apache-2.0
// RouteCaps: route caps between servers decided once per route shape answer what
// route_rate_cap answers route by route, on intact and faulty rail-optimized clusters.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "collectives/comm_graph.hpp"
#include "collectives/route_caps.hpp"
#include "linksim/collectives.hpp"
#include "linksim/faults.hpp"
#include "support/test_topologies.hpp"

namespace linksim::detail {
namespace {

using linksim::testing::library_topology;

struct Compared {
  int routes = 0;        // routes between servers compared
  int capped = 0;        // of those, with a finite cap
  size_t shapes = 0;     // shapes RouteCaps decided
  double gpu0_cap = 0;   // host0:gpu0 -> host1:gpu0's cap
};

// Every route between ranks of different servers, per shape and per route, with `gdr` as the
// GPUDirect NICs; every value and bottleneck must agree.
Compared compare_all(const Topology& t, const CommOptions& options, const GdrNics* gdr) {
  const CommGraph g(t, t.gpus(), options);
  REQUIRE(g.network_legs_by_link_id());
  RouteCaps caps(t, options.calibration, gdr, g.network_legs_by_link_id());
  Compared out;
  const int n = static_cast<int>(g.ranks().size());
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      const Route& r = g.route(a, b);
      if (r.transport != Transport::kNet) continue;
      Bottleneck by_route, by_shape;
      const double expected = route_rate_cap(t, r, options.calibration, &by_route, gdr);
      const double shared = caps.cap(r, &by_shape);
      CHECK(shared == expected);
      CHECK(by_shape == by_route);
      ++out.routes;
      out.capped += std::isfinite(expected) ? 1 : 0;
      if (a == 0 && b == 8) out.gpu0_cap = expected;
    }
  }
  out.shapes = caps.shapes();
  return out;
}

TEST_CASE("route caps: legs by link id on server blocks over a network fabric only") {
  CHECK(network_legs_by_link_id(library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}})));
  // One server: no network leg to tell.
  CHECK_FALSE(network_legs_by_link_id(library_topology("dgx-h100.yaml")));
  CHECK_FALSE(network_legs_by_link_id(linksim::testing::ring4()));
}

TEST_CASE("route caps: per shape as per route on a rail-optimized cluster, GPUDirect on and off") {
  const Topology t = library_topology("dgx-h100-ib.yaml", {{"nodes", "4"}});
  // GPUDirect RDMA (NCCL's default level): no leg staged, no cap.
  const Compared direct = compare_all(t, CommOptions{}, nullptr);
  CHECK(direct.routes == 32 * 24);
  CHECK(direct.capped == 0);
  CommOptions off;
  off.net_gdr_level = PathClass::kSelf;
  const Compared staged = compare_all(t, off, nullptr);
  CHECK(staged.capped == staged.routes);
  // 8 x 8 GPU pairs on four servers share their shapes: 64 shapes for 768 routes.
  CHECK(staged.shapes == 64);
  // Sapphire Rapids: B_copy = 0.47 x 63 x 12/15.75 GB/s = 22.56 GB/s (gdr_off_test).
  CHECK(staged.gpu0_cap == doctest::Approx(22.56e9));
  // GPUDirect NICs on some servers only (a communicator over part of the machine): a shape's
  // routes differ by their NICs' flags, which the shape does not share.
  std::vector<bool> gdr(t.devices().size(), false);
  for (DeviceId nic : t.devices_of(1, DeviceKind::kNic)) gdr[nic.value] = true;
  for (DeviceId nic : t.devices_of(2, DeviceKind::kNic)) gdr[nic.value] = (nic.value % 2) == 0;
  const Compared mixed = compare_all(t, off, &gdr);
  CHECK(mixed.capped > 0);
  CHECK(mixed.capped < mixed.routes);
}

TEST_CASE("route caps: per shape as per route with a derated PCIe link in every server") {
  // A fault of a server's link applies to every server (linksim/faults.hpp), so the blocks
  // stay identical and shapes keep sharing: GPU 0's staged leg crosses pciesw0 -> cpu0 at x8.
  const Topology intact = library_topology("dgx-h100-ib.yaml", {{"nodes", "4"}});
  const Topology t = with_degraded(intact, "pciesw0~cpu0:width=8");
  CommOptions off;
  off.net_gdr_level = PathClass::kSelf;
  const Compared staged = compare_all(t, off, nullptr);
  CHECK(staged.capped == staged.routes);
  // B_copy halves with the width: 0.47 x 31.5 x 12/15.75 GB/s.
  CHECK(staged.gpu0_cap == doctest::Approx(11.28e9));
}

TEST_CASE("server blocks: server_of and the copied capacities agree with each device and link") {
  // effective_capacities copies host 0's block for the other servers, and server_of reads a
  // server from the id: both by the layout contract, which a fault applied to every server
  // keeps. Checked device by device and link by link against the direct reading.
  const Topology intact = library_topology("dgx-h100-ib.yaml", {{"nodes", "4"}});
  const Topology t = with_degraded(intact, "pciesw0~cpu0:width=8,gpu1~nvswitch0:width=2");
  for (uint32_t id = 0; id < t.devices().size(); ++id) {
    CHECK(server_of(t, DeviceId{id}) == t.device(DeviceId{id}).host);
  }
  const ModelCalibration calibration;
  const std::vector<double> capacity = effective_capacities(t, calibration);
  REQUIRE(capacity.size() == t.links().size());
  int derated = 0;
  for (uint32_t id = 0; id < t.links().size(); ++id) {
    const Link& link = t.link(LinkId{id});
    CHECK(capacity[id] == link.bw_Bps * link_efficiency(t, link, calibration));
    derated += link.family == LinkFamily::kNvlink && link.lanes == 2 ? 1 : 0;
  }
  CHECK(derated == 2 * 4);  // both directions of gpu1~nvswitch0 in each of the 4 servers
}

TEST_CASE("server blocks: a flow run's link utilization is each link's bytes over its own raw rate") {
  // Lowering::run reads a server link's raw rate from host 0's block: checked against each
  // link's own, on 4 servers with an NVLink and a NIC fault (in every server).
  const Topology intact = library_topology("dgx-h100-ib.yaml", {{"nodes", "4"}});
  const Topology t = with_degraded(intact, "gpu1~nvswitch0:width=2,nic3:speed=200Gb/s");
  const Communicator comm(t, t.gpus());
  for (const CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kAllGather}) {
    CollectiveQuery q;
    q.op = op;
    q.size_bytes = 256.0 * 1048576;
    q.mode = SimMode::kFlow;
    const CollectiveResult r = comm.run(q);
    REQUIRE(r.time_s > 0);
    REQUIRE(r.link_usage.size() > 100);
    for (const LinkUsage& used : r.link_usage) {
      CHECK(used.utilization == used.bytes / (t.link(used.link).bw_Bps * r.time_s));
    }
  }
}

}  // namespace
}  // namespace linksim::detail
