// SPDX-License-Identifier: Apache-2.0
// NCCL's tuner as each release has it (src/collectives/nccl_tuner_tables.hpp,
// docs/model.md#tuner-releases): the rows read from tuning.cc and search.cc at the tags named,
// and what they change in the choice and in NCCL's estimate. Expected values are derived by
// hand from those files at those tags.
#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "collectives/comm_graph.hpp"
#include "collectives/model_params.hpp"
#include "collectives/nccl_tuner_model.hpp"
#include "collectives/nccl_tuner_tables.hpp"
#include "collectives/tuner.hpp"
#include "linksim/collectives.hpp"
#include "support/collective_query.hpp"
#include "support/test_topologies.hpp"

namespace {

using linksim::Algorithm;
using linksim::CollectiveOp;
using linksim::CollectiveQuery;
using linksim::CommOptions;
using linksim::NcclVersion;
using linksim::Protocol;
using linksim::Topology;
namespace detail = linksim::detail;

constexpr double kGiB = 1073741824.0;

using linksim::testing::collective_query;

// Calibration 86's communicator: every GPU of 20 GB200 NVL72 racks, NVLS off, GDR over C2C.
CommOptions calibration86(NcclVersion v) {
  CommOptions o;
  o.nccl_version = v;
  o.nvls_enable = false;
  o.net_gdr_level = linksim::PathClass::kSys;
  return o;
}

}  // namespace

TEST_SUITE("tuner releases") {
  TEST_CASE("tuner tables: each release's row, as read at its tags") {
    const detail::TunerTables& v226 = detail::tuner_tables(NcclVersion{2, 26});
    const detail::TunerTables& v228 = detail::tuner_tables(NcclVersion{2, 28});
    const detail::TunerTables& v229 = detail::tuner_tables(NcclVersion{2, 29});
    const detail::TunerTables& v230 = detail::tuner_tables(NcclVersion{2, 32});
    CHECK(std::string(v226.tags) == "v2.25.1-1..v2.26.6-1");
    CHECK(std::string(v230.tags) == "v2.30.3-1..v2.30.7-1");
    // perChMaxTreeBws, Blackwell, 4+ nodes: 2 x 36.0 up to 2.27, 24.0 from v2.28.3-1.
    CHECK(v226.tree_per_ch_GBps[3][2] == doctest::Approx(72.0));
    CHECK(v228.tree_per_ch_GBps[3][2] == doctest::Approx(24.0));
    // perChMaxRingLL128Bws, Blackwell, two nodes: 73.4, 34.6 (v2.28.7-1), 40.0 (v2.29.7-1).
    CHECK(v226.ring_ll128_per_ch_GBps[3][1] == doctest::Approx(73.4));
    CHECK(v228.ring_ll128_per_ch_GBps[3][1] == doctest::Approx(34.6));
    CHECK(v229.ring_ll128_per_ch_GBps[3][1] == doctest::Approx(40.0));
    // perChMaxNVLSTreeBws, Blackwell, 4+ nodes: 43.8 (v2.28.9-1, 2.29), 80.0 (2.30).
    CHECK(v229.nvls_tree_per_ch_GBps[3][2] == doctest::Approx(43.8));
    CHECK(v230.nvls_tree_per_ch_GBps[3][2] == doctest::Approx(80.0));
    // Hopper llMaxBws on one server: 87.7 up to 2.20, 141.0 from v2.21.5-1.
    const detail::TunerTables& v220 = detail::tuner_tables(NcclVersion{2, 20});
    const detail::TunerTables& v221 = detail::tuner_tables(NcclVersion{2, 21});
    CHECK(v220.ll_max_GBps[2][0] == doctest::Approx(87.7));
    CHECK(v221.ll_max_GBps[2][0] == doctest::Approx(141.0));
    // topo.h SM100_NVLINK_BW: 40.0 through 2.26, 40.1 from v2.27.7-1.
    CHECK(v226.sm100_nvlink_GBps == 40.0);
    CHECK(detail::tuner_tables(NcclVersion{2, 27}).sm100_nvlink_GBps == doctest::Approx(40.1));
    // Releases older than the oldest row take it.
    CHECK(std::string(detail::tuner_tables(NcclVersion{2, 4}).tags) == "v2.10.3-1..v2.14.3-1");
  }

  TEST_CASE("tuner latencies: the closed form's constants are the 2.28 row's") {
    // NcclLatencies (model_params.hpp) is what the closed form charges; NCCL's estimate of
    // another release adds the difference of the two rows (nccl_tuner_model.cpp).
    const detail::TunerLatencies& row = detail::tuner_latencies(detail::kClosedFormLatencies);
    const detail::NcclLatencies closed;
    CHECK(row.base_ring == closed.base_ring);
    CHECK(row.base_tree == closed.base_tree);
    CHECK(row.nvlink_ring == closed.hw_nvlink_ring);
    CHECK(row.nvlink_tree == closed.hw_nvlink_tree);
    CHECK(row.pci_ring == closed.hw_pcie_ring);
    CHECK(row.pci_tree == closed.hw_pcie_tree);
    CHECK(row.net_ring == closed.hw_net_ring);
    CHECK(row.net_tree == closed.hw_net_tree);
    CHECK(row.nvls_base_us + row.nvls_nvlink_us == closed.nvls_simple_us);
    CHECK(row.nvls_net_us == closed.nvls_net_simple_us);
    CHECK(row.nvls_tree_net_us == closed.nvls_tree_net_us);
    // Tree Simple: 28 us a hop in 2.19-2.22 (baseLat 0), 4 / 14 from 2.23 (baseLat 8.4).
    CHECK(detail::tuner_latencies(NcclVersion{2, 22}).nvlink_tree[2] == 28);
    CHECK(detail::tuner_latencies(NcclVersion{2, 23}).base_tree[2] == doctest::Approx(8.4));
    // NVLSTree NET: 19 (2.18), 14 (2.19-2.27), 20.9 (v2.28.9-1 on).
    CHECK(detail::tuner_latencies(NcclVersion{2, 18}).nvls_tree_net_us == 19);
    CHECK(detail::tuner_latencies(NcclVersion{2, 26}).nvls_tree_net_us == 14);
    CHECK(detail::tuner_latencies(NcclVersion{2, 29}).nvls_tree_net_us == doctest::Approx(20.9));
  }

  TEST_CASE("tuner tables: the row a GPU takes, by each release's rule") {
    const auto arch = [](int mj, int mn, int sm) {
      return detail::tuner_arch_index(detail::tuner_tables(NcclVersion{mj, mn}), sm);
    };
    CHECK(arch(2, 14, 80) == 1);  // compCap80
    CHECK(arch(2, 14, 90) == 0);  // not SM80: Volta's row
    CHECK(arch(2, 16, 86) == 0);  // neither SM80 nor SM90 exactly
    CHECK(arch(2, 16, 90) == 2);
    CHECK(arch(2, 17, 86) == 1);  // by floor
    CHECK(arch(2, 24, 100) == 2); // Blackwell on Hopper's row before 2.25
    CHECK(arch(2, 25, 100) == 3);
  }

  TEST_CASE("LL128 by default: SM70/SM80, then SM90 (2.15), SM100/SM120 (2.25), any from SM70 (2.27)") {
    CHECK(detail::tuner_ll128_arch_enabled(NcclVersion{2, 14}, 80));
    CHECK_FALSE(detail::tuner_ll128_arch_enabled(NcclVersion{2, 4}, 70));  // no LL128 yet
    CHECK(detail::tuner_ll128_arch_enabled(NcclVersion{2, 5}, 70));
    CHECK_FALSE(detail::tuner_ll128_arch_enabled(NcclVersion{2, 14}, 90));
    CHECK(detail::tuner_ll128_arch_enabled(NcclVersion{2, 15}, 90));
    CHECK_FALSE(detail::tuner_ll128_arch_enabled(NcclVersion{2, 24}, 100));
    CHECK(detail::tuner_ll128_arch_enabled(NcclVersion{2, 25}, 100));
    CHECK_FALSE(detail::tuner_ll128_arch_enabled(NcclVersion{2, 26}, 86));
    CHECK(detail::tuner_ll128_arch_enabled(NcclVersion{2, 27}, 86));
    CHECK_FALSE(detail::tuner_ll128_arch_enabled(NcclVersion{2, 29}, 60));
    // 8 x H100, NVLS off, 16 MiB: 2.29's least estimate is ring LL128's (129 us); 2.14 leaves
    // LL128 out of its table on SM90, so another pair runs.
    const Topology t = linksim::testing::library_topology("dgx-h100.yaml");
    for (const auto& [v, ll128] : {std::pair{NcclVersion{2, 14}, false}, std::pair{NcclVersion{2, 29}, true}}) {
      CommOptions o;
      o.nccl_version = v;
      o.nvls_enable = false;
      const detail::CommGraph g(t, t.gpus(), o);
      const detail::Choice c =
          detail::choose(g, collective_query(CollectiveOp::kAllReduce, 16 * 1048576.0));
      CHECK((c.proto == Protocol::kLL128) == ll128);
    }
  }

  TEST_CASE("ring search on a GB200 rack's budget: 2.26's speeds from 48, 2.29's from 96") {
    // 18 NVLinks x 40.1 = 721.8 GB/s through the rack, 16 NICs x 48 = 768 across racks.
    // 2.26 (sm100SpeedArrayInter = the SM90 list, from 48): 15 x 48 = 720; every slower speed
    // down to 20 carries at most 720 (16 x 45, 17 x 42, 18 x 40, 24 x 30, 30 x 24, 32 x 22);
    // 17.5 / 48 <= 0.49 stops; no duplication on SM100 below 50 GB/s with > 4 channels.
    const detail::SearchedGraph v226 = detail::ring_search(100, 721.8, 768, 32,
        std::numeric_limits<double>::infinity(), NcclVersion{2, 26});
    CHECK(v226.channels == 15);
    CHECK(v226.speed_GBps == 48);
    // 2.29 (96, 80, 48, 45.1, ...): 7 x 96 = 672, 9 x 80 = 720, 16 x 45.1 = 721.6 the most.
    const detail::SearchedGraph v229 = detail::ring_search(100, 721.8, 768, 32,
        std::numeric_limits<double>::infinity(), NcclVersion{2, 29});
    CHECK(v229.channels == 16);
    CHECK(v229.speed_GBps == doctest::Approx(45.1));
    // 2.16's SM90 intra list {66, 33, 24, ...} on 8 x H100 (370.8): 5 x 66 = 330, then 11 x
    // 33 = 363; duplicated (33 >= 25 but on SM90 < 50 with 11 > 4 channels: not) = 11 x 33.
    const detail::SearchedGraph h100 = detail::ring_search(90, 370.8, 0, 32,
        std::numeric_limits<double>::infinity(), NcclVersion{2, 16});
    CHECK(h100.channels == 11);
    CHECK(h100.speed_GBps == 33);
  }

  TEST_CASE("channel duplication by release: any >= 25 GB/s, then SM90 only from 50 (2.16-2.18), then not above 4 channels below 50") {
    // A 90 GB/s SM90 budget: 3 x 30 fills it in every release's list (2.15's generic {44, 30,
    // ...}: 2 x 44 = 88, then 3 x 30 = 90; 2.18's and 2.29's SM90 lists reach 3 x 30 too).
    const double inf = std::numeric_limits<double>::infinity();
    const detail::SearchedGraph v215 = detail::ring_search(90, 90, 0, 32, inf, NcclVersion{2, 15});
    const detail::SearchedGraph v218 = detail::ring_search(90, 90, 0, 32, inf, NcclVersion{2, 18});
    const detail::SearchedGraph v229 = detail::ring_search(90, 90, 0, 32, inf, NcclVersion{2, 29});
    CHECK(v215.channels == 6);  // 30 >= 25: doubled
    CHECK(v215.speed_GBps == 15);
    CHECK(v218.channels == 3);  // SM90 below 50: kept
    CHECK(v218.speed_GBps == 30);
    CHECK(v229.channels == 6);  // 3 channels, not more than 4: doubled
    CHECK(v229.speed_GBps == 15);
  }

  TEST_CASE("NVLS estimate on 8 x H100 by release: the ring graph x 0.75, its own graph x 5/6, then nvlsEff") {
    const Topology t = linksim::testing::library_topology("dgx-h100.yaml");
    const auto nvls_algbw_GBps = [&](NcclVersion v) {
      CommOptions o;
      o.nccl_version = v;
      const detail::CommGraph g(t, t.gpus(), o);
      const detail::Choice c =
          detail::choose(g, collective_query(CollectiveOp::kAllReduce, kGiB, Algorithm::kNvls));
      return c.estimate.algbw_Bps / 1e9;
    };
    // 2.17: NVLS on the ring graph (SM90 intra {66, 33, ...}: 5 x 66 = 330, 11 x 33 = 363),
    // 363 GB/s busbw (under the 370 cap) x 0.75 = 272.25.
    CHECK(nvls_algbw_GBps(NcclVersion{2, 17}) == doctest::Approx(272.25));
    // 2.27: SM90 intra {60, 50, 40, ...}: 9 x 40 = 360 <= 370.8: 8 x 40 = 320 x 5/6.
    CHECK(nvls_algbw_GBps(NcclVersion{2, 27}) == doctest::Approx(320.0 * 5 / 6));
    // 2.28: 40 x 0.85 x 7/8 x 2 = 59.5 per channel, x 8 = 476, x 8 / 14 = 272.
    CHECK(nvls_algbw_GBps(NcclVersion{2, 28}) == doctest::Approx(272.0));
  }

  TEST_CASE("ring plateau by release: x1.5 on SM90 in 2.17 from n x 4096 B, x1.4 from 2.18 at 64 B per channel and rank") {
    const Topology t = linksim::testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    const auto ring_simple = [&](NcclVersion v) {
      CommOptions o;
      o.nccl_version = v;
      const detail::CommGraph g(t, t.gpus(), o);
      return detail::choose(g, collective_query(CollectiveOp::kAllReduce, kGiB, Algorithm::kRing,
                                                Protocol::kSimple))
          .estimate;
    };
    const detail::NcclEstimate v217 = ring_simple(NcclVersion{2, 17});
    CHECK(v217.plateau_factor == doctest::Approx(1.5));
    CHECK(v217.plateau_from_bytes == doctest::Approx(16 * 4096.0));
    const detail::NcclEstimate v218 = ring_simple(NcclVersion{2, 18});
    CHECK(v218.plateau_factor == doctest::Approx(1.4));
    CHECK(v218.plateau_from_bytes == doctest::Approx(64.0 * v218.channels * 16));
  }

  TEST_CASE("calibration 86: NCCL 2.26 runs the tree through 16 GiB; 2.28's caps hand large sizes to the ring") {
    const Topology t = linksim::testing::library_topology("gb200-nvl72.yaml", {{"racks", "20"}});
    const auto choice = [&](NcclVersion v, double bytes) {
      const detail::CommGraph g(t, t.gpus(), calibration86(v));
      return detail::choose(g, collective_query(CollectiveOp::kAllReduce, bytes));
    };
    // 2.26: tree Simple = min(0.92 x graph, channels x 72) x 1/2 on NCCL's graph (15 x 48 on
    // 15 NICs, the search above): min(662.4, 1080) / 2 = 331.2 GB/s algbw.
    for (double s : {0.5 * kGiB, 4 * kGiB, 16 * kGiB}) {
      const detail::Choice c = choice(NcclVersion{2, 26}, s);
      CHECK(c.algo == Algorithm::kTree);
      CHECK(c.proto == Protocol::kSimple);
      CHECK(c.estimate.algbw_Bps / 1e9 == doctest::Approx(331.2));
    }
    // 2.28: the tree capped at channels x 24 (15 x 24 x 1/2 = 180 GB/s): the ring at 16 GiB.
    const detail::Choice v228 = choice(NcclVersion{2, 28}, 16 * kGiB);
    CHECK(v228.algo == Algorithm::kRing);
  }

  TEST_CASE("calibration 108: NCCL 2.26's NVLSTree latency (NET 14 us) keeps 4 MiB on NVLSTree") {
    // 2 x HGX B200, NCCL 2.26.2. NVLSTree: NCCL's graph across servers searches the inter
    // speeds, 2.26's from 48: 8 heads x 48 GB/s (9 x 48 <= 18 x 40.1), each head's NIC 50 GB/s:
    // bw = min(48, 50) = 48, busbw 8 x 48 = 384, algbw x 5/6 = 320 GB/s (the estimate before
    // 2.28). Its latency is 2.26's 25 + 2 x log2(2) x 14 =
    // 53 us, 13.8 us under the closed form's (hwLat[NET][NVLSTree] 20.9 from v2.28.9-1).
    // Against it 2.26's tree LL128 (Blackwell 73.4 a channel on two nodes): NVLSTree wins.
    const Topology t = linksim::testing::library_topology("lambda-b200-ib.yaml");
    CommOptions o;
    o.nccl_version = NcclVersion{2, 26};
    const detail::CommGraph g(t, t.gpus(), o);
    std::vector<detail::TriedPair> tried;
    const detail::Choice c =
        detail::choose(g, collective_query(CollectiveOp::kAllReduce, 4194304), &tried);
    CHECK(c.algo == Algorithm::kNvlsTree);
    CHECK(c.estimate.algbw_Bps / 1e9 == doctest::Approx(320.0));
    CHECK(c.estimate.latency_s == doctest::Approx(c.model.table_latency_s - 13.8e-6));
  }

  TEST_CASE("calibration 71: every release's tuner runs ring LL at 64-256 KiB, so the unstated release moves nothing") {
    // 2 x DGX A100, 8 HDR NICs each, NCCL_ALGO=RING. At 128 KiB LL's estimate gives up some
    // 10 us of bandwidth (llMaxBw 22.5 x 16/30 = 12 GB/s algbw under the 1/4 factor up to 2.20,
    // the cap alone after) against LL128's latency, 30 steps of hwLat LL128 1.9 us against LL's
    // 0.47-0.6 and a higher baseLat (10 or 14 us against 3.6 or 6.6): LL under every row. From
    // 512 KiB LL128 (docs/validation.md, calibration 71).
    const Topology t = linksim::testing::library_topology("dgx-a100-ib.yaml", {{"nodes", "2"}});
    for (const NcclVersion v : {NcclVersion{2, 12}, NcclVersion{2, 18}, NcclVersion{2, 23},
                                NcclVersion{2, 29}}) {
      CAPTURE(linksim::to_string(v));
      CommOptions o;
      o.nccl_version = v;
      const detail::CommGraph g(t, t.gpus(), o);
      for (double s : {65536.0, 131072.0, 262144.0}) {
        CHECK(detail::choose(g, collective_query(CollectiveOp::kAllReduce, s, Algorithm::kRing))
                  .proto == Protocol::kLL);
      }
      CHECK(detail::choose(g, collective_query(CollectiveOp::kAllReduce, 524288, Algorithm::kRing))
                .proto == Protocol::kLL128);
    }
  }

  TEST_CASE("NVLSTree correction from 2.29 on SM100 with x86 hosts: 24 columns, Simple") {
    // treeCorrectionFactor's Simple row: 0.5 at log2(S / 64 B) = 14 (1 MiB), the 24th column
    // 0.9 at 23 (512 MiB); Tree itself stops at 22.
    CHECK(detail::nvls_tree_correction(1048576) == doctest::Approx(0.5));
    CHECK(detail::nvls_tree_correction(512 * 1048576.0) == doctest::Approx(0.9));
    CHECK(detail::tree_correction(Protocol::kSimple, 512 * 1048576.0) == 1.0);
    CHECK(detail::nvls_tree_correction(1024 * 1048576.0) == 1.0);
    // 2 x HGX B200 (x86 hosts): 2.29 corrects NVLSTree, 2.28 does not; GB200 racks (Grace,
    // Arm) never.
    const auto nvls_tree = [](const Topology& t, NcclVersion v) {
      CommOptions o;
      o.nccl_version = v;
      const detail::CommGraph g(t, t.gpus(), o);
      return detail::choose(
                 g, collective_query(CollectiveOp::kAllReduce, 1048576, Algorithm::kNvlsTree))
          .estimate;
    };
    const Topology b200 = linksim::testing::library_topology("lambda-b200-ib.yaml");
    const Topology gb200 = linksim::testing::library_topology("gb200-nvl72.yaml", {{"racks", "2"}});
    const detail::NcclEstimate v229 = nvls_tree(b200, NcclVersion{2, 29});
    CHECK(v229.nvls_tree_corrected);
    CHECK(v229.time_s(1048576) ==
          doctest::Approx(v229.latency_s + 1048576 / (v229.algbw_Bps * 0.5)));
    CHECK_FALSE(nvls_tree(b200, NcclVersion{2, 28}).nvls_tree_corrected);
    CHECK_FALSE(nvls_tree(gb200, NcclVersion{2, 29}).nvls_tree_corrected);
  }

  TEST_CASE("LL cap across servers by the host CPU's vendor: Intel 39.0 on two nodes, 20.4 beyond") {
    // DGX H100 (Intel Sapphire Rapids): ring LL busbw = min(llMaxBws[0][N], 0.5 x 8 x 45);
    // algbw x n / (2 (n - 1)). Two servers: 39.0 x 16/30 = 20.8 GB/s; four: 20.4 x 32/62.
    const auto ring_ll_algbw_GBps = [](int nodes) {
      const Topology t = linksim::testing::library_topology("dgx-h100-ib.yaml",
                                                            {{"nodes", std::to_string(nodes)}});
      const detail::CommGraph g(t, t.gpus(), CommOptions{});
      return detail::choose(g, collective_query(CollectiveOp::kAllReduce, 65536, Algorithm::kRing,
                                                Protocol::kLL))
                 .estimate.algbw_Bps /
             1e9;
    };
    CHECK(ring_ll_algbw_GBps(2) == doctest::Approx(39.0 * 16 / 30));
    CHECK(ring_ll_algbw_GBps(4) == doctest::Approx(20.4 * 32 / 62));
  }
}
