// SPDX-License-Identifier: Apache-2.0
// The NICs the tree drives across servers (docs/model.md#tree-nics): one per channel of its
// graph (NCCL search.cc ncclTopoSearchRecNet; init.cc gives the tree graph the ring graph's
// channels), at most the server's NICs. Expected values derived by hand on two and four GB200
// NVL72 racks (one NCCL node of 72 GPUs and 72 NICs each).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "collectives/analytic.hpp"
#include "collectives/comm_graph.hpp"
#include "linksim/collectives.hpp"
#include "linksim/explain.hpp"
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

Topology racks(int n, const std::string& nic) {
  return linksim::testing::library_topology("gb200-nvl72.yaml",
                                            {{"racks", std::to_string(n)}, {"nic", nic}});
}

// Every GPU, GPUDirect RDMA over NVLink-C2C (NCCL_NET_GDR_LEVEL=SYS, as NCCL_NET_GDR_C2C=1, so
// each NIC runs at 0.96 of its line rate), NVLS off, NCCL 2.26 unless told.
CommOptions options(NcclVersion v = NcclVersion{2, 26}) {
  CommOptions o;
  o.nccl_version = v;
  o.net_gdr_level = linksim::PathClass::kSys;
  o.nvls_enable = false;
  return o;
}

// The bandwidth step of explain for tree Simple AllReduce of 16 GiB.
linksim::ExplainStep tree_bandwidth(const Topology& t, NcclVersion v = NcclVersion{2, 26}) {
  const linksim::Communicator c(t, linksim::select_gpus(t, linksim::GpuSelection{}), options(v));
  linksim::CollectiveQuery q;
  q.op = CollectiveOp::kAllReduce;
  q.size_bytes = 16 * kGiB;
  q.algorithm = Algorithm::kTree;
  q.protocol = Protocol::kSimple;
  const linksim::CollectiveExplanation e = linksim::explain_collective(c, q);
  const auto bw = std::find_if(e.steps.begin(), e.steps.end(),
                               [](const auto& x) { return x.title == "bandwidth term"; });
  REQUIRE(bw != e.steps.end());
  return *bw;
}

const linksim::ExplainTerm& term(const linksim::ExplainStep& s, const std::string& symbol) {
  const auto it = std::find_if(s.terms.begin(), s.terms.end(),
                               [&](const linksim::ExplainTerm& x) { return x.symbol == symbol; });
  REQUIRE(it != s.terms.end());
  return *it;
}

}  // namespace

TEST_SUITE("tree_nics") {
  TEST_CASE("tree NICs: two NDR racks, the tree drives 16 of 72 NICs and the chain binds") {
    // NCCL 2.28: the ring graph is 16 channels at 45.1 GB/s (721.8 GB/s of NVLink per GPU;
    // sm100SpeedArrayInter from 96, v2.27.7-1 on), each on one NIC; the tree graph has the same
    // 16. 16 NDR NICs x 50 x 0.96 = 768 GB/s against the rack's ring, 18 NVLink 5 lanes x
    // 40.1 = 721.8, whose chain sends S up and S down through each GPU's links (360.9 GB/s of
    // S); on two racks the NICs move S each way: the chain binds, B = 360.9 x 0.92 = 332.028.
    const Topology t = racks(2, "ib_ndr");
    const NcclVersion v228{2, 28};
    const detail::CommGraph g(t, linksim::select_gpus(t, linksim::GpuSelection{}), options(v228));
    CHECK(g.node_nic_count() == 72);
    CHECK(g.nccl_ring_graph().channels == 16);
    const linksim::ExplainStep bw = tree_bandwidth(t, v228);
    CHECK(term(bw, "B_inter").value == doctest::Approx(768e9).epsilon(1e-9));
    CHECK(term(bw, "B_inter").source.find("the 16 NICs the tree drives") != std::string::npos);
    CHECK(term(bw, "B_inter").source.find("(of the server's 72)") != std::string::npos);
    CHECK(bw.result.value == doctest::Approx(332.028e9).epsilon(1e-6));
  }

  TEST_CASE("tree NICs: NCCL 2.26's SM100 speeds start at 48: 15 channels, 15 NICs bind") {
    // v2.26.2-1's sm100SpeedArrayInter is the SM90 list (48, 45, 42, ...): 15 x 48 = 720 GB/s
    // is the most any speed carries within 721.8 (docs/model.md#tuner-releases). The tree
    // drives 15 NICs: 15 x 48 = 720 GB/s, which on four racks move 2 S each way (360 GB/s of
    // S), under the chain's 721.8 / 2 = 360.9: B = 360 x 0.92 = 331.2 GB/s.
    const Topology t = racks(4, "ib_ndr");
    const detail::CommGraph g(t, linksim::select_gpus(t, linksim::GpuSelection{}), options());
    CHECK(g.nccl_ring_graph().channels == 15);
    CHECK(g.nccl_ring_graph().speed_GBps == 48);
    const linksim::ExplainStep bw = tree_bandwidth(t);
    CHECK(term(bw, "B_inter").value == doctest::Approx(720e9).epsilon(1e-9));
    CHECK(term(bw, "B_inter").source.find("the 15 NICs the tree drives") != std::string::npos);
    CHECK(bw.result.value == doctest::Approx(331.2e9).epsilon(1e-6));
  }

  TEST_CASE("tree NICs: four racks on 100 Gb/s NICs, the tree's 32 channels leave 40 idle") {
    // A 100 Gb/s NIC is 12.5 GB/s (12 realized): the ring graph runs 32 channels (MAXCHANNELS
    // / 2) at 12 GB/s, the first speed within one NIC, one NIC each. The tree drives 32 of the
    // 72: 32 x 12 = 384 GB/s, 2 S each way on four racks (192 GB/s of S), under the chain's
    // 721.8 / 2 = 360.9 (all 72, 864 GB/s, would not bind): B = 192 x 0.92 = 176.64 GB/s.
    const Topology t = racks(4, "roce_100");
    const detail::CommGraph g(t, linksim::select_gpus(t, linksim::GpuSelection{}), options());
    CHECK(g.nccl_ring_graph().channels == 32);
    CHECK(g.node_network_Bps() == doctest::Approx(864e9).epsilon(1e-9));
    const linksim::ExplainStep bw = tree_bandwidth(t);
    CHECK(term(bw, "B_inter").value == doctest::Approx(384e9).epsilon(1e-9));
    CHECK(bw.result.value == doctest::Approx(176.64e9).epsilon(1e-9));
    const auto m = detail::cost_model(g, CollectiveOp::kAllReduce, Algorithm::kTree,
                                      Protocol::kSimple, 16 * kGiB);
    CHECK(m.bw_Bps == doctest::Approx(176.64e9).epsilon(1e-9));
    CHECK(m.bottleneck.kind == linksim::BottleneckKind::kServerNics);
    CHECK(m.bottleneck.rate_Bps == doctest::Approx(384e9).epsilon(1e-9));
  }

  TEST_CASE("tree NICs: NVIDIA/nccl#1801, GB200 trays in three racks, within 10 %") {
    // https://github.com/NVIDIA/nccl/issues/1801 (NCCL 2.27.3, NCCL_NVLS_ENABLE=0, NVL4 and
    // NVL8 partitions in three racks joined by InfiniBand alone, NCCL_ALGO=Tree, 16 GiB):
    // 127.87 GB/s algbw on 3 x 4 GPUs, 253.40 on 3 x 8. A server's NICs move 1.5 S each way on
    // three servers (the closed form's load; the flow lowering sends each edge of NCCL's double
    // binary tree): 4 and 8 NICs x 48 GB/s / 1.5 = 128 and 256, x 0.92 (tree) 117.8 and 235.5,
    // within 10 % (docs/model.md#tree-nics).
    const Topology t = linksim::testing::library_topology("gb200-nvl72.yaml", {{"racks", "3"}});
    CommOptions o;
    o.nccl_version = NcclVersion{2, 27};
    o.nvls_enable = false;
    for (const auto& run : {std::pair{4, 127.87e9}, std::pair{8, 253.40e9}}) {
      // Named copies, not structured bindings: CAPTURE's lambda cannot name those under clang.
      const int per_node = run.first;
      const double measured_Bps = run.second;
      linksim::GpuSelection sel;
      sel.per_node = per_node;
      const linksim::Communicator c(t, linksim::select_gpus(t, sel), o);
      linksim::CollectiveQuery q;
      q.op = CollectiveOp::kAllReduce;
      q.size_bytes = 16 * kGiB;
      q.algorithm = Algorithm::kTree;
      q.protocol = Protocol::kSimple;
      CAPTURE(per_node);
      for (const linksim::SimMode mode : {linksim::SimMode::kAnalytic, linksim::SimMode::kFlow}) {
        q.mode = mode;
        const linksim::CollectiveResult r = c.run(q);
        CHECK(r.algbw_Bps == doctest::Approx(measured_Bps).epsilon(0.10));
      }
    }
  }
}
