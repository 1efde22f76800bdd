// SPDX-License-Identifier: Apache-2.0
// NCCL_P2P_DISABLE on NVLink machines, NCCL_P2P_LEVEL, NCCL_IB_HCA, and the host platform's
// host-staging rate bounded by NCCL's path bandwidth (docs/model.md#shm, #p2p-disable).
#include <doctest/doctest.h>

#include <string>

#include "linksim/collectives.hpp"
#include "linksim/explain.hpp"
#include "linksim/report.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/test_topologies.hpp"

using namespace linksim;

namespace {

constexpr double kGiB = 1073741824.0;

CollectiveResult run(const Communicator& comm, double bytes, Algorithm algo = Algorithm::kAuto,
                     Protocol proto = Protocol::kAuto, CollectiveOp op = CollectiveOp::kAllReduce) {
  CollectiveQuery q;
  q.op = op;
  q.size_bytes = bytes;
  q.algorithm = algo;
  q.protocol = proto;
  return comm.run(q);
}

CommOptions p2p_off(bool nvls = true) {
  CommOptions o;
  o.p2p_disable = true;
  o.nvls_enable = nvls;
  return o;
}

// Two GPUs without P2P (RTX 4090), each on its own Gen4 x16 root port of one socket (PHB):
// a 2-rank ring puts one stream on each direction of each GPU link, 25.2 GB/s effective, so
// only the host-staging rate limits. `cpu_keys` are added to the CPU.
Topology staged_pair(const std::string& cpu_keys) {
  return parse_topology(R"(
name: staged-pair
node:
  devices:
    - {name: cpu0, kind: cpu)" + cpu_keys + R"(}
    - {name: "gpu[0-1]", kind: gpu, model: rtx4090}
  links:
    - {from: "gpu[0-1]", to: cpu0, type: pcie4, host_bridge: 0}
)",
                        "input");
}

// The same pair with one GPU on each socket of `platform`, joined by UPI.
Topology staged_sockets(const std::string& platform, const std::string& cpu_keys) {
  return parse_topology(R"(
name: staged-sockets
node:
  devices:
    - {name: "cpu[0-1]", kind: cpu, platform: )" + platform + cpu_keys + R"(}
    - {name: "gpu[0-1]", kind: gpu, model: rtx4090}
  links:
    - {from: cpu0, to: cpu1, type: upi}
    - {from: "gpu[0-1]", to: "cpu[0-1]", type: pcie4}
)",
                        "input");
}

// A 2-rank ring AllReduce of S bytes, Simple: time = 8.4 + 2 x 5.7 us (PCI hops) + S / B, and
// busbw = S / time (bus factor 1 at n = 2).
double two_rank_busbw(double B_Bps, double S = kGiB) { return S / (19.8e-6 + S / B_Bps); }

}  // namespace

TEST_SUITE("collectives") {
  TEST_CASE("p2p off: a DGX H100 ring is host-staged, the SHM copy across the sockets names it") {
    // NCCL_P2P_DISABLE=1 diverts every NVLink pair through the CPU. The ring crosses the
    // sockets; across them the copy is bounded by NCCL's 22 GB/s UPI figure for Sapphire
    // Rapids (B_socket), below B_copy = 0.47 x 48 GB/s for the Gen5 legs = 22.56 and B_mem =
    // 307.2 GB/s / (2 x 4 GPUs per socket) = 38.4.
    // One ring (a host-staging cap admits no second), Simple at 1 GiB: busbw = 1.75 S / time,
    // time = 8.4 + 14 x 5.7 us (PCI hops: the intra-server path type is no longer NVLink)
    // + 1.75 S / 22 GB/s.
    const Topology t = testing::library_topology("dgx-h100.yaml");
    const Communicator off(t, t.gpus(), p2p_off());
    const CollectiveResult r = run(off, kGiB, Algorithm::kRing, Protocol::kSimple);
    const double time = 88.2e-6 + 1.75 * kGiB / 22e9;
    CHECK(r.time_s == doctest::Approx(time).epsilon(1e-6));
    CHECK(r.busbw_Bps == doctest::Approx(1.75 * kGiB / time).epsilon(1e-6));
    CHECK(r.bottleneck.kind == BottleneckKind::kHostStaging);
    CHECK(r.bottleneck.crosses_socket);
    CHECK(describe_bottleneck(r, t).find("host-staged copy") != std::string::npos);
    // With P2P the same ring runs on NVLink, an order of magnitude faster (LLM-Insights, four
    // of these GPUs: 370 against 24 GB/s busbw, data/validation/nccl-tests/10 and docs/model.md#shm).
    const Communicator on(t, t.gpus());
    CHECK(run(on, kGiB, Algorithm::kRing, Protocol::kSimple).busbw_Bps > 10 * r.busbw_Bps);
  }

  TEST_CASE("p2p off: no LL128, PCI latencies, and NVLS untouched") {
    const Topology t = testing::library_topology("dgx-h100.yaml");
    // NVLS does not go through NCCL's P2P transport: with P2P disabled it still takes the
    // large AllReduce, at its usual rate.
    const Communicator off(t, t.gpus(), p2p_off());
    const Communicator on(t, t.gpus());
    const CollectiveResult nvls = run(off, kGiB);
    CHECK(nvls.algorithm == Algorithm::kNvls);
    CHECK(nvls.busbw_Bps == doctest::Approx(run(on, kGiB, Algorithm::kNvls).busbw_Bps));
    // Without NVLS every size is host-staged and LL128 is never chosen.
    const Communicator staged(t, t.gpus(), p2p_off(false));
    for (double bytes = 1024; bytes <= kGiB; bytes *= 8) {
      CAPTURE(bytes);
      const CollectiveResult r = run(staged, bytes);
      CHECK(r.protocol != Protocol::kLL128);
      CHECK(r.algorithm == Algorithm::kRing);
    }
    CHECK_THROWS_AS(run(staged, 1048576, Algorithm::kRing, Protocol::kLL128), ConfigError);
    // LL latency per ring step: PCI 1.0 us against NVLink 0.6 us, 14 steps: 5.6 us more, and
    // 8 bytes add nothing measurable on either path.
    const double staged_ll = run(staged, 8, Algorithm::kRing, Protocol::kLL).time_s;
    const double nvlink_ll = run(on, 8, Algorithm::kRing, Protocol::kLL).time_s;
    CHECK(staged_ll - nvlink_ll == doctest::Approx(14 * 0.4e-6).epsilon(0.01));
  }

  TEST_CASE("p2p level: NVL keeps NVLink, LOC stages it like --p2p off") {
    const Topology t = testing::library_topology("dgx-h100.yaml");
    CommOptions nvl;
    nvl.p2p_level = PathClass::kNvlink;
    CommOptions loc;
    loc.p2p_level = PathClass::kSelf;
    const Communicator off(t, t.gpus(), p2p_off());
    const Communicator on(t, t.gpus());
    CHECK(run(Communicator(t, t.gpus(), nvl), kGiB, Algorithm::kRing).busbw_Bps ==
          doctest::Approx(run(on, kGiB, Algorithm::kRing).busbw_Bps));
    CHECK(run(Communicator(t, t.gpus(), loc), kGiB, Algorithm::kRing).busbw_Bps ==
          doctest::Approx(run(off, kGiB, Algorithm::kRing).busbw_Bps));
  }

  TEST_CASE("host staging: an unknown host's terms, a topology's own rate, B_copy as a bound") {
    // Default platform: no measurement lent from another host, so B_copy, 0.47 x NCCL's 24 GB/s
    // for a Gen4 x16 leg = 11.28 GB/s.
    const Topology generic = staged_pair("");
    const CollectiveResult g = run(Communicator(generic, generic.gpus()), kGiB, Algorithm::kRing,
                                   Protocol::kSimple);
    CHECK(g.busbw_Bps == doctest::Approx(two_rank_busbw(11.28e9)).epsilon(1e-6));
    CHECK(g.bottleneck.kind == BottleneckKind::kHostStaging);
    CHECK_FALSE(g.bottleneck.crosses_socket);
    // The topology's own 6 GB/s.
    const Topology own = staged_pair(", host_staging_bw: 6 GB/s");
    CHECK(run(Communicator(own, own.gpus()), kGiB, Algorithm::kRing, Protocol::kSimple).busbw_Bps ==
          doctest::Approx(two_rank_busbw(6.0e9)).epsilon(1e-6));
    // 30 GB/s is more than B_copy for a Gen4 x16 leg: 0.47 x 24 GB/s (31.5 x 12 / 15.75).
    const Topology fast = staged_pair(", host_staging_bw: 30 GB/s");
    CHECK(run(Communicator(fast, fast.gpus()), kGiB, Algorithm::kRing, Protocol::kSimple).busbw_Bps ==
          doctest::Approx(two_rank_busbw(0.47 * 24.0e9)).epsilon(1e-6));
  }

  TEST_CASE("host staging: the 8x RTX 4090 server shares its switch uplinks (Ice Lake host)") {
    // Four GPUs below each Gen4 x16 switch uplink: every ring hop between them is staged up the
    // uplink and back down, and the hop to the other socket goes up too, so each direction of
    // the uplink carries four GPUs' legs: 0.8 x 31.5 GB/s / 4 = 6.3 GB/s a rank, under B_copy
    // (11.28) and Ice Lake's 10 GB/s between the sockets. A ring AllReduce of 8 ranks, Simple:
    // alpha = 8.4 + 14 x 5.7 us (PCI hops), busbw = 1.75 S / (alpha + 1.75 S / 6.3 GB/s).
    const Topology t = testing::library_topology("rtx4090-8gpu-server.yaml");
    const CollectiveResult r =
        run(Communicator(t, t.gpus()), kGiB, Algorithm::kRing, Protocol::kSimple);
    const double moved = 1.75 * kGiB;
    CHECK(r.busbw_Bps == doctest::Approx(moved / (88.2e-6 + moved / 6.3e9)).epsilon(1e-3));
    CHECK(r.bottleneck.kind == BottleneckKind::kLink);
    CHECK(r.bottleneck.family == LinkFamily::kPcie);
  }

  TEST_CASE("host staging across servers: a PCIe-only server's rings run one order") {
    // Two servers of one L40S on each Sapphire Rapids socket (no P2P across the sockets on an
    // Intel host: SHM) and one 400G RoCE NIC on socket 0, the layout of a Dell R760xa. One
    // ring at the GPUs' PCIe speed reaches their total bandwidth, so NCCL duplicates its first
    // ring (search.cc, ncclTopoDupChannels; NCCL_DEBUG logs of two RTX 3090 servers show both
    // channels with one order, NVIDIA/nccl#1516): every channel stages gpu0 -> gpu1 in the one
    // direction, at B_copy = 0.47 x 24 GB/s (Gen4 x16) = 11.28 GB/s. Rotated rings would
    // stage the reverse hop too and double it.
    // Ring AllReduce of 4 ranks, Simple: alpha = 8.4 + (6 - 2) x 5.7 + 2 x 14 us, one crossing
    // beyond NCCL's two at 14 - 5.7 us, three network steps at RoCE's 2.45 us: 74.85 us;
    // busbw = 1.5 S / (alpha + 1.5 S / 11.28 GB/s).
    const Topology t = parse_topology(R"(
name: l40s-roce-pair
node:
  devices:
    - {name: "cpu[0-1]", kind: cpu, platform: intel-sapphire-rapids}
    - {name: "gpu[0-1]", kind: gpu, model: l40s}
    - {name: nic0, kind: nic, type: roce_400}
  links:
    - {from: cpu0, to: cpu1, type: upi}
    - {from: "gpu[0-1]", to: "cpu[0-1]", type: pcie4}
    - {from: nic0, to: cpu0, type: pcie5}
nodes: 2
fabric: {kind: fat_tree, radix: 64, oversubscription: 1}
)",
                                      "input");
    const CollectiveResult r =
        run(Communicator(t, t.gpus()), kGiB, Algorithm::kRing, Protocol::kSimple);
    const double moved = 1.5 * kGiB;
    CHECK(r.busbw_Bps == doctest::Approx(moved / (74.85e-6 + moved / 11.28e9)).epsilon(1e-4));
    CHECK(r.bottleneck.kind == BottleneckKind::kHostStaging);
    CHECK(r.bottleneck.crosses_socket);
    // explain coll names the one order in the ring term.
    CollectiveQuery q;
    q.size_bytes = kGiB;
    q.algorithm = Algorithm::kRing;
    q.protocol = Protocol::kSimple;
    const CollectiveExplanation e = explain_collective(Communicator(t, t.gpus()), q);
    bool named = false;
    for (const ExplainStep& step : e.steps) {
      for (const ExplainTerm& term : step.terms) {
        if (term.symbol == "T_ring") {
          CHECK(term.value == doctest::Approx(11.28e9));
          named = term.source.find("one GPU order on every channel") != std::string::npos;
        }
      }
    }
    CHECK(named);
  }

  TEST_CASE("host staging: a named platform's rate follows PCIe, memory and the socket link") {
    // No measurement: B_copy = 0.47 x NCCL's PCIe bandwidth. Gen4 x16: 0.47 x 24 = 11.28 GB/s
    // (B_mem = 307.2 / (2 x 2) = 76.8 on Sapphire Rapids does not bind).
    const Topology spr = staged_pair(", platform: intel-sapphire-rapids");
    CHECK(run(Communicator(spr, spr.gpus()), kGiB, Algorithm::kRing, Protocol::kSimple).busbw_Bps ==
          doctest::Approx(two_rank_busbw(11.28e9)).epsilon(1e-6));
    // Across Ice Lake sockets: NCCL's 10 GB/s socket figure (B_socket) binds.
    const Topology icx = staged_sockets("intel-ice-lake", "");
    const CollectiveResult across =
        run(Communicator(icx, icx.gpus()), kGiB, Algorithm::kRing, Protocol::kSimple);
    CHECK(across.busbw_Bps == doctest::Approx(two_rank_busbw(10e9)).epsilon(1e-6));
    CHECK(across.bottleneck.crosses_socket);
    // Eight Gen4 GPUs below one Ryzen 7000 (83.2 GB/s of memory): B_mem = 83.2 / (2 x 8) =
    // 5.2 GB/s, below B_copy (11.28): every GPU stages through the same memory.
    const Topology desk = parse_topology(R"(
name: staged-eight
node:
  devices:
    - {name: cpu0, kind: cpu, platform: amd-ryzen-7000}
    - {name: "gpu[0-7]", kind: gpu, model: rtx4090}
  links:
    - {from: "gpu[0-7]", to: cpu0, type: pcie4, host_bridge: 0}
)",
                                         "input");
    const Communicator pair(desk, {desk.gpus()[0], desk.gpus()[1]});
    CHECK(run(pair, kGiB, Algorithm::kRing, Protocol::kSimple).busbw_Bps ==
          doctest::Approx(two_rank_busbw(5.2e9)).epsilon(1e-6));
  }

  TEST_CASE("host staging: across the sockets, a measured rate and NCCL's socket bound") {
    // Generic: NCCL counts no bound between the sockets of a CPU it does not know (LOC_BW) and
    // the UPI link (62.4 GB/s) does not bind: B_copy, 11.28 GB/s.
    const Topology generic = staged_sockets("generic", "");
    const CollectiveResult g = run(Communicator(generic, generic.gpus()), kGiB, Algorithm::kRing,
                                   Protocol::kSimple);
    CHECK(g.busbw_Bps == doctest::Approx(two_rank_busbw(11.28e9)).epsilon(1e-6));
    CHECK(g.bottleneck.crosses_socket);
    // The same host with its own measured 1.44 GB/s across the sockets (the A40 server of
    // calibration 06 carries it).
    const Topology measured =
        staged_sockets("generic", ", host_staging_cross_socket_bw: 1.44 GB/s");
    CHECK(run(Communicator(measured, measured.gpus()), kGiB, Algorithm::kRing, Protocol::kSimple)
              .busbw_Bps == doctest::Approx(two_rank_busbw(1.44e9)).epsilon(1e-6));
    // A Broadwell host given 8 GB/s across its sockets: NCCL's QPI figure, 6 GB/s, bounds it.
    const Topology bdw =
        staged_sockets("intel-broadwell", ", host_staging_cross_socket_bw: 8 GB/s");
    CHECK(run(Communicator(bdw, bdw.gpus()), kGiB, Algorithm::kRing, Protocol::kSimple).busbw_Bps ==
          doctest::Approx(two_rank_busbw(6.0e9)).epsilon(1e-6));
  }

  TEST_CASE("p2p level: two GPUs across the sockets of an AMD host use P2P over xGMI") {
    // A100 PCIe cards (P2P-capable) on the two sockets: SYS. On AMD with two GPUs NCCL's
    // default level is SYS, so the ring runs over PCIe and xGMI, not through host memory.
    const Topology amd = parse_topology(R"(
name: epyc-pair
node:
  devices:
    - {name: "cpu[0-1]", kind: cpu, platform: amd-zen2}
    - {name: "gpu[0-1]", kind: gpu, model: a100-pcie-40g}
  links:
    - {from: cpu0, to: cpu1, type: xgmi}
    - {from: "gpu[0-1]", to: "cpu[0-1]", type: pcie4}
)",
                                        "input");
    const CollectiveResult p2p = run(Communicator(amd, amd.gpus()), kGiB, Algorithm::kRing);
    CHECK(p2p.bottleneck.kind == BottleneckKind::kLink);
    CommOptions pxb;
    pxb.p2p_level = PathClass::kPxb;
    const CollectiveResult staged =
        run(Communicator(amd, amd.gpus(), pxb), kGiB, Algorithm::kRing);
    CHECK(staged.bottleneck.kind == BottleneckKind::kHostStaging);
    // P2P: 25.2 GB/s (Gen4 x16 at 0.8); staged: B_copy = 0.47 x 24 = 11.28 (below xGMI's 16).
    CHECK(p2p.busbw_Bps > 2 * staged.busbw_Bps);
  }

  TEST_CASE("p2p level: --nccl-version selects NCCL's default level for four GPUs on AMD") {
    // Four A100 PCIe cards, two per socket of an EPYC host. NCCL 2.23 and later: PXB (more
    // than two GPUs), so the pairs across the sockets (SYS) are staged through host memory;
    // NCCL 2.22: SYS on AMD, so the ring runs peer-to-peer over PCIe and xGMI.
    const Topology amd = parse_topology(R"(
name: epyc-quad
node:
  devices:
    - {name: "cpu[0-1]", kind: cpu, platform: amd-zen2}
    - {name: "gpu[0-3]", kind: gpu, model: a100-pcie-40g}
  links:
    - {from: cpu0, to: cpu1, type: xgmi}
    - {from: "gpu[0-1]", to: cpu0, type: pcie4}
    - {from: "gpu[2-3]", to: cpu1, type: pcie4}
)",
                                        "input");
    CommOptions recent;
    recent.nccl_version = NcclVersion{2, 23};
    CHECK(run(Communicator(amd, amd.gpus(), recent), kGiB, Algorithm::kRing).bottleneck.kind ==
          BottleneckKind::kHostStaging);
    CommOptions older;
    older.nccl_version = NcclVersion{2, 22};
    CHECK(run(Communicator(amd, amd.gpus(), older), kGiB, Algorithm::kRing).bottleneck.kind ==
          BottleneckKind::kLink);
  }

  TEST_CASE("ib hca: one NIC of eight carries every ring between two DGX H100s") {
    // 2 servers, ring AllReduce. With every NIC, the servers' 8 NDR NICs (8 x 48 GB/s
    // effective) exceed the NVLink rings; NCCL_IB_HCA=mlx5_0 leaves one NIC per server, which
    // every ring's inter-server stream crosses: ring throughput = 50 x 0.96 = 48 GB/s.
    const Topology t = testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    CommOptions one;
    one.ib_hca = parse_ib_hca("=mlx5_0");
    const Communicator comm(t, t.gpus(), one);
    const CollectiveResult r = run(comm, 4 * kGiB, Algorithm::kRing, Protocol::kSimple);
    CHECK(r.bottleneck.kind == BottleneckKind::kLink);
    CHECK(r.bottleneck.family == LinkFamily::kNetwork);
    const double ring_busbw = r.busbw_Bps;
    CHECK(ring_busbw == doctest::Approx(48e9).epsilon(0.01));
    const Communicator all(t, t.gpus());
    CHECK(run(all, 4 * kGiB, Algorithm::kRing, Protocol::kSimple).busbw_Bps > 2 * ring_busbw);
  }
}
