// SPDX-License-Identifier: Apache-2.0
// AllReduce across GB200 NVL72 racks (docs/model.md#multi-rack): NVLSTree's heads and their
// NICs, its bandwidth and start-up, its latency, NCCL's NVLS channels, the rails between racks,
// and flow against closed form from 2 to 8 racks. Expected values are derived by hand from
// NCCL's source (search.cc, connect.cc, tuning.cc, nvls.cc, enqueue.cc) and the catalog.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "linksim/collectives.hpp"
#include "linksim/gpu_selection.hpp"
#include "support/test_topologies.hpp"

namespace {

using linksim::Algorithm;
using linksim::BottleneckKind;
using linksim::CollectiveOp;
using linksim::CollectiveQuery;
using linksim::CollectiveResult;
using linksim::CommOptions;
using linksim::Communicator;
using linksim::NcclVersion;
using linksim::SimMode;
using linksim::Topology;

constexpr double kGiB = 1073741824.0;
constexpr double kUs = 1e-6;
// GB200 NVLS AllReduce: 425.5 of each GPU's 900 GB/s (calibration 84; model_params.hpp).
constexpr double kNvlsBps = 425.5e9;
// One NVLS loop on a 72-GPU rack across racks: 32 channels (NVLS_NCHANNELS_SM100) x 32 heads
// (NCCL_MAX_NVLS_ARITY) x the chunk: 128 KiB, or 64 KiB for NVLSTree from 4 nodes.
constexpr double kLoop128Bytes = 32.0 * 32.0 * 128.0 * 1024.0;
constexpr double kLoop64Bytes = 32.0 * 32.0 * 64.0 * 1024.0;

Topology racks(int n, const std::string& nic = "ib_ndr") {
  return linksim::testing::library_topology("gb200-nvl72.yaml",
                                            {{"racks", std::to_string(n)}, {"nic", nic}});
}

// Every GPU of `t` (which must outlive the communicator); NCCL_NET_GDR_LEVEL=SYS so that each
// NIC runs at its realized line rate (GDR over NVLink-C2C, as NCCL_NET_GDR_C2C=1 allows), and
// the NCCL release given.
Communicator all_gpus(const Topology& t, NcclVersion v = NcclVersion{2, 26}) {
  CommOptions o;
  o.nccl_version = v;
  o.net_gdr_level = linksim::PathClass::kSys;
  return Communicator(t, linksim::select_gpus(t, linksim::GpuSelection{}), o);
}

CollectiveResult allreduce(const Communicator& c, double bytes, Algorithm a = Algorithm::kAuto,
                           SimMode mode = SimMode::kAnalytic) {
  CollectiveQuery q;
  q.op = CollectiveOp::kAllReduce;
  q.size_bytes = bytes;
  q.algorithm = a;
  q.mode = mode;
  return c.run(q);
}

}  // namespace

TEST_SUITE("multi-rack") {
  TEST_CASE("multi-rack: two NDR racks run NVLSTree at the NVLS rate after three loops") {
    const Topology t2 = racks(2);
    const Communicator c = all_gpus(t2);
    const double s = 16 * kGiB;
    const CollectiveResult r = allreduce(c, s);
    CHECK(r.algorithm == Algorithm::kNvlsTree);
    CHECK(r.bottleneck.kind == BottleneckKind::kNvls);
    // 32 heads x 48 GB/s (NDR x 0.96) x 2 (two nodes) x 1/2 = 1536 GB/s: the NICs do not bind.
    // Latency 25 + 2 log2(2) x (20.9 + 2.45) us (InfiniBand's excess per network step,
    // docs/model.md#net-steps); fill (1 + 2 log2 2) = 3 loops of 128 MiB.
    const double t = (25 + 2 * (20.9 + 2.45)) * kUs + 3 * kLoop128Bytes / kNvlsBps + s / kNvlsBps;
    CHECK(r.time_s == doctest::Approx(t).epsilon(1e-9));
    CHECK(r.busbw_Bps == doctest::Approx(s / t * 2 * 143 / 144).epsilon(1e-9));
  }

  TEST_CASE("multi-rack: beyond two racks the heads' NICs carry twice, and bind with HDR") {
    // HDR: 25 GB/s x 0.96 = 24 GB/s per NIC; 32 of the 72 NICs are heads'.
    const double nics_Bps = 32 * 25e9 * 0.96;
    const double s = 16 * kGiB;
    // Two racks: 768 x 2 x 1/2 = 768 GB/s > 425.5: NVLS binds.
    const CollectiveResult two = allreduce(all_gpus(racks(2, "ib_hdr")), s, Algorithm::kNvlsTree);
    CHECK(two.bottleneck.kind == BottleneckKind::kNvls);
    // Four racks: an inner node of one tree and a leaf of the other, 2 S / heads per head:
    // 768 x 1/2 = 384 GB/s < 425.5. Fill (1 + 2 log2 4) = 5 loops of 64 MiB (64 KiB chunks).
    const CollectiveResult four = allreduce(all_gpus(racks(4, "ib_hdr")), s, Algorithm::kNvlsTree);
    CHECK(four.bottleneck.kind == BottleneckKind::kServerNics);
    const double b = nics_Bps / 2;
    const double t = (25 + 4 * (20.9 + 2.45)) * kUs + 5 * kLoop64Bytes / b + s / b;
    CHECK(four.time_s == doctest::Approx(t).epsilon(1e-9));
  }

  TEST_CASE("multi-rack: NVLSTree latency is 25 + 2 log2(racks) x (20.9 + 2.45) us") {
    // A 4 KiB call: the fill is its own bytes once per stage (a call cannot wait for more
    // data than it has), so t = lat + (stages + 1) x S / B. Each of the 2 log2(racks) network
    // steps pays NCCL's 20.9 us and InfiniBand's excess, 2.45 us (docs/model.md#net-steps).
    const double s = 4096;
    for (int n : {2, 4, 8}) {
      CAPTURE(n);
      const CollectiveResult r = allreduce(all_gpus(racks(n)), s, Algorithm::kNvlsTree);
      const double stages = 1 + 2 * std::log2(double(n));
      const double lat = (25 + 2 * std::log2(double(n)) * (20.9 + 2.45)) * kUs;
      CHECK(r.time_s == doctest::Approx(lat + (stages + 1) * s / kNvlsBps).epsilon(1e-9));
    }
  }

  TEST_CASE("multi-rack: NVLSTree starts up in the call's own chunk (enqueue.cc)") {
    // 2 x 8 H100 over NDR: 16 channels x 8 heads = 128 concurrent ops; B = NVLS's 276 GB/s
    // (the 8 NICs x 48 GB/s x 2 x 1/2 = 384 do not bind); 3 stages. NCCL's chunk: 128 KiB,
    // 64 KiB below 4 loops of 128 KiB (64 MiB), 32 KiB below one loop of 64 KiB (8 MiB).
    // t = lat + 3 x min(S, loop) / B + S / B, lat = 25 + 2 x (20.9 + 2.45) us.
    const Topology t = linksim::testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    const Communicator c(t, linksim::select_gpus(t, linksim::GpuSelection{}), CommOptions{});
    const double b = 276e9;
    const double lat = (25 + 2 * (20.9 + 2.45)) * kUs;
    const double mib = 1048576.0;
    const std::pair<double, double> size_and_loop[] = {
        {4 * mib, 4 * mib},     // 32 KiB chunks: a loop of 4 MiB, the call itself
        {8 * mib, 8 * mib},     // 64 KiB: 8 MiB is not below one such loop
        {16 * mib, 8 * mib},    // 64 KiB: two loops
        {32 * mib, 8 * mib},    // 64 KiB: four loops
        {64 * mib, 16 * mib}};  // 128 KiB: 64 MiB is not below four such loops
    for (const auto& row : size_and_loop) {
      const double s = row.first;
      const double loop = row.second;
      CAPTURE(s);
      const CollectiveResult r = allreduce(c, s, Algorithm::kNvlsTree);
      CHECK(r.time_s == doctest::Approx(lat + 3 * std::min(s, loop) / b + s / b).epsilon(1e-6));
    }
  }

  TEST_CASE("multi-rack: aws-ofi-nccl's 512 KiB NVLS chunks on p5 (the topology's nccl_env)") {
    // NCCL_NVLS_CHUNKSIZE = NCCL_NVLSTREE_MAX_CHUNKSIZE = 512 KiB; 128 concurrent ops. At
    // 1 GiB: below 32 loops of 512 KiB (2 GiB), 256 KiB; not below 16 loops of that (512 MiB):
    // a loop of 32 MiB. At 2 GiB the 512 KiB chunk stays: 64 MiB. Latency: 25 + 2 x (20.9 +
    // EFA's 26.18) us (docs/model.md#net-steps); B = NVLS's 276 GB/s.
    const Topology t = linksim::testing::library_topology("aws-p5-efa.yaml");
    const Communicator c(t, linksim::select_gpus(t, linksim::GpuSelection{}), CommOptions{});
    const double b = 276e9;
    const double lat = (25 + 2 * (20.9 + 26.18)) * kUs;
    const double mib = 1048576.0;
    for (const auto& [s, loop] : {std::pair{kGiB, 32 * mib}, std::pair{2 * kGiB, 64 * mib}}) {
      const CollectiveResult r = allreduce(c, s, Algorithm::kNvlsTree);
      CHECK(r.time_s == doctest::Approx(lat + 3 * loop / b + s / b).epsilon(1e-6));
    }
  }

  TEST_CASE("multi-rack: NCCL_NET_GDR_C2C: staged through Grace's memory, the NICs still run") {
    // At NCCL's defaults (no NCCL_NET_GDR_LEVEL). Before 2.27 a GB200 GPU's leg to its NIC,
    // through its Grace over NVLink-C2C, is host-staged (docs/model.md#gdr-off): the GPU copies
    // over C2C into Grace's memory (500 GB/s, B_mem = 500 / (2 x 2 GPUs) = 125 GB/s a GPU) and
    // the NIC reads it by DMA, no copy of its own: the 48 GB/s NICs bind neither way, and NVLS
    // binds on four racks under 2.26 as under 2.27's GPUDirect RDMA (32 x 48 / 2 = 768 GB/s
    // of NICs against NVLS's 425). Measured: 2 x 4 GH200 under NCCL 2.20.5, staged, reach 0.94
    // of their NICs (calibration 131).
    const Topology t = racks(4);
    auto at = [&](NcclVersion v) {
      CommOptions o;
      o.nccl_version = v;
      return allreduce(Communicator(t, linksim::select_gpus(t, linksim::GpuSelection{}), o),
                       16 * kGiB, Algorithm::kNvlsTree);
    };
    const CollectiveResult staged = at(NcclVersion{2, 26});
    CHECK(staged.bottleneck.kind == BottleneckKind::kNvls);
    const CollectiveResult gdr = at(NcclVersion{2, 27});
    CHECK(gdr.bottleneck.kind == BottleneckKind::kNvls);
    CHECK(staged.time_s == doctest::Approx(gdr.time_s).epsilon(0.01));
  }

  TEST_CASE("multi-rack: NCCL's choice at 16 GiB: NVLSTree on 2 racks, the ring on 4 and 8") {
    // NCCL's estimates (tuning.cc; docs/model.md#multi-rack): NVLSTree per head min(20 x 0.74
    // x 31/32 x 2 = 28.7, 20 x (2 on two nodes), perChMaxNVLSTreeBw) x 32 heads: 918 GB/s busBw
    // on two racks, 640 beyond; the ring's graph 721.8. Beyond two racks the ring wins once
    // its latency (2(n-1) steps) is paid off; on 20 racks its 2878 steps are not at 16 GiB.
    const double s = 16 * kGiB;
    struct Case {
      int racks;
      Algorithm algorithm;
    };
    for (const Case& k : {Case{2, Algorithm::kNvlsTree}, Case{4, Algorithm::kRing},
                          Case{8, Algorithm::kRing}, Case{20, Algorithm::kNvlsTree}}) {
      CAPTURE(k.racks);
      const Topology t = racks(k.racks);
      const Communicator c(t, linksim::select_gpus(t, linksim::GpuSelection{}), CommOptions{});
      CHECK(allreduce(c, s).algorithm == k.algorithm);
    }
  }

  TEST_CASE("multi-rack: NCCL's NVLS channels: 16 on Hopper, 32 on Blackwell, 24 in one domain") {
    CHECK(allreduce(all_gpus(racks(1)), 4 * kGiB).channels == 32);
    CHECK(allreduce(all_gpus(racks(1), NcclVersion{2, 27}), 4 * kGiB).channels == 24);
    CHECK(allreduce(all_gpus(racks(2), NcclVersion{2, 27}), 4 * kGiB).channels == 32);
    const Topology h100 = linksim::testing::library_topology("dgx-h100.yaml");
    const CollectiveResult r = allreduce(all_gpus(h100), 4 * kGiB);
    CHECK(r.algorithm == Algorithm::kNvls);
    CHECK(r.channels == 16);
  }

  TEST_CASE("multi-rack: only the heads' NICs carry the trees, head h to head h (rails)") {
    const Topology t = racks(4, "ib_hdr");
    const CollectiveResult r =
        allreduce(all_gpus(t), 4 * kGiB, Algorithm::kNvlsTree, SimMode::kFlow);
    // By rack: the NICs that sent bytes into the fabric, by their index.
    std::map<int, std::map<int, double>> sent;
    for (const auto& u : r.link_usage) {
      const linksim::Link& link = t.link(u.link);
      const linksim::Device& from = t.device(link.from);
      if (link.family != linksim::LinkFamily::kNetwork || from.kind != linksim::DeviceKind::kNic)
        continue;
      sent[*from.host][from.index] += u.bytes;
    }
    REQUIRE(sent.size() == 4);
    for (const auto& entry : sent) {
      const int rack = entry.first;  // clang 14: CAPTURE cannot take a structured binding
      CAPTURE(rack);
      CHECK(entry.second.size() == 32);
      CHECK(entry.second.begin()->first == 0);
      CHECK(entry.second.rbegin()->first == 31);
    }
  }

  TEST_CASE("multi-rack: flow and closed form agree on large messages from 2 to 8 racks") {
    // NDR: NVLS binds at every size of the fabric. HDR: the heads' NICs bind; on 8 racks the
    // flow also finds the fat tree's spine-to-leaf bundles shared by the heads of one rack
    // (D-mod-k, docs/fabrics.md#dmodk), which the closed form does not charge, so HDR stops at 4.
    for (int n : {2, 4, 8}) {
      for (const char* nic : {"ib_ndr", "ib_hdr"}) {
        if (n == 8 && std::string(nic) == "ib_hdr") continue;
        CAPTURE(n);
        CAPTURE(nic);
        const Topology t = racks(n, nic);
        const Communicator c = all_gpus(t);
        const double s = 8 * kGiB;
        const CollectiveResult closed = allreduce(c, s, Algorithm::kNvlsTree);
        const CollectiveResult flow = allreduce(c, s, Algorithm::kNvlsTree, SimMode::kFlow);
        CHECK(flow.busbw_Bps == doctest::Approx(closed.busbw_Bps).epsilon(0.03));
      }
    }
  }
}
