// SPDX-License-Identifier: Apache-2.0
// GPUDirect RDMA off (NCCL_NET_GDR_LEVEL) and NCCL's socket transport (docs/model.md#gdr-off,
// #net-socket): a network route's NIC legs staged through the GPU's CPU, capped at the host's
// staged rate, on the route and on the servers' NICs alike.
#include <doctest/doctest.h>

#include <cmath>

#include "collectives/link_efficiency.hpp"
#include "linksim/collective_rows.hpp"
#include "linksim/collectives.hpp"
#include "support/test_topologies.hpp"

using namespace linksim;
using linksim::testing::library_topology;

namespace {

double allreduce_busbw(const Topology& t, const std::vector<DeviceId>& gpus,
                       const CommOptions& options, double bytes) {
  const Communicator comm(t, gpus, options);
  CollectiveQuery q;
  q.size_bytes = bytes;
  return comm.run(q).busbw_Bps;
}

}  // namespace

TEST_SUITE("collectives") {
  TEST_CASE("gdr-off: NCCL_NET_GDR_LEVEL=LOC stages both NIC legs at the host-staged rate") {
    const Topology t = library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    const DeviceId a = t.gpus()[0];
    const DeviceId b = t.gpus()[8];
    // GPU 0 and NIC 0 share PCIe switch 0 (PIX): GPUDirect RDMA at NCCL's default level PXB.
    const Route direct = Router(t).route(a, b);
    CHECK(direct.transport == Transport::kNet);
    CHECK(detail::staged_network_legs(t, direct).empty());
    CHECK(std::isinf(detail::route_rate_cap(t, direct, {})));
    RouterOptions pix;
    pix.net_gdr_level = PathClass::kPix;
    CHECK(detail::staged_network_legs(t, Router(t, pix).route(a, b)).empty());

    RouterOptions off;
    off.net_gdr_level = PathClass::kSelf;
    const Route staged = Router(t, off).route(a, b);
    CHECK(staged.transport == Transport::kNet);
    const auto legs = detail::staged_network_legs(t, staged);
    REQUIRE(legs.size() == 2);
    // gpu0 -> pciesw0 -> cpu0 -> pciesw0 -> nic0, and the same down on the far server.
    CHECK(legs[0].links.size() == 4);
    CHECK(legs[1].links.size() == 4);
    CHECK(t.display_name(legs[0].nic) == "host0:nic0");
    CHECK(t.display_name(legs[1].nic) == "host1:nic0");
    // A NIC some GPU of the communicator reaches with GPUDirect RDMA: NCCL's search and PXN
    // route through that GPU, so its staged legs are left uncapped.
    std::vector<bool> gdr(t.devices().size(), false);
    gdr[legs[0].nic.value] = true;
    gdr[legs[1].nic.value] = true;
    CHECK(std::isinf(detail::route_rate_cap(t, staged, {}, nullptr, &gdr)));
    gdr[legs[1].nic.value] = false;
    CHECK(detail::staged_network_legs(t, staged, &gdr).size() == 1);
    CHECK(detail::route_rate_cap(t, staged, {}, nullptr, &gdr) == doctest::Approx(22.56e9));
    Bottleneck why;
    // Sapphire Rapids, no measurement of its own: B_copy = 0.47 x NCCL's PCIe Gen5 x16 figure
    // (63 x 12/15.75 = 48 GB/s) = 22.56 GB/s, below B_mem = 307.2 / (2 x 4 GPUs) = 38.4.
    CHECK(detail::route_rate_cap(t, staged, {}, &why) == doctest::Approx(22.56e9));
    CHECK(why.kind == BottleneckKind::kHostStaging);
    CHECK(describe_bottleneck(why, t) ==
          "host-staged network copy host0:gpu0->host1:gpu0 (no GPUDirect RDMA)");
  }

  TEST_CASE("gdr-off and sockets: a two-server AllReduce runs at the host-staged rate") {
    const Topology t = library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    const std::vector<DeviceId> pair = {t.gpus()[0], t.gpus()[8]};
    CommOptions gdr_off;
    gdr_off.net_gdr_level = PathClass::kSelf;
    CommOptions socket;
    socket.net_socket = true;
    const double best = allreduce_busbw(t, pair, {}, 1 << 30);
    const double staged = allreduce_busbw(t, pair, gdr_off, 1 << 30);
    // Two ranks: the ring's one hop each way is the staged route, 22.56 GB/s; busbw = algbw.
    // With GDR the hop runs at the NDR NIC's 48 GB/s.
    CHECK(staged <= 22.56e9);
    CHECK(staged > 0.8 * 22.56e9);
    CHECK(best > 1.8 * staged);
    // The socket transport registers host memory only: the same staging, nothing more modelled.
    CHECK(allreduce_busbw(t, pair, socket, 1 << 30) == doctest::Approx(staged));
    // Sixteen ranks: the servers' NICs each fed at the staged rate (8 x 22.56 = 180 GB/s
    // per server, below 8 x 48) bound the trees as well.
    const double all_best = allreduce_busbw(t, t.gpus(), {}, 1 << 30);
    const double all_staged = allreduce_busbw(t, t.gpus(), gdr_off, 1 << 30);
    CHECK(all_staged < 0.8 * all_best);
  }
}
