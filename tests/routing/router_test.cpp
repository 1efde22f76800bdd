// SPDX-License-Identifier: Apache-2.0
// Router: nvidia-smi classes, NCCL-like routes, shares, bottlenecks and latencies on the
// hand-built machines of tests/support/mini_topologies.hpp.
#include <doctest/doctest.h>

#include "linksim/routing.hpp"
#include "support/mini_topologies.hpp"

namespace linksim {
namespace {

DeviceId id(const Topology& topology, const char* name) { return testing::named(topology, name); }

}  // namespace

TEST_SUITE("routing") {

TEST_CASE("router: nvswitch box classes and NV# counts") {
  const Topology t = testing::make_nvswitch_box();
  const Router router(t);
  int lanes = 0;
  // Every GPU has 3 lanes to nvs0 and 2 to nvs1, and both switches reach every GPU: NV5.
  CHECK(router.classify(id(t, "gpu0"), id(t, "gpu3"), &lanes) == PathClass::kNvlink);
  CHECK(lanes == 5);
  CHECK(router.classify(id(t, "gpu1"), id(t, "gpu1")) == PathClass::kSelf);
  CHECK(router.classify(id(t, "gpu0"), id(t, "nic0")) == PathClass::kPix);
  CHECK(router.classify(id(t, "gpu0"), id(t, "nic1")) == PathClass::kSys);
  CHECK(router.classify(id(t, "nic0"), id(t, "nic1")) == PathClass::kSys);
  CHECK(router.route(id(t, "gpu2"), id(t, "gpu1")).label() == "NV5");
  CHECK(router.route(id(t, "gpu2"), id(t, "gpu2")).label() == "X");
  CHECK(router.nearest_nic(id(t, "gpu1")) == id(t, "nic0"));
  CHECK(router.nearest_nic(id(t, "gpu2")) == id(t, "nic1"));
}

TEST_CASE("router: nvswitch route spreads over both planes by lanes") {
  // Plane nvs0 carries 3/5 of the bytes over 3 x 25 = 75 GB/s links: 75 / 0.6 = 125 GB/s;
  // plane nvs1 carries 2/5 over 50 GB/s: 50 / 0.4 = 125 GB/s. Route bw 125 GB/s (NV5 x 25).
  // Latency: two NVLink hops of 0.5 us = 1 us.
  const Topology t = testing::make_nvswitch_box();
  const Route r = Router(t).route(id(t, "gpu0"), id(t, "gpu1"));
  REQUIRE(r.paths.size() == 2);
  CHECK(testing::path_text(t, r.paths[0]) == "gpu0>nvs0>gpu1");
  CHECK(testing::path_text(t, r.paths[1]) == "gpu0>nvs1>gpu1");
  CHECK(r.paths[0].share == doctest::Approx(0.6));
  CHECK(r.paths[1].share == doctest::Approx(0.4));
  CHECK(r.bw_Bps == doctest::Approx(125e9));
  CHECK(r.latency_s == doctest::Approx(1e-6));
  CHECK(r.transport == Transport::kP2p);
  CHECK(t.link(r.bottleneck).family == LinkFamily::kNvlink);
}

TEST_CASE("router: gpu to a nic on the other socket goes through both CPUs") {
  // gpu0 > psw0 > cpu0 > cpu1 > psw1 > nic1: four PCIe hops (32 GB/s, 1 us) and UPI (40 GB/s,
  // 0.2 us): bw 32 GB/s, latency 4.2 us, staged through host memory (no GPUDirect at SYS).
  const Topology t = testing::make_nvswitch_box();
  const Route r = Router(t).route(id(t, "gpu0"), id(t, "nic1"));
  REQUIRE(r.paths.size() == 1);
  CHECK(testing::path_text(t, r.paths[0]) == "gpu0>psw0>cpu0>cpu1>psw1>nic1");
  CHECK(r.bw_Bps == doctest::Approx(32e9));
  CHECK(r.latency_s == doctest::Approx(4.2e-6));
  CHECK(r.transport == Transport::kShm);
  CHECK(r.label() == "SYS");
}

TEST_CASE("router: pcie tree classes") {
  const Topology t = testing::make_pcie_tree();
  const Router router(t);
  CHECK(router.classify(id(t, "gpu0"), id(t, "gpu1")) == PathClass::kPix);
  CHECK(router.classify(id(t, "gpu0"), id(t, "gpu2")) == PathClass::kPxb);
  CHECK(router.classify(id(t, "gpu0"), id(t, "gpu3")) == PathClass::kPhb);
  CHECK(router.classify(id(t, "gpu0"), id(t, "gpu4")) == PathClass::kNode);
  CHECK(router.classify(id(t, "gpu3"), id(t, "gpu4")) == PathClass::kNode);
  CHECK(router.classify(id(t, "gpu2"), id(t, "nic0")) == PathClass::kPxb);
  CHECK(router.classify(id(t, "nic0"), id(t, "gpu1")) == PathClass::kPix);
  CHECK(router.nearest_nic(id(t, "gpu4")) == id(t, "nic0"));
}

TEST_CASE("router: pcie p2p up to NCCL's default level PXB, host memory beyond") {
  // Every PCIe hop: 32 GB/s, 1 us.
  const Topology t = testing::make_pcie_tree();
  const Router router(t);
  SUBCASE("PIX: through psw0 only") {
    const Route r = router.route(id(t, "gpu0"), id(t, "gpu1"));
    CHECK(testing::path_text(t, r.paths[0]) == "gpu0>psw0>gpu1");
    CHECK(r.transport == Transport::kP2p);
    CHECK(r.latency_s == doctest::Approx(2e-6));
    CHECK(r.bw_Bps == doctest::Approx(32e9));
  }
  SUBCASE("PXB: up to top and down") {
    const Route r = router.route(id(t, "gpu0"), id(t, "gpu2"));
    CHECK(testing::path_text(t, r.paths[0]) == "gpu0>psw0>top>psw1>gpu2");
    CHECK(r.transport == Transport::kP2p);
    CHECK(r.latency_s == doctest::Approx(4e-6));
  }
  SUBCASE("PHB is above PXB: staged through cpu0") {
    const Route r = router.route(id(t, "gpu0"), id(t, "gpu3"));
    CHECK(testing::path_text(t, r.paths[0]) == "gpu0>psw0>top>cpu0>gpu3");
    CHECK(r.transport == Transport::kShm);
  }
}

TEST_CASE("router: options change the transport") {
  const Topology t = testing::make_pcie_tree();
  RouterOptions disabled;
  disabled.p2p_disable = true;
  RouterOptions sys;
  sys.p2p_level = PathClass::kSys;
  SUBCASE("p2p_disable stages even PIX pairs: up to the CPU and back down (6 hops, 6 us)") {
    const Route r = Router(t, disabled).route(id(t, "gpu0"), id(t, "gpu1"));
    CHECK(testing::path_text(t, r.paths[0]) == "gpu0>psw0>top>cpu0>top>psw0>gpu1");
    CHECK(r.transport == Transport::kShm);
    CHECK(r.latency_s == doctest::Approx(6e-6));
    CHECK(r.bw_Bps == doctest::Approx(32e9));
  }
  SUBCASE("p2p_level SYS allows NODE pairs through the root complex") {
    const Router router(t, sys);
    const Route r = router.route(id(t, "gpu3"), id(t, "gpu4"));
    CHECK(testing::path_text(t, r.paths[0]) == "gpu3>cpu0>gpu4");
    CHECK(r.transport == Transport::kP2p);
  }
}

TEST_CASE("router: GPUs without p2p stage through both sockets") {
  // gpu0 > cpu0 > cpu1 > gpu1: PCIe 32 GB/s + UPI 40 GB/s + PCIe 32 GB/s: bw 32 GB/s,
  // latency 1 + 0.2 + 1 = 2.2 us.
  const Topology t = testing::make_dual_socket(false);
  const Route r = Router(t).route(id(t, "gpu0"), id(t, "gpu1"));
  CHECK(r.label() == "SYS");
  CHECK(testing::path_text(t, r.paths[0]) == "gpu0>cpu0>cpu1>gpu1");
  CHECK(r.transport == Transport::kShm);
  CHECK(r.bw_Bps == doctest::Approx(32e9));
  CHECK(r.latency_s == doctest::Approx(2.2e-6));
  RouterOptions sys;
  sys.p2p_level = PathClass::kSys;
  CHECK(Router(testing::make_dual_socket(true), sys)
            .route(id(t, "gpu0"), id(t, "gpu1"))
            .transport == Transport::kP2p);
}

TEST_CASE("router: across servers through the nearest NICs") {
  // host0:gpu0 > sw0 > nic0 > switch0 > host1:nic0 > sw0 > gpu0: 4 PCIe hops (32 GB/s, 1 us)
  // and 2 InfiniBand HDR hops: bw = min(32 GB/s, HDR rate), latency = 4 us + 2 x HDR latency.
  detail::FabricSpec spec;
  spec.radix = 40;
  const Topology t = testing::make_cluster(2, spec);
  const Router router(t);
  const LinkType& hdr = *Catalog::builtin().find_link_type("ib_hdr");
  const Route r = router.route(id(t, "host0:gpu0"), id(t, "host1:gpu0"));
  REQUIRE(r.paths.size() == 1);
  CHECK(testing::path_text(t, r.paths[0]) ==
        "host0:gpu0>host0:sw0>host0:nic0>switch0>host1:nic0>host1:sw0>host1:gpu0");
  CHECK(r.label() == "NET");
  CHECK(r.transport == Transport::kNet);
  CHECK(r.bw_Bps == doctest::Approx(std::min(32e9, hdr.lane_bw_Bps)));
  CHECK(r.latency_s == doctest::Approx(4e-6 + 2 * hdr.latency_s));
  CHECK(router.classify(id(t, "host0:gpu1"), id(t, "host1:gpu1")) == PathClass::kNet);
  // Intra-host routes of host 1 are host 0's, shifted: NV4 over one direct 4-lane bond.
  const Route local = router.route(id(t, "host1:gpu1"), id(t, "host1:gpu0"));
  CHECK(local.label() == "NV4");
  CHECK(testing::path_text(t, local.paths[0]) == "host1:gpu1>host1:gpu0");
  CHECK(local.bw_Bps == doctest::Approx(100e9));
}

TEST_CASE("router: a host route is the host-0 route with the server's offsets") {
  detail::FabricSpec spec;
  spec.radix = 40;
  const Topology t = testing::make_cluster(3, spec);
  const Router router(t);
  const DeviceId a = id(t, "host2:gpu1");
  const DeviceId b = id(t, "host2:gpu0");
  const auto host = router.host_route(a, b);
  REQUIRE(host.has_value());
  const Route& local = *host->local;
  CHECK(local.src == id(t, "host0:gpu1"));
  CHECK(local.dst == id(t, "host0:gpu0"));
  CHECK(host->device_offset == 2 * t.devices_per_host());
  CHECK(host->link_offset == 2 * t.links_per_host());
  // route() is exactly the shifted copy.
  const Route full = router.route(a, b);
  REQUIRE(full.paths.size() == local.paths.size());
  for (size_t p = 0; p < full.paths.size(); ++p) {
    REQUIRE(full.paths[p].links.size() == local.paths[p].links.size());
    CHECK(full.paths[p].share == local.paths[p].share);
    for (size_t i = 0; i < full.paths[p].links.size(); ++i) {
      CHECK(full.paths[p].links[i].value == local.paths[p].links[i].value + host->link_offset);
    }
  }
  CHECK(full.bw_Bps == local.bw_Bps);
  CHECK(full.bottleneck.value == local.bottleneck.value + host->link_offset);
  // Across servers there is no host route.
  CHECK_FALSE(router.host_route(id(t, "host0:gpu0"), id(t, "host1:gpu0")).has_value());
  CHECK_THROWS_WITH_AS(router.host_route(id(t, "switch0"), b),
                       "linksim: error: expected a gpu or nic to route between, got "
                       "net_switch 'switch0'",
                       ConfigError);
}

TEST_CASE("router: bad endpoints") {
  const Topology t = testing::make_pcie_tree();
  const Router router(t);
  CHECK_THROWS_WITH_AS(router.route(id(t, "cpu0"), id(t, "gpu0")),
                       "linksim: error: expected a gpu or nic to route between, got cpu 'cpu0'",
                       ConfigError);
}

}  // TEST_SUITE

}  // namespace linksim
