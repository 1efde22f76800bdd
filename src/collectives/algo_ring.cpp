// SPDX-License-Identifier: Apache-2.0
// Ring: NCCL's pipelined rings (docs/model.md#rings). Runs every collective but AllToAll and
// SendRecv; Broadcast and Reduce run it as a chain from (to) the root.
#include <algorithm>
#include <fmt/core.h>
#include <limits>

#include "collectives/algorithm.hpp"
#include "collectives/explain_terms.hpp"
#include "collectives/lowering.hpp"
#include "collectives/model_common.hpp"

namespace linksim::detail {
namespace {

int ring_steps(CollectiveOp op, int ranks) {
  return op == CollectiveOp::kAllReduce ? 2 * (ranks - 1) : ranks - 1;
}

// NCCL tuning.cc, Ring: base + (nsteps - nInter) x max(intraLat, netOverhead) + nInter x interLat.
double ring_latency_us(const CommGraph& g, CollectiveOp op, Protocol p, CostTrace* trace) {
  const int n = static_cast<int>(g.ranks().size()), nodes = g.node_count();
  const int i = protocol_index(p);
  const int steps = ring_steps(op, n);
  const int inter = nodes <= 1 ? 0 : (op == CollectiveOp::kAllReduce ? 2 * (nodes - 1) : nodes - 1);
  double intra = intra_hw_latency_us(g.ring().intra_class, p, false);
  if (nodes > 1) intra = std::max(intra, kLat.net_overhead_us * (p == Protocol::kSimple ? 3 : 1));
  if (trace != nullptr) {
    const char* hop = g.ring().intra_class == HopClass::kNvlink ? "NVLINK" : "PCI";
    ExplainStep& s = trace->latency;
    s.formula = "alpha = base + (steps - inter) x lat_intra + inter x lat_net";
    s.terms = {
        us_term("base", kLat.base_ring[i],
                fmt::format("NCCL tuning.cc baseLat[Ring][{}]", to_string(p))),
        count_term("steps", steps,
                   op == CollectiveOp::kAllReduce ? fmt::format("2(n-1), n = {}", n)
                                                  : fmt::format("n-1, n = {}", n)),
        count_term(
            "inter", inter,
            fmt::format("steps that cross servers ({} server{})", nodes, nodes == 1 ? "" : "s")),
        us_term("lat_intra", intra,
                nodes > 1 ? fmt::format("max(hwLat[{}][Ring][{}], netOverhead)", hop, to_string(p))
                          : fmt::format("NCCL tuning.cc hwLat[{}][Ring][{}]", hop, to_string(p))),
        us_term("lat_net", kLat.hw_net_ring[i],
                fmt::format("NCCL tuning.cc hwLat[NET][Ring][{}]", to_string(p)))};
  }
  return kLat.base_ring[i] + (steps - inter) * intra + inter * kLat.hw_net_ring[i];
}

// Protocol bandwidth of a ring: LL halves it (4 data bytes per 8-byte line) up to llMaxBw;
// LL128 keeps 0.92 up to a per-channel cap (NCCL tuning.cc).
double ring_protocol_bw(const CommGraph& g, Protocol p, double bw_Bps, int channels,
                        CostTrace* trace) {
  const ArchCaps caps = arch_caps(g.min_sm());
  ExplainStep* s = trace != nullptr ? &trace->bandwidth : nullptr;
  if (s != nullptr) {
    // Across servers one ring means one GPU order on every channel: PCIe-only servers
    // (CommGraph::plan_rings).
    const bool one_order =
        g.node_count() > 1 && g.ring().rings.size() == 1 && g.max_ranks_per_node() > 1;
    s->terms.push_back(rate_term(
        "T_ring", bw_Bps,
        fmt::format("{} ring(s) over the effective link capacities, bytes each rank sends per "
                    "second{} (docs/model.md#rings)",
                    g.ring().rings.size(),
                    one_order ? "; one GPU order on every channel, as NCCL duplicates its first "
                                "ring where the GPUs have PCIe alone"
                              : "")));
    s->terms.push_back(count_term(
        "channels", channels,
        g.options().channels > 0 ? "--channels" : "one per ~20 GB/s of ring rate, 2..32"));
  }
  // Fewer channels than the ring's own count carry their share of it only.
  if (const double limited = channel_limited_Bps(bw_Bps, channels); limited < bw_Bps) {
    if (s != nullptr) {
      s->terms.push_back(rate_term("T_channels", limited,
                                   "channels x max(20 GB/s, T_ring / its own channel count)"));
    }
    bw_Bps = limited;
  }
  if (p == Protocol::kLL) {
    double cap = (g.node_count() > 1 ? caps.ll_max_multi_node_GBps : caps.ll_max_single_node_GBps);
    if (s != nullptr) {
      s->formula = "B = min(T_ring x eff_LL, cap_LL)";
      s->terms.push_back(count_term("eff_LL", kEff.ll, "NCCL LL: 4 data bytes per 8-byte line"));
      s->terms.push_back(rate_term("cap_LL", cap * 1e9, "NCCL tuning.cc llMaxBws"));
    }
    return std::min(bw_Bps * kEff.ll, cap * 1e9);
  }
  if (p == Protocol::kLL128) {
    if (s != nullptr) {
      s->formula = "B = min(T_ring x eff_LL128, channels x cap_ch)";
      s->terms.push_back(count_term("eff_LL128", kEff.ll128, "NCCL tuning.cc LL128 factor 0.92"));
      s->terms.push_back(rate_term("cap_ch", caps.ll128_per_channel_GBps * 1e9,
                                   "NCCL tuning.cc perChMaxRingLL128Bws"));
    }
    return std::min(bw_Bps * kEff.ll128, channels * caps.ll128_per_channel_GBps * 1e9);
  }
  if (s != nullptr) s->formula = "B = T_ring (Simple: the ring's full rate)";
  return bw_Bps;
}

// The steps that cross servers as the ring runs (docs/model.md#net-steps): NCCL's rings visit
// each server's GPUs in one block (src/graph/rings.cc), so N of a ring's n hops cross servers
// and the 2(n-1) steps of an AllReduce (n-1 of AllGather and ReduceScatter) cross
// steps x N / n times, where NCCL's formula counts 2(N-1) (N-1); a chain (Broadcast, Reduce)
// from its root crosses N-1 times, as NCCL counts. `nccl_inter` is NCCL's count.
double ring_crossings(CollectiveOp op, int ranks, int nodes, double nccl_inter) {
  if (nodes <= 1) return 0;
  if (op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce) return nccl_inter;
  return ring_steps(op, ranks) * double(nodes) / ranks;
}

// What the ring runs beyond NCCL's latency formula, seconds (CostModel::realized_extra_s):
// its real crossings at hwLat[NET] in place of intra-server steps, and its intra-server steps
// at their own hop latency. NCCL's formula floors every step of a ring across servers at the
// network post overhead (tuning.cc getNetOverhead: 1 us, 2 us on AMD hosts, x3 for Simple);
// an NVLink or PCIe step is a P2P or SHM transfer that posts nothing to the network
// (src/transport/p2p.cc), so only the crossings pay it (docs/model.md#net-steps).
double ring_crossing_extra_s(const CommGraph& g, CollectiveOp op, Protocol p, double crossings,
                             CostTrace* trace) {
  const int n = static_cast<int>(g.ranks().size()), nodes = g.node_count();
  if (nodes <= 1) return 0;
  const int i = protocol_index(p);
  const double steps = ring_steps(op, n);
  const double nccl_inter = op == CollectiveOp::kAllReduce ? 2.0 * (nodes - 1) : nodes - 1.0;
  const double hop = intra_hw_latency_us(g.ring().intra_class, p, false);
  const double floored = std::max(hop, kLat.net_overhead_us * (p == Protocol::kSimple ? 3 : 1));
  const double extra_us = (crossings - nccl_inter) * (kLat.hw_net_ring[i] - hop) +
                          (steps - nccl_inter) * (hop - floored);
  if (trace != nullptr && crossings != nccl_inter) {
    trace->latency.formula += " + (crossings - inter) x (lat_net - lat_hop)";
    trace->latency.terms.push_back(count_term(
        "crossings", crossings,
        fmt::format("steps that cross servers as the ring runs: steps x {} servers / {} ranks "
                    "(each server's GPUs in one block; docs/model.md#net-steps)",
                    nodes, n)));
  }
  if (trace != nullptr && hop != floored) {
    trace->latency.formula += " + (steps - inter) x (lat_hop - lat_intra)";
    trace->latency.terms.push_back(us_term(
        "lat_hop", hop,
        "the intra-server step's own hwLat: it posts nothing to the network "
        "(docs/model.md#net-steps)"));
  }
  return extra_us * kUs;
}

// Across servers a ring runs on the channels NCCL's communicator opens (the ring graph's,
// which the servers' NICs bound, doubled: CommGraph::nccl_comm_channels), each one thread
// block that copies over NVLink at about one lane's realized rate, as a point-to-point
// channel does (docs/model.md#p2p); where they carry less than the links, they bound the
// ring (docs/model.md#ring-channels). Simple only (LL and LL128 keep NCCL's per-channel
// caps); +infinity where it does not apply: one server, --channels, GPUs without NVLink
// between them, one GPU a server.
double ring_channel_cap_Bps(const CommGraph& g, Protocol p) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  if (p != Protocol::kSimple || g.node_count() <= 1 || g.options().channels > 0) return kNone;
  if (g.max_ranks_per_node() <= 1 || g.ring().intra_class != HopClass::kNvlink) return kNone;
  const double per_channel_Bps = g.nvlink_channel_Bps();
  return per_channel_Bps > 0 ? g.nccl_comm_channels() * per_channel_Bps : kNone;
}

CostModel ring_model(const CommGraph& g, CollectiveOp op, Protocol p, CostTrace* trace) {
  CostModel m;
  m.eligible = true;
  m.channels = g.channels();
  m.latency_s = ring_latency_us(g, op, p, trace) * kUs;
  m.latency_hops = ring_steps(op, static_cast<int>(g.ranks().size()));
  const int nodes = g.node_count();
  const double nccl_inter =
      nodes <= 1 ? 0.0 : (op == CollectiveOp::kAllReduce ? 2.0 * (nodes - 1) : nodes - 1.0);
  m.net_steps =
      ring_crossings(op, static_cast<int>(g.ranks().size()), nodes, nccl_inter);
  m.realized_extra_s = ring_crossing_extra_s(g, op, p, m.net_steps, trace);
  m.wire_factor = bus_factor(op, static_cast<int>(g.ranks().size()));
  m.bw_Bps = ring_protocol_bw(g, p, g.ring().throughput_Bps, m.channels, trace);
  m.bottleneck = g.ring().bottleneck;
  if (const double cap = ring_channel_cap_Bps(g, p); cap < m.bw_Bps) {
    m.bw_Bps = cap;
    m.bottleneck = Bottleneck{};
    m.bottleneck.kind = BottleneckKind::kRingChannels;
    m.bottleneck.rate_Bps = cap;
    m.bottleneck.channels = g.nccl_comm_channels();
    if (trace != nullptr) trace->bandwidth.formula = "B = min(T_ring, C_channels)";
  }
  m.link_scale = m.bw_Bps / g.ring().throughput_Bps;
  if (trace != nullptr) {
    add_bottleneck_terms(g, m.bottleneck, trace->bandwidth.terms,
                         load_of(g.ring_link_loads(), m.bottleneck.link));
  }
  return m;
}

FlowOutcome ring_flows(const CommGraph& g, CollectiveOp op, const CostModel& m, double bytes,
                       int root, JointFlows* joint) {
  const RingPlan& plan = g.ring();
  Lowering low(g, m.link_scale, m.latency_s + m.fill_s, joint);
  const bool chain = op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce;
  for (size_t k = 0; k < plan.rings.size(); ++k) {
    const auto& ring = plan.rings[k];
    const int n = static_cast<int>(ring.size());
    // Broadcast and Reduce pipeline along the ring as a chain starting (ending) at the root.
    int start = 0;
    if (chain) start = static_cast<int>(std::find(ring.begin(), ring.end(), root) - ring.begin());
    for (int i = 0; i < n; ++i) {
      if (chain && i == n - 1) break;
      int a = ring[(start + i) % n], b = ring[(start + i + 1) % n];
      if (op == CollectiveOp::kReduce) std::swap(a, b);
      low.send(a, b, m.wire_factor * bytes * plan.weights[k]);
    }
  }
  return low.run(m.bottleneck);
}

}  // namespace

AlgorithmOps ring_algorithm() {
  return {Algorithm::kRing, "ring", "",
          [](const CommGraph&, CollectiveOp op) {
            return op != CollectiveOp::kAllToAll && op != CollectiveOp::kSendRecv;
          },
          [](const CommGraph& g, CollectiveOp op, Protocol p, double, CostTrace* trace) {
            return ring_model(g, op, p, trace);
          },
          ring_flows};
}

}  // namespace linksim::detail
