// SPDX-License-Identifier: Apache-2.0
// NCCL's tuner model (src/collectives/nccl_tuner_model.hpp): the graphs its search finds, its
// tree correction, the choice it makes, and what depends on the NCCL version. Expected values
// are derived by hand from NCCL's search.cc, tuning.cc and paths.cc (docs/model.md#tuner).
#include <doctest/doctest.h>

#include "collectives/analytic.hpp"
#include "collectives/comm_graph.hpp"
#include "collectives/nccl_tuner_model.hpp"
#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/gpu_selection.hpp"
#include "support/test_topologies.hpp"

namespace {

using linksim::Algorithm;
using linksim::CollectiveOp;
using linksim::CollectiveQuery;
using linksim::Communicator;
using linksim::CommOptions;
using linksim::NcclVersion;
using linksim::Protocol;
using linksim::Topology;
namespace detail = linksim::detail;

constexpr double kGiB = 1073741824.0;

// The first `n` GPUs of `t`.
Communicator first_gpus(const Topology& t, int n, CommOptions options = {}) {
  linksim::GpuSelection s;
  s.first_n = n;
  return Communicator(t, linksim::select_gpus(t, s), options);
}

linksim::CollectiveResult run(const Communicator& c, CollectiveOp op, double bytes) {
  CollectiveQuery q;
  q.op = op;
  q.size_bytes = bytes;
  return c.run(q);
}

}  // namespace

TEST_SUITE("tuner") {
  TEST_CASE("NVLS search on H100: (heads + 1) x speed within 18 x 20.6 GB/s, SM90 speeds") {
    // 370.8 / 5 = 74 -> capped at the array's 60; /6 = 61.8 -> 60; /7 = 53 -> 50;
    // /8 = 46.4 -> 40; /9 = 41.2 -> 40.
    CHECK(detail::nvls_search(90, 370.8, 4, false).speed_GBps == 60);
    CHECK(detail::nvls_search(90, 370.8, 5, false).speed_GBps == 60);
    CHECK(detail::nvls_search(90, 370.8, 6, false).speed_GBps == 50);
    CHECK(detail::nvls_search(90, 370.8, 7, false).speed_GBps == 40);
    CHECK(detail::nvls_search(90, 370.8, 8, false).speed_GBps == 40);
    CHECK(detail::nvls_search(90, 370.8, 8, false).channels == 8);
    // Heads stop at NCCL_MAX_NVLS_ARITY (32): 72 Blackwell GPUs, 18 x 40.1 / 33 = 21.9 -> 20.
    const detail::SearchedGraph nvl72 = detail::nvls_search(100, 18 * 40.1, 72, false);
    CHECK(nvl72.channels == 32);
    CHECK(nvl72.speed_GBps == 20);
  }

  TEST_CASE("ring search: 8 x H100 finds 6 x 60 GB/s, duplicated to 12 x 30") {
    const detail::SearchedGraph h100 = detail::ring_search(90, 370.8, 0, 32);
    CHECK(h100.channels == 12);
    CHECK(h100.speed_GBps == 30);
    // A100: 12 x 20 = 240 GB/s, 6 channels of 40 fill it exactly; duplicated to 12 x 20.
    const detail::SearchedGraph a100 = detail::ring_search(80, 240, 0, 32);
    CHECK(a100.channels == 12);
    CHECK(a100.speed_GBps == 20);
    // Two H100 servers over 8 NDR NICs (400 GB/s): 8 x 45 (inter-node speeds), not duplicated
    // on Hopper below 50 GB/s with more than 4 channels.
    const detail::SearchedGraph two = detail::ring_search(90, 370.8, 400, 32);
    CHECK(two.channels == 8);
    CHECK(two.speed_GBps == 45);
  }

  TEST_CASE("tree correction: NCCL's factors by log2(size / 64 B), 1 beyond the table") {
    CHECK(detail::tree_correction(Protocol::kSimple, 64) == doctest::Approx(0.9));
    CHECK(detail::tree_correction(Protocol::kSimple, 1048576) == doctest::Approx(0.5));  // 2^14
    CHECK(detail::tree_correction(Protocol::kLL, 4096) == doctest::Approx(0.7));         // 2^6
    CHECK(detail::tree_correction(Protocol::kLL128, 65536) == doctest::Approx(0.6));     // 2^10
    CHECK(detail::tree_correction(Protocol::kSimple, 8 * kGiB) == 1.0);
  }

  TEST_CASE("AllReduce on H100s: ring on 4 GPUs, NVLS from 5 (NCCL's estimates)") {
    // Ring: 12 x 30 = 360 GB/s busbw, algbw 360 n / 2(n-1). NVLS: n heads x speed x 0.85 x
    // (n-1)/n x 2, algbw the same ratio. n = 4: ring 240 > NVLS 4 x 60 x 0.85 x 3/4 x 2 x 4/6
    // = 204; n = 5: NVLS 5 x 60 x 0.85 x 4/5 x 2 x 5/8 = 255 > ring 225.
    const Topology t = linksim::testing::library_topology("dgx-h100.yaml");
    CHECK(run(first_gpus(t, 4), CollectiveOp::kAllReduce, kGiB).algorithm == Algorithm::kRing);
    CHECK(run(first_gpus(t, 5), CollectiveOp::kAllReduce, kGiB).algorithm == Algorithm::kNvls);
    CHECK(run(first_gpus(t, 8), CollectiveOp::kAllReduce, kGiB).algorithm == Algorithm::kNvls);
    // NCCL sets NVLS up only with more than two GPUs.
    CHECK(run(first_gpus(t, 2), CollectiveOp::kAllReduce, kGiB).algorithm == Algorithm::kRing);
  }

  TEST_CASE("the estimate picks, the realized model times: NVLS on 8 H100 keeps its rate") {
    const Topology t = linksim::testing::library_topology("dgx-h100.yaml");
    const auto r = run(first_gpus(t, 8), CollectiveOp::kAllReduce, 8 * kGiB);
    REQUIRE(r.algorithm == Algorithm::kNvls);
    // Realized: 450 GB/s x 276/450 algbw, not NCCL's estimate (476 x 8/14 = 272).
    CHECK(r.algbw_Bps / 1e9 == doctest::Approx(276).epsilon(0.01));
  }

  TEST_CASE("--nccl-version gates NVLS (2.17), NVLS AllGather (2.19) and NVLSTree (2.18)") {
    const Topology t = linksim::testing::library_topology("dgx-h100.yaml");
    CommOptions old;
    old.nccl_version = NcclVersion{2, 16};
    CHECK(run(first_gpus(t, 8, old), CollectiveOp::kAllReduce, kGiB).algorithm == Algorithm::kRing);
    CommOptions v217;
    v217.nccl_version = NcclVersion{2, 17};
    CHECK(run(first_gpus(t, 8, v217), CollectiveOp::kAllReduce, kGiB).algorithm ==
          Algorithm::kNvls);
    // AllGather over NVLS exists from 2.19 (NCCL's estimate then still prefers the ring on
    // 8 H100s: NVLS 8 x 40 x 0.85 x 7/8 x 7/8 x 8/7 = 238 GB/s against 360 x 8/7 = 411).
    CollectiveQuery nvls_allgather;
    nvls_allgather.op = CollectiveOp::kAllGather;
    nvls_allgather.size_bytes = kGiB;
    nvls_allgather.algorithm = Algorithm::kNvls;
    CHECK_THROWS_AS(first_gpus(t, 8, v217).run(nvls_allgather), linksim::ConfigError);
    CommOptions v219;
    v219.nccl_version = NcclVersion{2, 19};
    CHECK(first_gpus(t, 8, v219).run(nvls_allgather).algorithm == Algorithm::kNvls);
    CHECK(run(first_gpus(t, 8, v219), CollectiveOp::kAllGather, kGiB).algorithm ==
          Algorithm::kRing);

    const Topology two = linksim::testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    CommOptions v217b;
    v217b.nccl_version = NcclVersion{2, 17};
    CHECK(run(first_gpus(two, 16, v217b), CollectiveOp::kAllReduce, 8 * kGiB).algorithm !=
          Algorithm::kNvlsTree);
    CHECK(run(first_gpus(two, 16), CollectiveOp::kAllReduce, 8 * kGiB).algorithm ==
          Algorithm::kNvlsTree);
  }

  TEST_CASE("p2p channels to a remote peer: as many as drive the NIC, halved to fit the peers") {
    // DGX H100s, NDR 50 GB/s per GPU's NIC: 2.29 wants max(1, ceil(50 / 14)) = 4 channels per
    // network peer, then halves them while 4 x ceil(ranks / 8) exceeds the p2p channels (the
    // ring graph's channels x 2, rounded up to a power of two; paths.cc
    // ncclTopoComputeP2pChannels). 2 servers (16 ranks, graph 8 channels -> 16): 4 x 2 <= 16,
    // 4 channels x 14 = 56 GB/s > the NIC's 48: the NIC limits. 10 servers x 8 (80 ranks,
    // 16 p2p channels): 4 x 10 > 16, 2 x 10 > 16: 1 channel, 14 GB/s (measured 15.2,
    // calibration 75). 10 x 1 (graph 2 channels -> 4): 4 x 2 > 4: 2 channels, 28 GB/s
    // (measured 24.9, calibration 72). 2.28 on 80 ranks: 2, halved while 2 x 80 > 4 x 16: 1.
    const Topology two = linksim::testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    const Topology t = linksim::testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "10"}});
    CommOptions v228;
    v228.nccl_version = NcclVersion{2, 28};
    const auto pair = run(first_gpus(two, 16), CollectiveOp::kSendRecv, 4 * kGiB);
    const auto now = run(first_gpus(t, 80), CollectiveOp::kSendRecv, 4 * kGiB);
    const auto then = run(first_gpus(t, 80, v228), CollectiveOp::kSendRecv, 4 * kGiB);
    linksim::GpuSelection one_per_node;
    one_per_node.per_node = 1;
    const auto single = run(Communicator(t, linksim::select_gpus(t, one_per_node), CommOptions{}),
                            CollectiveOp::kSendRecv, 4 * kGiB);
    CHECK(pair.busbw_Bps / 1e9 == doctest::Approx(48).epsilon(0.03));
    CHECK(now.bottleneck.kind == linksim::BottleneckKind::kP2pChannels);
    CHECK(now.busbw_Bps / 1e9 == doctest::Approx(14).epsilon(0.02));
    CHECK(single.busbw_Bps / 1e9 == doctest::Approx(28).epsilon(0.02));
    CHECK(then.bottleneck.kind == linksim::BottleneckKind::kP2pChannels);
    CHECK(then.busbw_Bps / 1e9 == doctest::Approx(14).epsilon(0.02));
  }

  TEST_CASE("tree correction in the realized tree time: Simple x0.5 at 1 MiB, x1 from 1 GiB") {
    const Topology t = linksim::testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    linksim::GpuSelection s;
    s.first_n = 16;
    const detail::CommGraph g(t, linksim::select_gpus(t, s), CommOptions{});
    const auto at = [&](double bytes) {
      return detail::cost_model(g, CollectiveOp::kAllReduce, Algorithm::kTree, Protocol::kSimple,
                                bytes)
          .bw_Bps;
    };
    // log2(1 MiB / 64 B) = 14: Simple 0.5; log2(1 GiB / 64 B) = 24: beyond the table, 1.
    CHECK(at(1048576) / at(kGiB) == doctest::Approx(0.5));
    CHECK(at(4096) / at(kGiB) == doctest::Approx(0.9));  // 2^6: 0.9
  }

  TEST_CASE("NVLS start-up: one loop of 16 channels x heads x 128 KiB, at most the buffer") {
    // 8 H100s: 16 x 8 x 128 KiB = 16 MiB at 276 GB/s; 4 H100s: 8 MiB at the same rate.
    const Topology t = linksim::testing::library_topology("dgx-h100.yaml");
    CollectiveQuery q;
    q.op = CollectiveOp::kAllReduce;
    q.size_bytes = 32.0 * 1048576;
    q.algorithm = Algorithm::kNvls;
    const double B = 450e9 * 276.0 / 450.0;
    const double eight = first_gpus(t, 8).run(q).time_s;
    const double four = first_gpus(t, 4).run(q).time_s;
    CHECK(eight == doctest::Approx(25e-6 + 16.0 * 8 * 131072 / B + q.size_bytes / B).epsilon(1e-9));
    CHECK(four == doctest::Approx(25e-6 + 16.0 * 4 * 131072 / B + q.size_bytes / B).epsilon(1e-9));
    // A 1 MiB buffer is smaller than either loop: the start-up is its own bytes.
    q.size_bytes = 1048576;
    CHECK(first_gpus(t, 8).run(q).time_s ==
          doctest::Approx(25e-6 + 2 * q.size_bytes / B).epsilon(1e-9));
    CHECK(first_gpus(t, 4).run(q).time_s ==
          doctest::Approx(25e-6 + 2 * q.size_bytes / B).epsilon(1e-9));
  }

  TEST_CASE("parse_nccl_version: X.Y and X.Y.Z within the known releases") {
    CHECK(linksim::parse_nccl_version("2.29") == NcclVersion{2, 29});
    CHECK(linksim::parse_nccl_version("2.18.3") == NcclVersion{2, 18});
    CHECK_FALSE(linksim::parse_nccl_version("2"));
    CHECK_FALSE(linksim::parse_nccl_version("2.x"));
    CHECK_FALSE(linksim::parse_nccl_version("3.0"));
    CHECK_FALSE(linksim::parse_nccl_version("2.99"));
    CHECK_FALSE(linksim::parse_nccl_version("2.29.1.4"));
    CHECK_FALSE(linksim::parse_nccl_version("-2.29"));
    CHECK(linksim::to_string(NcclVersion{2, 17}) == "2.17");
  }
}
