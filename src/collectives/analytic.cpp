// SPDX-License-Identifier: Apache-2.0
// Cost models of NCCL's algorithms (docs/model.md): NCCL's latency tables and protocol
// efficiencies applied to bandwidths measured on the communicator's own links.
#include "collectives/analytic.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/core.h>
#include <limits>

#include "collectives/link_efficiency.hpp"
#include "common/check.hpp"
#include "linksim/units.hpp"

namespace linksim::detail {
namespace {

const NcclLatencies kLat;
const ProtocolEfficiency kEff;
constexpr double kUs = 1e-6;

double launch_overhead_s(const CommGraph& g) {
  return std::max(0, g.options().gpus_per_thread - 1) * kLaunchPerExtraGpu_s;
}

int ring_steps(CollectiveOp op, int ranks) {
  return op == CollectiveOp::kAllReduce ? 2 * (ranks - 1) : ranks - 1;
}

double intra_hw_latency_us(HopClass cls, Protocol p, bool tree) {
  const int i = protocol_index(p);
  if (cls == HopClass::kNvlink) return tree ? kLat.hw_nvlink_tree[i] : kLat.hw_nvlink_ring[i];
  return tree ? kLat.hw_pcie_tree[i] : kLat.hw_pcie_ring[i];
}

// NCCL tuning.cc, Ring: base + (nsteps - nInter) x max(intraLat, netOverhead) + nInter x interLat.
double ring_latency_us(const CommGraph& g, CollectiveOp op, Protocol p) {
  const int n = static_cast<int>(g.ranks().size()), nodes = g.node_count();
  const int i = protocol_index(p);
  const int steps = ring_steps(op, n);
  const int inter = nodes <= 1 ? 0 : (op == CollectiveOp::kAllReduce ? 2 * (nodes - 1) : nodes - 1);
  double intra = intra_hw_latency_us(g.ring().intra_class, p, false);
  if (nodes > 1) intra = std::max(intra, kLat.net_overhead_us * (p == Protocol::kSimple ? 3 : 1));
  return kLat.base_ring[i] + (steps - inter) * intra + inter * kLat.hw_net_ring[i];
}

// NCCL tuning.cc, Tree AllReduce: base + 2 x ((ppn - 1) x intraLat + log2(nodes) x interLat).
double tree_latency_us(const CommGraph& g, Protocol p) {
  const int i = protocol_index(p);
  const int ppn = g.max_ranks_per_node(), nodes = g.node_count();
  double intra = intra_hw_latency_us(g.ring().intra_class, p, true);
  return kLat.base_tree[i] +
         2.0 * ((ppn - 1) * intra + std::log2(static_cast<double>(nodes)) * kLat.hw_net_tree[i]);
}

// Protocol bandwidth of a ring: LL halves it (4 data bytes per 8-byte line) up to llMaxBw;
// LL128 keeps 0.92 up to a per-channel cap (NCCL tuning.cc).
double ring_protocol_bw(const CommGraph& g, Protocol p, double bw_Bps, int channels) {
  const ArchCaps caps = arch_caps(g.min_sm());
  if (p == Protocol::kLL) {
    double cap = (g.node_count() > 1 ? caps.ll_max_multi_node_GBps : caps.ll_max_single_node_GBps);
    return std::min(bw_Bps * kEff.ll, cap * 1e9);
  }
  if (p == Protocol::kLL128) {
    return std::min(bw_Bps * kEff.ll128, channels * caps.ll128_per_channel_GBps * 1e9);
  }
  return bw_Bps;
}

Bottleneck server_nics(double per_server_Bps) {
  Bottleneck b;
  b.kind = BottleneckKind::kServerNics;
  b.rate_Bps = per_server_Bps;
  return b;
}

double nvls_efficiency(int sm) {
  return sm >= 100 ? kNvlsBlackwellEfficiency : kNvlsHopperEfficiency;
}

bool protocol_allowed(const CommGraph& g, Algorithm a, Protocol p, std::string* why) {
  if ((a == Algorithm::kNvls || a == Algorithm::kNvlsTree) && p != Protocol::kSimple) {
    *why = "NVLS runs the Simple protocol only";
    return false;
  }
  if (p == Protocol::kLL128 && (!g.ring().uses_p2p_only || g.min_sm() < 70)) {
    *why = "LL128 needs NVLink between the GPUs of a server (NCCL enables it only there)";
    return false;
  }
  return true;
}

CostModel ring_model(const CommGraph& g, CollectiveOp op, Protocol p) {
  CostModel m;
  m.eligible = true;
  m.channels = g.channels();
  m.latency_s = ring_latency_us(g, op, p) * kUs;
  m.wire_factor = bus_factor(op, static_cast<int>(g.ranks().size()));
  m.bw_Bps = ring_protocol_bw(g, p, g.ring().throughput_Bps, m.channels);
  m.link_scale = m.bw_Bps / g.ring().throughput_Bps;
  m.bottleneck = g.ring().bottleneck;
  return m;
}

CostModel tree_model(const CommGraph& g, Protocol p) {
  CostModel m;
  m.eligible = true;
  m.channels = g.channels();
  m.latency_s = tree_latency_us(g, p) * kUs;
  // Each server's chain carries S up and S down; its NICs carry about S each way.
  const double intra = g.ring().intra_throughput_Bps;
  const double inter = g.node_network_Bps();
  double bw = std::min(intra, inter) * kEff.tree * kEff.tree_bus_to_alg;
  if (p == Protocol::kLL) bw = std::min(bw / 3.8, arch_caps(g.min_sm()).ll_max_multi_node_GBps * 1e9);
  if (p == Protocol::kLL128) bw *= 120.0 / 128.0;
  m.bw_Bps = bw;
  m.link_scale = bw / (std::min(intra, inter) * kEff.tree_bus_to_alg);
  m.bottleneck = inter <= intra ? server_nics(inter) : g.ring().bottleneck;
  return m;
}

CostModel nvls_model(const CommGraph& g, CollectiveOp op) {
  CostModel m;
  m.eligible = true;
  m.channels = kNvlsChannels;
  const NvlsInfo& nv = g.nvls();
  const int n = static_cast<int>(g.ranks().size());
  m.latency_s = kLat.nvls_simple_us * kUs;
  if (op == CollectiveOp::kAllReduce) {
    // Reduce-scatter by multimem loads, then multicast stores: each GPU moves S each way.
    m.bw_Bps = nv.gpu_nvlink_Bps * nvls_efficiency(nv.sm);
    m.wire_factor = 1.0;
  } else {
    // AllGather / ReduceScatter: one multicast (or one reduction) pass, (n-1)/n of S each.
    m.bw_Bps = nv.gpu_nvlink_Bps * nvlink_efficiency(nv.sm, 25e9);
    m.wire_factor = (n - 1.0) / n;
  }
  // Data crosses GPU -> switch -> GPU: one step of every channel before the steady state.
  m.fill_s = kNvlsChannels * kNvlsStepBytes / m.bw_Bps;
  // Flow mode: the fraction of each GPU's raw NVLink rate that NVLS traffic achieves.
  m.link_scale = m.bw_Bps / nv.gpu_nvlink_Bps;
  m.bottleneck.kind = BottleneckKind::kNvls;
  m.bottleneck.rate_Bps = nv.gpu_nvlink_Bps;
  return m;
}

CostModel nvls_tree_model(const CommGraph& g) {
  CostModel m = nvls_model(g, CollectiveOp::kAllReduce);
  const int nodes = g.node_count();
  m.latency_s = (kLat.nvls_simple_us + 2.0 * std::log2(double(nodes)) * kLat.nvls_tree_net_us) * kUs;
  // NCCL tuning.cc: the inter-server tree's bus bandwidth is the servers' NICs (doubled on
  // two servers); NVLSTree converts bus to algorithm bandwidth with nRanks / nsteps ~ 1/2.
  const double inter = g.node_network_Bps() * (nodes <= 2 ? 2.0 : 1.0) * 0.5;
  if (inter < m.bw_Bps) {
    m.bw_Bps = inter;
    m.bottleneck = server_nics(g.node_network_Bps());
  }
  m.fill_s = kNvlsChannels * kNvlsStepBytes / m.bw_Bps;
  return m;
}

// Every rank sends a share of its buffer to every other rank at once.
CostModel alltoall_model(const CommGraph& g, Protocol p) {
  CostModel m;
  m.eligible = true;
  const int n = static_cast<int>(g.ranks().size());
  m.channels = g.channels();
  m.wire_factor = (n - 1.0) / n;
  const int i = protocol_index(p);
  const HopClass hop = g.node_count() > 1 ? HopClass::kNet : g.ring().intra_class;
  double hw = hop == HopClass::kNet ? kLat.hw_net_ring[i] : intra_hw_latency_us(hop, p, false);
  m.latency_s = (kLat.base_ring[i] + hw) * kUs;
  constexpr int kExactPairsLimit = 512;
  if (n <= kExactPairsLimit) {
    StreamSet set(g.capacities());
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (a == b) continue;
        Bottleneck why;
        const Route& r = g.route(a, b);
        set.add(r, 1.0 / (n - 1), route_rate_cap(g.topology(), r, &why), why);
      }
    }
    StreamSet::Limit limit = set.limit();
    m.bw_Bps = limit.throughput_Bps;
    m.bottleneck = limit.bottleneck(g.topology(), /*name_family=*/false);
  } else {
    // Large communicators: the servers' NICs carry (n - ppn)/(n - 1) of each rank's traffic.
    const double ppn = g.max_ranks_per_node();
    const double per_rank_net = g.node_network_Bps() / ppn * (n - 1.0) / (n - ppn);
    m.bw_Bps = std::min(per_rank_net, g.ring().intra_throughput_Bps);
    m.bottleneck = server_nics(0);
  }
  m.link_scale = p == Protocol::kLL ? kEff.ll : p == Protocol::kLL128 ? kEff.ll128 : 1.0;
  m.bw_Bps *= m.link_scale;
  return m;
}

// A point-to-point send over NVLink runs on more channels as it grows (docs/model.md#p2p):
// 2^floor(log2(S / 16 MiB)) channels, between 4 and 32, each about one NVLink's rate.
double p2p_channel_cap_Bps(const CommGraph& g, const Route& route, double bytes) {
  if (route.cls != PathClass::kNvlink) return std::numeric_limits<double>::infinity();
  const double ratio = bytes / kP2pBytesPerChannelStep;
  const int channels = ratio < 1 ? kP2pMinChannels
                                 : std::clamp(1 << static_cast<int>(std::floor(std::log2(ratio))),
                                              kP2pMinChannels, kP2pMaxChannels);
  return channels * nvlink_efficiency(g.min_sm(), 25e9) * 25e9;
}

// nccl-tests' sendrecv: rank i sends its buffer to rank i+1 while receiving from i-1.
CostModel sendrecv_model(const CommGraph& g, Protocol p, double size_bytes) {
  CostModel m;
  m.eligible = true;
  const int n = static_cast<int>(g.ranks().size());
  m.channels = g.channels();
  m.wire_factor = 1.0;
  const int i = protocol_index(p);
  const HopClass hop = g.node_count() > 1 ? HopClass::kNet : g.ring().intra_class;
  double hw = hop == HopClass::kNet ? kLat.hw_net_ring[i] : intra_hw_latency_us(hop, p, false);
  m.latency_s = (kLat.base_ring[i] + hw) * kUs;
  StreamSet set(g.capacities());
  for (int a = 0; a < n; ++a) {
    Bottleneck why;
    const Route& r = g.route(a, (a + 1) % n);
    double cap = route_rate_cap(g.topology(), r, &why);
    const double channel_cap = p2p_channel_cap_Bps(g, r, size_bytes);
    if (channel_cap < cap) {
      cap = channel_cap;
      why = Bottleneck{};
      why.kind = BottleneckKind::kP2pChannels;
      why.size_bytes = size_bytes;
    }
    if (n > 1) set.add(r, 1.0, cap, why);
  }
  StreamSet::Limit limit = set.limit();
  m.link_scale = p == Protocol::kLL ? kEff.ll : p == Protocol::kLL128 ? kEff.ll128 : 1.0;
  m.bw_Bps = limit.throughput_Bps * m.link_scale;
  m.bottleneck = limit.bottleneck(g.topology(), /*name_family=*/false);
  return m;
}

}  // namespace

std::vector<Algorithm> candidate_algorithms(const CommGraph& g, CollectiveOp op) {
  const bool multi = g.node_count() > 1;
  const bool nvls = g.nvls().available;
  switch (op) {
    case CollectiveOp::kAllReduce: {
      std::vector<Algorithm> out{Algorithm::kRing};
      if (multi) out.push_back(Algorithm::kTree);
      if (nvls && !multi) out.push_back(Algorithm::kNvls);
      if (nvls && multi) out.push_back(Algorithm::kNvlsTree);
      return out;
    }
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter: {
      std::vector<Algorithm> out{Algorithm::kRing};
      if (nvls && !multi) out.push_back(Algorithm::kNvls);
      return out;
    }
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce: return {Algorithm::kRing};
    case CollectiveOp::kAllToAll:
    case CollectiveOp::kSendRecv: return {Algorithm::kDirect};
  }
  return {};
}

CostModel cost_model(const CommGraph& g, CollectiveOp op, Algorithm algo, Protocol proto,
                     double size_bytes) {
  LINKSIM_CHECK(algo != Algorithm::kAuto && proto != Protocol::kAuto,
                "cost_model needs a resolved algorithm and protocol");
  CostModel m;
  const auto candidates = candidate_algorithms(g, op);
  if (std::find(candidates.begin(), candidates.end(), algo) == candidates.end()) {
    m.why_not = fmt::format("{} cannot run {} here", to_string(algo), to_string(op));
    return m;
  }
  if (!protocol_allowed(g, algo, proto, &m.why_not)) return m;
  switch (algo) {
    case Algorithm::kRing: m = ring_model(g, op, proto); break;
    case Algorithm::kTree: m = tree_model(g, proto); break;
    case Algorithm::kNvls: m = nvls_model(g, op); break;
    case Algorithm::kNvlsTree: m = nvls_tree_model(g); break;
    case Algorithm::kDirect:
      m = op == CollectiveOp::kAllToAll ? alltoall_model(g, proto)
                                       : sendrecv_model(g, proto, size_bytes);
      break;
    case Algorithm::kAuto: break;
  }
  if (g.ranks().size() == 1) {
    m.bw_Bps = std::numeric_limits<double>::infinity();
    m.fill_s = 0;
    m.bottleneck = Bottleneck{};  // kNone: a single rank moves no data
  }
  m.latency_s += launch_overhead_s(g);
  return m;
}

}  // namespace linksim::detail
