// SPDX-License-Identifier: Apache-2.0
// The tree's pipeline fill (docs/model.md#tree-fill): a Simple chunk of NCCL_BUFFSIZE /
// NCCL_STEPS = 512 KiB per channel crosses 2 x ((ppn - 1) + log2(nodes)) - 1 store-and-forward
// stages before the steady state, each at the per-channel rate B / channels; a call smaller
// than one chunk per channel pays its own bytes per stage; LL and LL128 forward line by line.
// Expected values derived by hand from NCCL's enqueue.cc, init.cc and device.h.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "collectives/analytic.hpp"
#include "collectives/comm_graph.hpp"
#include "collectives/model_params.hpp"
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

constexpr double kChunkBytes = 524288.0;  // 4 MiB / 8 steps
constexpr double kGiB = 1073741824.0;

detail::CostModel tree(const Topology& t, Protocol p, double bytes, CommOptions o = {}) {
  const detail::CommGraph g(t, linksim::select_gpus(t, linksim::GpuSelection{}), o);
  return detail::cost_model(g, CollectiveOp::kAllReduce, Algorithm::kTree, p, bytes);
}

}  // namespace

TEST_SUITE("tree_fill") {
  TEST_CASE("tree fill: NCCL's Simple chunk is one step of the 4 MiB buffer") {
    CHECK(detail::kTreeSimpleChunkBytes == kChunkBytes);
  }

  TEST_CASE("tree fill: 2 x 8 A100 over HDR, 15 stages of one 512 KiB chunk per channel") {
    // B: the server's chain sends S up and S down through each GPU's NVSwitch links, half the
    // ring's 234.72 GB/s: 117.36; the 8 HDR NICs (25 GB/s x 0.96 = 24 each, 192 per server)
    // move S each way on two servers and do not bind; x 0.92 (tree) = 107.9712 GB/s. Stages:
    // 2 x ((8 - 1) + log2 2) - 1 = 15.
    const Topology t = linksim::testing::library_topology("dgx-a100-ib.yaml", {{"nodes", "2"}});
    const auto big = tree(t, Protocol::kSimple, kGiB);
    REQUIRE(big.eligible);
    CHECK(big.bw_Bps == doctest::Approx(107.9712e9).epsilon(1e-5));
    const int ch = big.channels;
    REQUIRE(ch > 0);
    // One chunk per channel per stage at B / ch each: 15 x ch x 512 KiB / B.
    CHECK(big.fill_s == doctest::Approx(15.0 * ch * kChunkBytes / big.bw_Bps).epsilon(1e-9));
    // A call below ch chunks gives each channel less than a chunk: 15 x S / B at its own B
    // (NCCL's medium-size correction applies to B there).
    const double small = 0.5 * ch * kChunkBytes;
    const auto s = tree(t, Protocol::kSimple, small);
    CHECK(s.fill_s == doctest::Approx(15.0 * small / s.bw_Bps).epsilon(1e-9));
    // The fill is continuous where the call reaches one chunk per channel.
    const double loop = ch * kChunkBytes;
    const auto below = tree(t, Protocol::kSimple, loop * (1 - 1e-9));
    const auto at = tree(t, Protocol::kSimple, loop);
    CHECK(below.fill_s * at.bw_Bps / below.bw_Bps == doctest::Approx(at.fill_s).epsilon(1e-6));
  }

  TEST_CASE("tree fill: the stages grow with the servers' tree, 4 servers add two") {
    // 2 x ((8 - 1) + log2 4) - 1 = 17 stages.
    const Topology t = linksim::testing::library_topology("dgx-a100-ib.yaml", {{"nodes", "4"}});
    const auto m = tree(t, Protocol::kSimple, kGiB);
    CHECK(m.fill_s == doctest::Approx(17.0 * m.channels * kChunkBytes / m.bw_Bps).epsilon(1e-9));
  }

  TEST_CASE("tree fill: a platform's NCCL_BUFFSIZE sets the chunk (aws-ofi-nccl's 8 MiB on p4d)") {
    // aws-p4d-efa's nccl_env: NCCL_BUFFSIZE 8 MiB, one step of 8 is a 1 MiB chunk. Stages
    // 2 x ((8 - 1) + log2 2) - 1 = 15, as on any 2 x 8 GPUs; the same machine without the
    // variable fills with 512 KiB chunks.
    const Topology p4d = linksim::testing::library_topology("aws-p4d-efa.yaml");
    REQUIRE(p4d.nccl_env().buffsize_bytes == 8388608);
    const auto m = tree(p4d, Protocol::kSimple, kGiB);
    REQUIRE(m.eligible);
    CHECK(m.fill_s == doctest::Approx(15.0 * m.channels * 1048576.0 / m.bw_Bps).epsilon(1e-9));
    Topology plain = p4d;
    plain.set_nccl_env({});
    const auto d = tree(plain, Protocol::kSimple, kGiB);
    CHECK(d.fill_s == doctest::Approx(15.0 * d.channels * kChunkBytes / d.bw_Bps).epsilon(1e-9));
    CHECK(m.fill_s == doctest::Approx(2 * d.fill_s).epsilon(1e-9));
  }

  TEST_CASE("tree fill: LL and LL128 carry a flag per line and fill no chunk") {
    const Topology t = linksim::testing::library_topology("dgx-a100-ib.yaml", {{"nodes", "2"}});
    CHECK(tree(t, Protocol::kLL, kGiB).fill_s == 0.0);
    CHECK(tree(t, Protocol::kLL128, kGiB).fill_s == 0.0);
  }

  TEST_CASE("tree fill: explain names its stages, chunk and per-channel rate") {
    const Topology t = linksim::testing::library_topology("dgx-a100-ib.yaml", {{"nodes", "2"}});
    const linksim::Communicator c(t, linksim::select_gpus(t, linksim::GpuSelection{}));
    linksim::CollectiveQuery q;
    q.op = CollectiveOp::kAllReduce;
    q.size_bytes = kGiB;
    q.algorithm = Algorithm::kTree;
    q.protocol = Protocol::kSimple;
    const linksim::CollectiveExplanation e = linksim::explain_collective(c, q);
    const auto bw = std::find_if(e.steps.begin(), e.steps.end(),
                                 [](const auto& s) { return s.title == "bandwidth term"; });
    REQUIRE(bw != e.steps.end());
    const auto note = std::find_if(bw->notes.begin(), bw->notes.end(), [](const std::string& n) {
      return n.rfind("tree fill: ", 0) == 0;
    });
    REQUIRE(note != bw->notes.end());
    // 15 stages, 10 channels x 512 KiB, 107.97 GB/s / 10 = 10.80 GB/s per channel.
    CHECK(note->find("= 15.00 stages x min(10 channels x 512 KiB chunks, S) / B") !=
          std::string::npos);
    CHECK(note->find("B / 10 = 10.80 GB/s per channel") != std::string::npos);
  }

  TEST_CASE("tree fill: 20 GB200 NVL72 racks, a 72-GPU chain in each, 7.6 ms") {
    // A rack is one NCCL node of 72 ranks. B: the tree drives the 15 NICs of NCCL 2.26's ring
    // graph (15 x 48 = 720 GB/s; host-staged under 2.26, through Grace's memory, which does
    // not bind: docs/model.md#gdr-off), 2 S each way on 20 racks: 360 GB/s of S, under the
    // chain's 721.8 / 2 = 360.9 (18 NVLink 5 lanes x 40.1 GB/s): x 0.92 = 331.2 GB/s. Stages:
    // 2 x (71 + log2 20) - 1 = 150.29; 32 channels: 150.29 x 32 x 512 KiB / 331.2 GB/s =
    // 7.61 ms.
    const Topology t = linksim::testing::library_topology("gb200-nvl72.yaml", {{"racks", "20"}});
    CommOptions o;
    o.nccl_version = NcclVersion{2, 26};
    const auto m = tree(t, Protocol::kSimple, 16 * kGiB, o);
    REQUIRE(m.eligible);
    CHECK(m.channels == 32);
    CHECK(m.bw_Bps == doctest::Approx(331.2e9).epsilon(1e-6));
    const double stages = 2.0 * (71.0 + std::log2(20.0)) - 1.0;
    CHECK(m.fill_s == doctest::Approx(stages * 32 * kChunkBytes / 331.2e9).epsilon(1e-6));
    CHECK(m.fill_s == doctest::Approx(7.61e-3).epsilon(2e-3));
  }
}
