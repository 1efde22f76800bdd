// SPDX-License-Identifier: Apache-2.0
// The collective model against closed forms derived by hand, and the two modes against each
// other where nothing contends.
#include "linksim/collectives.hpp"

#include <doctest/doctest.h>

#include <string>

#include "linksim/error.hpp"
#include "linksim/report.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/collective_query.hpp"
#include "support/test_topologies.hpp"

using namespace linksim;

namespace {


CollectiveResult run(const Communicator& comm, CollectiveOp op, double bytes,
                     Algorithm algo = Algorithm::kAuto, Protocol proto = Protocol::kAuto,
                     SimMode mode = SimMode::kAnalytic) {
  return comm.run(linksim::testing::collective_query(op, bytes, algo, proto, mode));
}

}  // namespace

TEST_SUITE("collectives") {
  TEST_CASE("collectives: nccl-tests busbw factors") {
    CHECK(bus_factor(CollectiveOp::kAllReduce, 8) == doctest::Approx(1.75));
    CHECK(bus_factor(CollectiveOp::kAllGather, 8) == doctest::Approx(0.875));
    CHECK(bus_factor(CollectiveOp::kReduceScatter, 4) == doctest::Approx(0.75));
    CHECK(bus_factor(CollectiveOp::kAllToAll, 2) == doctest::Approx(0.5));
    CHECK(bus_factor(CollectiveOp::kBroadcast, 8) == 1.0);
    CHECK(bus_factor(CollectiveOp::kSendRecv, 8) == 1.0);
  }

  TEST_CASE("collectives: ring AllReduce on an NVLink ring matches the alpha-beta closed form") {
    // Ring of 4 H100s, one 25 GB/s NVLink per hop. Effective rate: SM90's measured NVLink
    // efficiency 361.86/450 (docs/model.md#link-efficiency), 25 x 0.80413 = 20.103 GB/s per
    // direction. Two rings fit, one each way round (each uses the other direction of every
    // link), so every rank sends at 2 x 20.103 = 40.207 GB/s.
    // Ring Simple latency: 8.4 + 2(n-1) x 3.4 = 8.4 + 6 x 3.4 = 28.8 us.
    // Each rank sends 2(n-1)/n x S = 1.5 S. time(1 GiB) = 28.8e-6 + 1.5 x 2^30 / 40.207e9.
    Topology t = testing::ring4();
    Communicator comm(t, t.gpus());
    const double S = 1073741824.0;
    CollectiveResult r = run(comm, CollectiveOp::kAllReduce, S, Algorithm::kRing, Protocol::kSimple);
    const double lane_Bps = 25e9 * 361.86 / 450.0;
    const double expected = 28.8e-6 + 1.5 * S / (2 * lane_Bps);
    CHECK(r.time_s == doctest::Approx(expected).epsilon(1e-9));
    CHECK(r.algbw_Bps == doctest::Approx(S / expected).epsilon(1e-9));
    CHECK(r.busbw_Bps == doctest::Approx(1.5 * S / expected).epsilon(1e-9));
    CHECK(r.bottleneck.kind == BottleneckKind::kLink);
    CHECK(r.bottleneck.family == LinkFamily::kNvlink);
    CHECK(describe_bottleneck(r, t).find("(nvlink4 x1) [nvlink]") != std::string::npos);
  }

  TEST_CASE("collectives: LL halves the ring's bandwidth and has NCCL's LL latency") {
    // LL: 4 data bytes per 8-byte line -> 0.5 x 40.207 = 20.103 GB/s (below Hopper's 141 GB/s
    // cap); latency 6.6 + 6 x 0.6 = 10.2 us.
    Topology t = testing::ring4();
    Communicator comm(t, t.gpus());
    const double S = 1048576.0;
    CollectiveResult r = run(comm, CollectiveOp::kAllReduce, S, Algorithm::kRing, Protocol::kLL);
    CHECK(r.time_s == doctest::Approx(10.2e-6 + 1.5 * S / (25e9 * 361.86 / 450.0)).epsilon(1e-9));
  }

  TEST_CASE("collectives: auto picks LL for small and Simple or NVLS for large messages") {
    Topology t = testing::library_topology("dgx-h100.yaml");
    Communicator comm(t, t.gpus());
    CollectiveResult small = run(comm, CollectiveOp::kAllReduce, 8);
    CHECK(small.protocol == Protocol::kLL);
    CollectiveResult large = run(comm, CollectiveOp::kAllReduce, 8.0 * 1073741824.0);
    CHECK(large.algorithm == Algorithm::kNvls);
    CHECK(large.protocol == Protocol::kSimple);
    // NVLS: 276/450 of 450 GB/s per GPU, busbw = algbw x 1.75 -> about 482 GB/s.
    CHECK(large.busbw_Bps / 1e9 == doctest::Approx(482.1).epsilon(0.01));
  }

  TEST_CASE("collectives: flow and analytic modes agree within 1% where nothing contends") {
    const double S = 256.0 * 1048576.0;
    SUBCASE("NVLink ring") {
      Topology t = testing::ring4();
      Communicator comm(t, t.gpus());
      for (CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kAllGather,
                              CollectiveOp::kBroadcast, CollectiveOp::kSendRecv}) {
        CAPTURE(to_string(op));
        double a = run(comm, op, S, Algorithm::kAuto, Protocol::kSimple).time_s;
        double f = run(comm, op, S, Algorithm::kAuto, Protocol::kSimple, SimMode::kFlow).time_s;
        CHECK(f == doctest::Approx(a).epsilon(0.01));
      }
    }
    SUBCASE("DGX H100 ring and NVLS") {
      Topology t = testing::library_topology("dgx-h100.yaml");
      Communicator comm(t, t.gpus());
      for (Algorithm algo : {Algorithm::kRing, Algorithm::kNvls}) {
        double a = run(comm, CollectiveOp::kAllReduce, S, algo, Protocol::kSimple).time_s;
        double f = run(comm, CollectiveOp::kAllReduce, S, algo, Protocol::kSimple, SimMode::kFlow).time_s;
        CHECK(f == doctest::Approx(a).epsilon(0.01));
      }
    }
    SUBCASE("host-staged pair") {
      Topology t = testing::library_topology("dual-4090.yaml");
      Communicator comm(t, t.gpus());
      double a = run(comm, CollectiveOp::kAllReduce, S).time_s;
      double f = run(comm, CollectiveOp::kAllReduce, S, Algorithm::kAuto, Protocol::kAuto, SimMode::kFlow).time_s;
      CHECK(f == doctest::Approx(a).epsilon(0.01));
    }
  }

  TEST_CASE("collectives: the dual 4090 is limited by host staging, the PCIe server by the socket") {
    // RTX 4090s have no P2P: host-staged within the socket of a Ryzen 7000 host at B_copy =
    // 0.47 x NCCL's 24 GB/s for the Gen4 x16 legs = 11.28 GB/s (B_mem: 83.2 / (2 x 2) = 20.8).
    Topology pair = testing::library_topology("dual-4090.yaml");
    Communicator two(pair, pair.gpus());
    CollectiveResult r = run(two, CollectiveOp::kAllReduce, 1073741824.0);
    CHECK(r.bottleneck.kind == BottleneckKind::kHostStaging);
    CHECK(describe_bottleneck(r, pair).find("host-staged") != std::string::npos);
    CHECK(r.busbw_Bps / 1e9 == doctest::Approx(11.28).epsilon(0.01));
    Topology server = testing::library_topology("pcie-8gpu.yaml");
    Communicator eight(server, server.gpus());
    CollectiveResult s = run(eight, CollectiveOp::kAllReduce, 1073741824.0);
    CHECK(s.bottleneck.kind == BottleneckKind::kHostStaging);
    CHECK(s.bottleneck.crosses_socket);
    CHECK(describe_bottleneck(s, server).find("socket") != std::string::npos);
  }

  TEST_CASE("collectives: across servers the NICs set the ring's rate") {
    // 2 x DGX A100, 8 HDR NICs per server used one per GPU: 8 x 25 GB/s x 0.96 = 192 GB/s.
    Topology t = testing::library_topology("dgx-a100-ib.yaml", {{"nodes", "2"}});
    Communicator comm(t, t.gpus());
    CollectiveResult r = run(comm, CollectiveOp::kAllReduce, 4294967296.0, Algorithm::kRing,
                             Protocol::kSimple);
    CHECK(r.busbw_Bps / 1e9 == doctest::Approx(192.0).epsilon(0.01));
    CHECK(r.bottleneck.kind == BottleneckKind::kLink);
    CHECK(r.bottleneck.family == LinkFamily::kNetwork);
    CHECK(describe_bottleneck(r, t).find("ib_hdr") != std::string::npos);
  }

  TEST_CASE("collectives: refused algorithms and bad ranks are input errors") {
    Topology t = testing::library_topology("pcie-8gpu.yaml");
    Communicator comm(t, t.gpus());
    CHECK_THROWS_WITH_AS(run(comm, CollectiveOp::kAllReduce, 1024, Algorithm::kNvls),
                         "linksim: error: algorithm 'nvls' is not available for allreduce on these "
                         "8 GPUs; expected one of: auto, ring",
                         ConfigError);
    Topology h = testing::library_topology("dgx-h100.yaml");
    Communicator nv(h, h.gpus());
    CHECK_THROWS_WITH_AS(run(nv, CollectiveOp::kAllReduce, 1024, Algorithm::kNvls, Protocol::kLL),
                         "linksim: error: protocol 'LL' cannot be used with algorithm 'nvls' "
                         "here: NVLS runs the Simple protocol only",
                         ConfigError);
    CHECK_THROWS_AS(Communicator(h, {h.gpus()[0], h.gpus()[0]}), ConfigError);
  }
}
