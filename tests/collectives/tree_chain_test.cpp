// SPDX-License-Identifier: Apache-2.0
// The tree across servers (docs/model.md#tree-chain, #tree-nics, #tuner): the chain's own rate,
// the NICs' load by the count of servers, NCCL's tree graph on two servers and the ring
// graph's whole channels per NIC. Expected values derived by hand.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "collectives/analytic.hpp"
#include "collectives/comm_graph.hpp"
#include "collectives/nccl_tuner_model.hpp"
#include "linksim/collectives.hpp"
#include "linksim/gpu_selection.hpp"
#include "support/test_topologies.hpp"

namespace {

namespace detail = linksim::detail;
using linksim::Algorithm;
using linksim::CollectiveOp;
using linksim::CommOptions;
using linksim::NcclVersion;
using linksim::Protocol;
using linksim::Topology;

constexpr double kGiB = 1073741824.0;

Topology gh200(int nodes) {
  return linksim::testing::library_topology("hpe-gh200-slingshot.yaml",
                                            {{"nodes", std::to_string(nodes)}});
}

// REQUIRES: `t` outlives the graph (CommGraph keeps a reference to it).
detail::CommGraph graph(const Topology& t, NcclVersion v = NcclVersion{2, 29}) {
  CommOptions o;
  o.nccl_version = v;
  return detail::CommGraph(t, linksim::select_gpus(t, linksim::GpuSelection{}), o);
}

}  // namespace

TEST_SUITE("tree_chain") {
  TEST_CASE("tree chain: behind NVSwitches half the ring's rate, on a direct mesh all of it") {
    // DGX H100: a GPU's parent and child are both behind its 18 NVLinks into the switches, 2 S
    // through them: half the ring's 361.86 GB/s.
    const Topology dgx = linksim::testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    const detail::CommGraph d = graph(dgx);
    CHECK(d.ring().intra_throughput_Bps == doctest::Approx(361.86e9).epsilon(1e-4));
    CHECK(d.ring().tree_chain_throughput_Bps ==
          doctest::Approx(d.ring().intra_throughput_Bps / 2).epsilon(1e-9));
    // Four GH200 joined pairwise by 6 NVLink 4 lanes: up and down leave by different pairs'
    // links, S on each: 6 x 25 GB/s x 361.86 / 450 = 120.62 GB/s, the ring's own rate.
    const Topology mesh = gh200(2);
    const detail::CommGraph g = graph(mesh);
    CHECK(g.ring().intra_throughput_Bps == doctest::Approx(6 * 25e9 * 361.86 / 450).epsilon(1e-6));
    CHECK(g.ring().tree_chain_throughput_Bps ==
          doctest::Approx(g.ring().intra_throughput_Bps).epsilon(1e-9));
  }

  TEST_CASE("tree chain: two GH200 nodes, the NICs move S each way and bind at 0.92 x 96") {
    // 4 Slingshot NICs x 25 GB/s x 0.96 = 96 GB/s of S each way on two servers, under the
    // chain's 120.62: B = 0.92 x 96 = 88.32 GB/s at 8 GiB (no medium-size correction there).
    // Under NCCL 2.20 the legs are host-staged through Grace's memory, which does not bind
    // (docs/model.md#gdr-off): the same rate.
    for (const NcclVersion v : {NcclVersion{2, 29}, NcclVersion{2, 20}}) {
      CAPTURE(v.minor);
      const Topology t = gh200(2);
      const detail::CommGraph g = graph(t, v);
      const detail::CostModel m = detail::cost_model(g, CollectiveOp::kAllReduce,
                                                     Algorithm::kTree, Protocol::kSimple, 8 * kGiB);
      CHECK(m.bw_Bps == doctest::Approx(88.32e9).epsilon(1e-9));
      CHECK(m.bottleneck.kind == linksim::BottleneckKind::kServerNics);
    }
    // On four nodes each NIC moves 2 S each way: 48 GB/s of S, x 0.92 = 44.16 GB/s.
    const Topology four_nodes = gh200(4);
    const detail::CommGraph four = graph(four_nodes);
    const detail::CostModel m4 = detail::cost_model(four, CollectiveOp::kAllReduce,
                                                    Algorithm::kTree, Protocol::kSimple, 8 * kGiB);
    CHECK(m4.bw_Bps == doctest::Approx(44.16e9).epsilon(1e-9));
  }

  TEST_CASE("tree chain: NCCL's ring search gives each NIC whole channels") {
    // Four 25 GB/s NICs (100 GB/s) under a 123.6 GB/s budget: the SM90 inter speeds reach 24
    // first, one channel a NIC: 4 x 24 = 96. Counted as one 100 GB/s pool, 20 GB/s would fit
    // 5 channels (100) and win; a NIC cannot split a channel, so 20 gives 4 x 20 = 80.
    const auto whole = detail::ring_search(90, 123.6, 100, 32, 25, NcclVersion{2, 29}, 4);
    CHECK(whole.channels == 4);
    CHECK(whole.speed_GBps == 24);
    const auto pooled = detail::ring_search(90, 123.6, 100, 32, 25, NcclVersion{2, 29});
    CHECK(pooled.channels == 5);
    CHECK(pooled.speed_GBps == 20);
  }

  TEST_CASE("tree chain: on two servers NCCL's tuner reads the tree graph's raised speed") {
    // The ring graph: 4 channels at 24 GB/s. The tree graph raises its intra speed while below
    // 2 x 24 and 4 channels fit the 123.6 GB/s budget (6 NVLinks x 20.6): 30 (120) fits, 40
    // (160) does not. Two servers: busBw 4 x 30 x 0.92 = 110.4, algbw x 0.5 = 55.2 GB/s;
    // three servers read the inter speed: 4 x 24 x 0.92 x 0.5 = 44.16.
    auto tree_algbw = [](int nodes) {
      const Topology t = gh200(nodes);
      const detail::CommGraph g = graph(t);
      CHECK(g.nccl_ring_graph().channels == 4);
      CHECK(g.nccl_ring_graph().speed_GBps == 24);
      const detail::CostModel m = detail::cost_model(g, CollectiveOp::kAllReduce,
                                                     Algorithm::kTree, Protocol::kSimple, 8 * kGiB);
      return detail::nccl_estimate(g, CollectiveOp::kAllReduce, Algorithm::kTree,
                                   Protocol::kSimple, m)
          .algbw_Bps;
    };
    CHECK(tree_algbw(2) == doctest::Approx(55.2e9).epsilon(1e-9));
    CHECK(tree_algbw(3) == doctest::Approx(44.16e9).epsilon(1e-9));
  }
}
