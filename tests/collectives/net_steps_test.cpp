// SPDX-License-Identifier: Apache-2.0
// Steps across servers (docs/model.md#net-steps): a ring's real crossings and each network
// step's excess by network kind, added to the realized latency while NCCL's estimate keeps its
// own table. Expected values derived by hand from NCCL's tuning.cc latency table.
#include <doctest/doctest.h>

#include "collectives/analytic.hpp"
#include "collectives/comm_graph.hpp"
#include "collectives/model_params.hpp"
#include "linksim/collectives.hpp"
#include "linksim/gpu_selection.hpp"
#include "support/test_topologies.hpp"

namespace {

namespace detail = linksim::detail;
using linksim::Algorithm;
using linksim::CollectiveOp;
using linksim::CommOptions;
using linksim::Protocol;
using linksim::Topology;

detail::CostModel model(const Topology& t, int gpus, Algorithm a, Protocol p,
                        CollectiveOp op = CollectiveOp::kAllReduce, int per_node = 0) {
  linksim::GpuSelection s;
  if (per_node > 0) {
    s.per_node = per_node;
  } else {
    s.first_n = gpus;
  }
  const detail::CommGraph g(t, linksim::select_gpus(t, s), CommOptions{});
  return detail::cost_model(g, op, a, p, 8.0);
}

}  // namespace

TEST_SUITE("net_steps") {
  TEST_CASE("network kind from the NIC's catalog link type") {
    CHECK(detail::network_kind("ib_hdr") == detail::NetworkKind::kInfiniBand);
    CHECK(detail::network_kind("ib_ndr") == detail::NetworkKind::kInfiniBand);
    CHECK(detail::network_kind("roce_100") == detail::NetworkKind::kRoce);
    CHECK(detail::network_kind("roce_400") == detail::NetworkKind::kRoce);
    CHECK(detail::network_kind("efa_400") == detail::NetworkKind::kEfa);
    CHECK(detail::network_kind("tcpxo_200") == detail::NetworkKind::kTcpxo);
    CHECK(detail::network_kind("tcpx_200") == detail::NetworkKind::kTcpx);
    CHECK(detail::network_kind("nvlink4") == detail::NetworkKind::kOther);
    // InfiniBand: the median of 42 per-step figures, the 14 rows at 8 B-512 B of calibration
    // 71 ((t - 32.475) / 3.75, 1.11-2.45), 106 ((t - 25.2) / 2, 2.08-10.26) and 108 ((t - 25.2)
    // / 2, 5.15-12.9): the 21st and 22nd of them, 2.450 (106, 30.10 us) and 2.452 (71, 41.67
    // us), round to 2.45.
    CHECK(detail::net_step_excess_us(detail::NetworkKind::kInfiniBand) == doctest::Approx(2.45));
    // RoCE: NCCL's IB transport runs it as InfiniBand (net_ib.cc), one figure: the median of
    // those 42 and the 28 of RoCE's calibrations 16 ((t - 25.2) / 2, 4.8-7.7) and 109 ((t -
    // 21.8) / 3, -1.7 to -0.4) is the same pair, 2.45.
    CHECK(detail::net_step_excess_us(detail::NetworkKind::kRoce) == doctest::Approx(2.45));
    // TCPXO: calibration 101's 8 B-256 B rows (123.0-135.8 us, median 123.35) less NCCL's
    // 25.2 us tree LL, over its 2 network steps: (123.35 - 25.2) / 2.
    CHECK(detail::net_step_excess_us(detail::NetworkKind::kTcpxo) == doctest::Approx(49.075));
    // EFA: calibration 107's 8 B-2 KiB rows (76.8-88.0 us, median 77.56) less 25.2, over 2.
    CHECK(detail::net_step_excess_us(detail::NetworkKind::kEfa) == doctest::Approx(26.18));
    // TCPX: no shipped table of small messages, NCCL's table.
    CHECK(detail::net_step_excess_us(detail::NetworkKind::kTcpx) == 0.0);
  }

  TEST_CASE("tree LL on 2 x AWS p5.48xlarge: NCCL's 25.2 us + 2 x 26.18 over EFA") {
    // aws-ofi-nccl shows each GPU's 4 EFA devices as one NCCL device (efa_400): 8 per server,
    // tree LL 6.8 + 2 x (7 x 0.6 + 5.0) = 25.2 us, + 2 x 26.18 = 77.56 us, the median of
    // calibration 107's rows that latency alone makes (76.8-88.0 us).
    const Topology t = linksim::testing::library_topology("aws-p5-efa.yaml", {{"nodes", "2"}});
    const auto m = model(t, 16, Algorithm::kTree, Protocol::kLL);
    CHECK(m.net_steps == 2);
    CHECK(m.table_latency_s == doctest::Approx(25.2e-6));
    CHECK(m.latency_s == doctest::Approx(77.56e-6));
  }

  TEST_CASE("tree LL on 2 x GCP A3 Mega: NCCL's 25.2 us + 2 x 49.075 over GPUDirect-TCPXO") {
    // The H100 board has NCCL's NVLink LL latency (0.6 us) like A100: 6.8 + 2 x (7 x 0.6 +
    // 5.0) = 25.2 us; the two network steps through the TCPXO plugin add 98.15 us: 123.35 us,
    // the median of calibration 101's rows that latency alone makes (123.0-135.8 us).
    const Topology t = linksim::testing::library_topology("gcp-a3mega-tcpxo.yaml", {{"nodes", "2"}});
    const auto m = model(t, 16, Algorithm::kTree, Protocol::kLL);
    CHECK(m.net_steps == 2);
    CHECK(m.table_latency_s == doctest::Approx(25.2e-6));
    CHECK(m.latency_s == doctest::Approx(123.35e-6));
    // A ring crosses 3.75 times (30 x 2 / 16), its 26.25 NVLink steps at 0.6 us:
    // 32.475 + 3.75 x 49.075 us.
    CHECK(model(t, 16, Algorithm::kRing, Protocol::kLL).latency_s ==
          doctest::Approx((32.475 + 3.75 * 49.075) * 1e-6));
    // GPUDirect-TCPX (A3 High): no excess, NCCL's table.
    const Topology tcpx = linksim::testing::library_topology("gcp-a3high-tcpx.yaml", {{"nodes", "2"}});
    CHECK(model(tcpx, 16, Algorithm::kTree, Protocol::kLL).latency_s == doctest::Approx(25.2e-6));
  }

  TEST_CASE("tree LL on 2 x 8 A100: NCCL's 25.2 us + 2 x 2.45 on InfiniBand and on RoCE") {
    // NCCL tuning.cc: 6.8 + 2 x ((8 - 1) x 0.6 + log2(2) x 5.0) = 25.2 us. Two network steps
    // (up the tree and down); InfiniBand and RoCE add 2.45 us to each (30.1 us: calibration
    // 106's 16 B-2 KiB rows, 29.4-32.3 us; calibration 16's on RoCE take 34.7-40.7 us).
    const Topology ib = linksim::testing::library_topology("dgx-a100-ib.yaml", {{"nodes", "2"}});
    const Topology roce =
        linksim::testing::library_topology("oci-a100-roce.yaml", {{"nodes", "2"}});
    const auto on_ib = model(ib, 16, Algorithm::kTree, Protocol::kLL);
    const auto on_roce = model(roce, 16, Algorithm::kTree, Protocol::kLL);
    CHECK(on_ib.net_steps == 2);
    CHECK(on_ib.latency_s == doctest::Approx(25.2e-6 + 2 * 2.45e-6));
    CHECK(on_roce.latency_s == doctest::Approx(25.2e-6 + 2 * 2.45e-6));
    // NCCL's own estimate (what it picks with) keeps its table on both.
    CHECK(on_roce.table_latency_s == doctest::Approx(25.2e-6));
  }

  TEST_CASE("ring on 2 x 8: 30 x 2 / 16 = 3.75 crossings where NCCL counts 2") {
    // NCCL: 6.6 + (30 - 2) x max(0.6, 1.0) + 2 x 2.7 = 40.0 us for LL. The ring runs 26.25
    // NVLink steps at their own 0.6 us and crosses 3.75 times: 6.6 + 26.25 x 0.6 + 3.75 x 2.7
    // = 32.475 us, + 3.75 x 2.45 = 41.66 us on InfiniBand (calibration 71, ring LL at 8 B-512
    // B: 36.6-41.7 us, median 39.9); RoCE adds the same 3.75 x 2.45 us.
    // LL128 (NVLink's 1.9 us above the 1 us floor): 14 + 28 x 1.9 + 2 x 4.0 = 75.2,
    // + 1.75 x (4.0 - 1.9) = 3.675, + 3.75 x 2.45.
    const Topology ib = linksim::testing::library_topology("dgx-a100-ib.yaml", {{"nodes", "2"}});
    const Topology roce =
        linksim::testing::library_topology("oci-a100-roce.yaml", {{"nodes", "2"}});
    const auto ll = model(ib, 16, Algorithm::kRing, Protocol::kLL);
    CHECK(ll.net_steps == doctest::Approx(3.75));
    CHECK(ll.table_latency_s == doctest::Approx(40.0e-6));
    CHECK(ll.latency_s == doctest::Approx((32.475 + 3.75 * 2.45) * 1e-6));
    CHECK(model(ib, 16, Algorithm::kRing, Protocol::kLL128).latency_s ==
          doctest::Approx((75.2 + 3.675 + 3.75 * 2.45) * 1e-6));
    CHECK(model(roce, 16, Algorithm::kRing, Protocol::kLL).latency_s ==
          doctest::Approx((32.475 + 3.75 * 2.45) * 1e-6));
    // Simple: NVLink's 3.4 us is above the floor 3 x 1 us, so only the crossings move:
    // 8.4 + 28 x 3.4 + 2 x 14 = 131.6, + 1.75 x (14 - 3.4) = 18.55, + 3.75 x 2.45.
    CHECK(model(ib, 16, Algorithm::kRing, Protocol::kSimple).latency_s ==
          doctest::Approx((131.6 + 18.55 + 3.75 * 2.45) * 1e-6));
    // AllGather: 15 steps, NCCL counts 1 crossing, the ring makes 15 x 2 / 16 = 1.875:
    // NCCL 6.6 + 14 x 1.0 + 2.7 = 23.3; run 6.6 + 13.125 x 0.6 + 1.875 x 2.7 = 19.5,
    // + 1.875 x 2.45.
    const auto ag = model(ib, 16, Algorithm::kRing, Protocol::kLL, CollectiveOp::kAllGather);
    CHECK(ag.net_steps == doctest::Approx(1.875));
    CHECK(ag.table_latency_s == doctest::Approx(23.3e-6));
    CHECK(ag.latency_s == doctest::Approx((19.5 + 1.875 * 2.45) * 1e-6));
  }

  TEST_CASE("one GPU per server: every ring step crosses, as NCCL counts") {
    // 10 servers x 1 H100: 18 steps, all across: 6.6 + 18 x 2.7 = 55.2 us, + 18 x 2.45.
    const Topology t = linksim::testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "10"}});
    const auto m = model(t, 0, Algorithm::kRing, Protocol::kLL, CollectiveOp::kAllReduce, 1);
    CHECK(m.net_steps == doctest::Approx(18));
    CHECK(m.table_latency_s == doctest::Approx(55.2e-6));
    CHECK(m.latency_s == doctest::Approx((55.2 + 18 * 2.45) * 1e-6));
  }

  TEST_CASE("one server: no step crosses servers, the latency is NCCL's") {
    const Topology t = linksim::testing::library_topology("dgx-h100.yaml");
    const auto m = model(t, 8, Algorithm::kRing, Protocol::kLL);
    CHECK(m.net_steps == 0);
    CHECK(m.latency_s == doctest::Approx(m.table_latency_s));
  }
}
