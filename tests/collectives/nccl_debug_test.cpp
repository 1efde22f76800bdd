// SPDX-License-Identifier: Apache-2.0
// Communicator::nccl_debug: the channels, transports, trees, tuner table and choices it reports
// are the engine's own (the same rings, routes and tuner as run()), checked against machines
// whose transports are known and against closed forms derived by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

#include "linksim/collectives.hpp"
#include "linksim/nccl_debug.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/test_topologies.hpp"

using namespace linksim;

namespace {


NcclCall call(CollectiveOp op, double bytes) {
  NcclCall c;
  c.op = op;
  c.size_bytes = bytes;
  c.count = bytes / 4;
  return c;
}

// Every channel visits every rank exactly once, starting at rank 0, and its hops follow it.
void check_rings(const NcclDebugInfo& info) {
  for (const NcclRingChannel& ch : info.channels) {
    CAPTURE(ch.id);
    REQUIRE(static_cast<int>(ch.ranks.size()) == info.ranks);
    CHECK(ch.ranks.front() == 0);
    CHECK(std::set<int>(ch.ranks.begin(), ch.ranks.end()).size() == ch.ranks.size());
    REQUIRE(ch.hops.size() == (info.ranks > 1 ? ch.ranks.size() : 0));
    for (size_t i = 0; i < ch.hops.size(); ++i) {
      CHECK(ch.hops[i].from_rank == ch.ranks[i]);
      CHECK(ch.hops[i].to_rank == ch.ranks[(i + 1) % ch.ranks.size()]);
    }
  }
}

const NcclTuningCell& cell(const NcclDebugInfo& info, CollectiveOp op, Algorithm a, Protocol p) {
  const auto row = std::find_if(info.tuning.begin(), info.tuning.end(),
                                [&](const NcclTuningRow& r) { return r.op == op; });
  REQUIRE(row != info.tuning.end());
  const auto c = std::find_if(row->cells.begin(), row->cells.end(), [&](const NcclTuningCell& x) {
    return x.algorithm == a && x.protocol == p;
  });
  REQUIRE(c != row->cells.end());
  return *c;
}

}  // namespace

TEST_SUITE("nccl_debug") {
  TEST_CASE("nccl_debug: on DGX H100 every hop is P2P over NVLink") {
    Topology t = testing::library_topology("dgx-h100.yaml");
    Communicator comm(t, t.gpus());
    const NcclDebugInfo info = comm.nccl_debug({call(CollectiveOp::kAllReduce, 1048576)});
    CHECK(info.ranks == 8);
    CHECK(info.nodes == 1);
    // The channel count the engine reports for the chosen ring (CollectiveResult::channels).
    CollectiveQuery q;
    q.size_bytes = 1048576;
    q.algorithm = Algorithm::kRing;
    CHECK(static_cast<int>(info.channels.size()) == comm.run(q).channels);
    check_rings(info);
    for (const NcclRingChannel& ch : info.channels) {
      for (const NcclHop& hop : ch.hops) {
        CHECK(hop.transport == Transport::kP2p);
        CHECK(hop.path == PathClass::kNvlink);
        CHECK(hop.nvlinks == 18);
        CHECK_FALSE(hop.p2p_read);  // NCCL reads over NVLink on SM80 only
      }
    }
    CHECK(info.ring_graph.type_intra == "NVL");
    CHECK(info.ring_graph.type_inter == "PIX");
  }

  TEST_CASE("nccl_debug: the ring graph's type names PXN only where the relay is nearer its NIC") {
    // Two DGX H100: a rail-crossing hop relays through the NVLink peer on the NIC's rail,
    // which is PIX to it while the sender is SYS to that NIC: NCCL's PATH_PXN (paths.cc).
    Topology h100 = testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    CHECK(Communicator(h100, h100.gpus()).nccl_debug({}).ring_graph.type_inter == "PXN");
    // Two GB200 racks under NCCL 2.26: every GPU reaches every NIC through a Grace CPU (PHB),
    // so no relay is nearer and the graph's class is the GPU's own: PHB.
    Topology gb200 = testing::library_topology("gb200-nvl72.yaml", {{"racks", "2"}});
    CommOptions options;
    options.nccl_version = NcclVersion{2, 26};
    options.nvls_enable = false;
    const NcclDebugInfo info = Communicator(gb200, gb200.gpus(), options).nccl_debug({});
    CHECK(info.ring_graph.type_intra == "NVL");
    CHECK(info.ring_graph.type_inter == "PHB");
  }

  TEST_CASE("nccl_debug: A100 NVLink hops use NCCL's P2P read mode") {
    Topology t = testing::library_topology("dgx-a100.yaml");
    Communicator comm(t, t.gpus());
    const NcclDebugInfo info = comm.nccl_debug({});
    for (const NcclHop& hop : info.channels.front().hops) CHECK(hop.p2p_read);
  }

  TEST_CASE("nccl_debug: on pcie-8gpu the socket crossing goes through host memory") {
    // Two GPUs per PCIe switch (PIX: P2P at NCCL's default level PXB); anything further is SHM.
    Topology t = testing::library_topology("pcie-8gpu.yaml");
    Communicator comm(t, t.gpus());
    const NcclDebugInfo info = comm.nccl_debug({});
    check_rings(info);
    int sys_hops = 0, pix_hops = 0;
    for (const NcclRingChannel& ch : info.channels) {
      for (const NcclHop& hop : ch.hops) {
        CAPTURE(hop.from_rank);
        CAPTURE(hop.to_rank);
        if (hop.path == PathClass::kSys) {
          ++sys_hops;
          CHECK(hop.transport == Transport::kShm);
        }
        if (hop.path == PathClass::kPix) {
          ++pix_hops;
          CHECK(hop.transport == Transport::kP2p);
        }
        CHECK(hop.transport != Transport::kNet);
      }
    }
    CHECK(sys_hops > 0);
    CHECK(pix_hops > 0);
    CHECK(info.ring_graph.type_intra == "SYS");
  }

  TEST_CASE("nccl_debug: NCCL_P2P_DISABLE sends every PCIe pair through host memory") {
    Topology t = testing::library_topology("pcie-8gpu.yaml");
    CommOptions options;
    options.p2p_disable = true;
    Communicator comm(t, t.gpus(), options);
    const NcclDebugInfo info = comm.nccl_debug({});
    check_rings(info);
    for (const NcclRingChannel& ch : info.channels) {
      for (const NcclHop& hop : ch.hops) CHECK(hop.transport == Transport::kShm);
    }
  }

  TEST_CASE("nccl_debug: on dual-4090 (no P2P) every hop is SHM") {
    Topology t = testing::library_topology("dual-4090.yaml");
    Communicator comm(t, t.gpus());
    const NcclDebugInfo info = comm.nccl_debug({});
    check_rings(info);
    REQUIRE_FALSE(info.channels.empty());
    for (const NcclRingChannel& ch : info.channels) {
      for (const NcclHop& hop : ch.hops) CHECK(hop.transport == Transport::kShm);
    }
    // Both GPUs on one host bridge of one CPU: PHB; no NIC, so no GPUDirect RDMA.
    CHECK(info.ring_graph.type_intra == "PHB");
    CHECK(info.gdr == std::vector<bool>{false, false});
  }

  TEST_CASE("nccl_debug: between DGX H100 servers the hops are NET/IB with GPUDirect RDMA") {
    Topology t = testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    Communicator comm(t, t.gpus());
    const NcclDebugInfo info = comm.nccl_debug({});
    CHECK(info.ranks == 16);
    CHECK(info.nodes == 2);
    check_rings(info);
    bool pxn = false;
    for (const NcclRingChannel& ch : info.channels) {
      int net_hops = 0;
      for (const NcclHop& hop : ch.hops) {
        CAPTURE(hop.from_rank);
        CAPTURE(hop.to_rank);
        const bool crosses = info.servers[hop.from_rank] != info.servers[hop.to_rank];
        CHECK((hop.transport == Transport::kNet) == crosses);
        if (!crosses) {
          CHECK(hop.path == PathClass::kNvlink);
          continue;
        }
        ++net_hops;
        CHECK(hop.send_gdr);
        CHECK(hop.recv_gdr);
        // Rails: the receiving NIC is the receiver's own (DGX: GPU i -> NIC i).
        CHECK(hop.recv_net_dev == hop.to_dev);
        if (hop.proxy_rank) {
          // PXN: the proxy is on the sender's server, on the receiver's rail, and its NIC sends.
          pxn = true;
          const int proxy = *hop.proxy_rank;
          REQUIRE(proxy >= 0);
          CHECK(info.servers[proxy] == info.servers[hop.from_rank]);
          CHECK(info.devs[proxy] == hop.to_dev);
          CHECK(hop.send_net_dev == hop.to_dev);
        } else {
          CHECK(hop.send_net_dev == hop.from_dev);
        }
      }
      CHECK(net_hops == 2);  // a ring leaves and enters each of the two servers once
    }
    CHECK(pxn == info.ring_pxn);
    CHECK(info.gdr == std::vector<bool>(16, true));
    CHECK(info.ring_graph.type_intra == "NVL");
  }

  TEST_CASE("nccl_debug: the double binary tree joins the servers' chains") {
    Topology t = testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    Communicator comm(t, t.gpus());
    const NcclDebugInfo info = comm.nccl_debug({});
    REQUIRE(info.trees.size() == 2);
    // Two servers: btree_parent(1, 2) = 0; the mirror makes server 1 the root of tree 1.
    const int head0 = info.channels.front().ranks.front();  // rank 0 heads server 0's chain
    CHECK(head0 == 0);
    int head1 = -1;
    for (const NcclTreeNode& n : info.trees[0].nodes) {
      if (info.servers[n.rank] == 1 && n.up >= 0 && info.servers[n.up] == 0) head1 = n.rank;
    }
    REQUIRE(head1 >= 0);
    CHECK(info.trees[0].nodes[head1].up == head0);
    CHECK(info.trees[0].nodes[head0].up == -1);
    CHECK(info.trees[1].nodes[head0].up == head1);
    CHECK(info.trees[1].nodes[head1].up == -1);
    // Each tree has a single root.
    for (const NcclTree& tree : info.trees) {
      int roots = 0;
      for (const NcclTreeNode& n : tree.nodes) roots += n.up == -1 ? 1 : 0;
      CHECK(roots == 1);
    }
  }

  TEST_CASE("nccl_debug: the tuner's table is NCCL's closed form, derived by hand") {
    // Ring of 4, one NVLink (20.6 GB/s in NCCL's constants) to each neighbour: NCCL's search
    // starts at the best path's 20.6 -> 20 GB/s and finds 2 channels (one per direction),
    // busBw 40. Ring Simple 8.4 + 6 x 3.4 = 28.8 us, algbw 40 x 4/6; LL 6.6 + 6 x 0.6 = 10.2 us
    // at 0.5 x 40 x 4/6; LL128 14.0 + 6 x 1.9 = 25.4 us at 0.92 x 40 x 4/6. AllGather: n - 1 =
    // 3 steps: Simple 8.4 + 3 x 3.4 = 18.6 us at 40 x 4/3.
    Topology t = testing::ring4();
    Communicator comm(t, t.gpus());
    const NcclDebugInfo info = comm.nccl_debug({});
    const auto& simple = cell(info, CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kSimple);
    CHECK(simple.enabled);
    CHECK(simple.latency_us == doctest::Approx(28.8));
    CHECK(simple.algbw_GBps == doctest::Approx(40.0 / 1.5));
    const auto& ll = cell(info, CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kLL);
    CHECK(ll.latency_us == doctest::Approx(10.2));
    CHECK(ll.algbw_GBps == doctest::Approx(20.0 / 1.5));
    const auto& ll128 = cell(info, CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kLL128);
    CHECK(ll128.latency_us == doctest::Approx(25.4));
    CHECK(ll128.algbw_GBps == doctest::Approx(0.92 * 40.0 / 1.5));
    const auto& ag = cell(info, CollectiveOp::kAllGather, Algorithm::kRing, Protocol::kSimple);
    CHECK(ag.latency_us == doctest::Approx(18.6));
    CHECK(ag.algbw_GBps == doctest::Approx(40.0 / 0.75));
    // One server, no NVSwitch: no tree, no NVLS.
    CHECK_FALSE(cell(info, CollectiveOp::kAllReduce, Algorithm::kTree, Protocol::kSimple).enabled);
    CHECK_FALSE(cell(info, CollectiveOp::kAllReduce, Algorithm::kNvls, Protocol::kSimple).enabled);
    REQUIRE(info.channels.size() == 2);
    CHECK(info.channels[0].ranks == std::vector<int>{0, 1, 2, 3});
    CHECK(info.channels[1].ranks == std::vector<int>{0, 3, 2, 1});
    CHECK(info.ring_graph.bw_intra_GBps == doctest::Approx(20.6));
  }

  TEST_CASE("nccl_debug: the choice per size is run()'s, and the fastest estimate") {
    Topology t = testing::library_topology("dgx-h100.yaml");
    Communicator comm(t, t.gpus());
    std::vector<NcclCall> calls;
    for (double s = 8; s < 8.0 * 1073741824.0; s *= 16) {
      calls.push_back(call(CollectiveOp::kAllReduce, s));
    }
    calls.push_back(call(CollectiveOp::kAllReduce, 8.0 * 1073741824.0));
    const NcclDebugInfo info = comm.nccl_debug(calls);
    REQUIRE(info.calls.size() == calls.size());
    std::set<Algorithm> seen;
    for (const NcclChoice& c : info.calls) {
      CAPTURE(c.call.size_bytes);
      CollectiveQuery q;
      q.size_bytes = c.call.size_bytes;
      const CollectiveResult r = comm.run(q);
      CHECK(c.algorithm == r.algorithm);
      CHECK(c.protocol == r.protocol);
      CHECK(c.time_s == doctest::Approx(r.time_s).epsilon(1e-12));
      CHECK(c.channels == r.channels);
      // The choice is the least of NCCL's estimates (not of the realized times).
      double best = 1e300, chosen = -1;
      for (const NcclEstimate& e : c.estimates) {
        if (e.eligible) best = std::min(best, e.time_s);
        else CHECK_FALSE(e.why_not.empty());
        if (e.algorithm == c.algorithm && e.protocol == c.protocol) chosen = e.time_s;
      }
      CHECK(chosen == best);
      // The table's size-independent cell reproduces the estimate: latency + S / algbw (one
      // server: no tree correction, no ring plateau).
      const auto& tc = cell(info, CollectiveOp::kAllReduce, c.algorithm, c.protocol);
      CHECK(tc.latency_us + c.call.size_bytes / (1e3 * tc.algbw_GBps) ==
            doctest::Approx(chosen * 1e6).epsilon(1e-9));
      seen.insert(c.algorithm);
    }
    CHECK(seen.count(Algorithm::kNvls) == 1);  // the largest sizes go to NVLink SHARP
  }

  TEST_CASE("nccl_debug: --algo and --proto restrict the estimates as they restrict run()") {
    Topology t = testing::library_topology("dgx-h100.yaml");
    Communicator comm(t, t.gpus());
    NcclCall c = call(CollectiveOp::kAllReduce, 1048576);
    c.algorithm = Algorithm::kRing;
    c.protocol = Protocol::kSimple;
    const NcclDebugInfo info = comm.nccl_debug({c});
    REQUIRE(info.calls.front().estimates.size() == 1);
    CHECK(info.calls.front().algorithm == Algorithm::kRing);
    CHECK(info.calls.front().protocol == Protocol::kSimple);
    c.algorithm = Algorithm::kTree;
    CHECK_THROWS_WITH_AS(comm.nccl_debug({c}),
                         "linksim: error: algorithm 'tree' is not available for allreduce on "
                         "these 8 GPUs; "
                         "expected one of: auto, ring, nvls",
                         ConfigError);
  }

  TEST_CASE("nccl_debug: a sweep's calls carry nccl-tests' count, type, op and root") {
    SweepRequest request;
    request.op = CollectiveOp::kBroadcast;
    request.type = *parse_data_type("bf16");
    request.redop = ReductionOp::kMax;
    request.root = 3;
    CollectiveSweep sweep;
    sweep.op = CollectiveOp::kBroadcast;
    SweepRow row;
    row.size_bytes = 1024;
    row.count = 512;
    sweep.rows.push_back(row);
    const std::vector<NcclCall> calls = nccl_calls(request, sweep);
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].size_bytes == 1024);
    CHECK(calls[0].count == 512);
    CHECK(calls[0].datatype == 9);  // ncclBfloat16
    CHECK(calls[0].redop == 2);     // ncclMax
    CHECK(calls[0].root == 3);
  }
}
