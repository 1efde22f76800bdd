// SPDX-License-Identifier: Apache-2.0
// Direct: the peer-to-peer patterns of AllToAll (every rank to every rank at once) and
// nccl-tests' SendRecv (rank i to rank i+1; docs/model.md#p2p).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <fmt/core.h>

#include "collectives/algorithm.hpp"
#include "collectives/explain_terms.hpp"
#include "collectives/lowering.hpp"
#include "collectives/model_common.hpp"
#include "collectives/nccl_tuner_model.hpp"

namespace linksim::detail {
namespace {

// One direct step: NCCL's ring base latency plus one hop of the slowest class, seconds.
double direct_latency_s(const CommGraph& g, Protocol p, CostTrace* trace) {
  const int i = protocol_index(p);
  const HopClass hop = g.node_count() > 1 ? HopClass::kNet : g.ring().intra_class;
  double hw = hop == HopClass::kNet ? kLat.hw_net_ring[i] : intra_hw_latency_us(hop, p, false);
  if (trace != nullptr) {
    const char* cls = hop == HopClass::kNet ? "NET" : hop == HopClass::kNvlink ? "NVLINK" : "PCI";
    trace->latency.formula = "alpha = base + lat_hop";
    trace->latency.terms = {
        us_term("base", kLat.base_ring[i],
                fmt::format("NCCL tuning.cc baseLat[Ring][{}]", to_string(p))),
        us_term("lat_hop", hw,
                fmt::format("NCCL tuning.cc hwLat[{}][Ring][{}]", cls, to_string(p)))};
  }
  return (kLat.base_ring[i] + hw) * kUs;
}

// The protocol's share of a direct pattern's rate, and its terms.
double direct_protocol_scale(Protocol p, double throughput_Bps, CostTrace* trace) {
  const double scale = p == Protocol::kLL ? kEff.ll : p == Protocol::kLL128 ? kEff.ll128 : 1.0;
  if (trace != nullptr) {
    trace->bandwidth.formula = "B = T_pattern x eff_proto";
    trace->bandwidth.terms = {
        rate_term("T_pattern", throughput_Bps,
                  "every stream of the pattern at once over the effective link capacities"),
        count_term("eff_proto", scale,
                   p == Protocol::kLL      ? "NCCL LL: 4 data bytes per 8-byte line"
                   : p == Protocol::kLL128 ? "NCCL tuning.cc LL128 factor 0.92"
                                           : "Simple: 1")};
  }
  return scale;
}

double net_peer_cap_Bps(const CommGraph& g);

// Every rank sends a share of its buffer to every other rank at once.
CostModel alltoall_model(const CommGraph& g, Protocol p, CostTrace* trace) {
  CostModel m;
  m.eligible = true;
  const int n = static_cast<int>(g.ranks().size());
  m.channels = g.channels();
  m.wire_factor = (n - 1.0) / n;
  m.latency_s = direct_latency_s(g, p, trace);
  std::optional<double> load;  // of the bottleneck link, for the trace
  constexpr int kExactPairsLimit = 512;
  if (n <= kExactPairsLimit) {
    StreamSet set(g.capacities());
    const double net_cap_Bps = g.node_count() > 1 ? net_peer_cap_Bps(g) : 0.0;
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (a == b) continue;
        Bottleneck why;
        const Route& r = g.route(a, b);
        double cap = route_rate_cap(g.topology(), r, g.options().calibration, &why, &g.gdr_nics());
        if (r.cls == PathClass::kNet && net_cap_Bps < cap) {
          // A remote peer gets the p2p channels NCCL gives it (docs/model.md#p2p).
          cap = net_cap_Bps;
          why = Bottleneck{};
          why.kind = BottleneckKind::kP2pChannels;
          why.family = LinkFamily::kNetwork;
          why.rate_Bps = cap;
        }
        set.add(r, 1.0 / (n - 1), cap, why);
      }
    }
    StreamSet::Limit limit = set.limit();
    m.bw_Bps = limit.throughput_Bps;
    m.bottleneck = limit.bottleneck(g.topology(), /*name_family=*/false);
    if (trace != nullptr) load = load_of(set.loads(), limit.link);
  } else {
    // Large communicators: the servers' NICs carry (n - ppn)/(n - 1) of each rank's traffic.
    const double ppn = g.max_ranks_per_node();
    const double per_rank_net = g.node_network_Bps() / ppn * (n - 1.0) / (n - ppn);
    m.bw_Bps = std::min(per_rank_net, g.ring().intra_throughput_Bps);
    m.bottleneck = server_nics(0);
  }
  m.link_scale = direct_protocol_scale(p, m.bw_Bps, trace);
  m.bw_Bps *= m.link_scale;
  if (trace != nullptr) add_bottleneck_terms(g, m.bottleneck, trace->bandwidth.terms, load);
  return m;
}

// One P2P channel: about one NVLink lane at its realized rate, bytes/s.
double p2p_channel_Bps(const CommGraph& g) { return g.nvlink_channel_Bps(); }

// A P2P send between servers sustains about NCCL_P2P_PER_CHANNEL_NET_BW = 14 GB/s per channel.
constexpr double kP2pNetChannelBps = 14e9;
// NCCL_MAX_DEV_WORK_P2P_PER_BATCH (src/include/device.h): peers one round of p2p work serves.
constexpr int kP2pPeersPerBatch = 8;

// The least power of two at or above v (>= 1): NCCL's pow2Up.
int pow2_up(int v) {
  return static_cast<int>(std::bit_ceil(static_cast<unsigned>(std::max(v, 1))));
}

// The communicator's p2p channels: its channels, the ring graph's duplicated
// (ncclTopoPostset, src/graph/connect.cc: nChannels x 2 up to MAXCHANNELS = 64), rounded up
// to a power of two (ncclTopoComputeP2pChannels).
int p2p_total_channels(const CommGraph& g) { return pow2_up(g.nccl_comm_channels()); }

// Whether every other rank reaches the first over NVLink (NCCL's isAllNvlink, which picks the
// NVLink p2p chunk on one server).
bool all_nvlink(const CommGraph& g) {
  for (size_t b = 1; b < g.ranks().size(); ++b) {
    if (g.route(0, static_cast<int>(b)).cls != PathClass::kNvlink) return false;
  }
  return true;
}

// The channels NCCL gives a peer on the same server (paths.cc ncclTopoGetNchannels): two per
// NVLink of the pair (through NVSwitches, all of the GPU's), two over PCIe; the fewest over
// the peers, rounded up to a power of two, at most the p2p channels (ncclTopoComputeP2pChannels).
int local_peer_channels(const CommGraph& g) {
  const double lane = g.nvlink_lane_Bps();
  int fewest = kMaxChannels;
  for (size_t b = 1; b < g.ranks().size(); ++b) {
    const Route& r = g.route(0, static_cast<int>(b));
    int c = 2;
    if (r.cls == PathClass::kNvlink && lane > 0) {
      c = 2 * std::max(1, static_cast<int>(std::lround(r.bw_Bps / lane)));
    }
    fewest = std::min(fewest, c);
  }
  return std::min(p2p_total_channels(g), pow2_up(fewest));
}

// The channels NCCL gives a remote peer (paths.cc ncclTopoGetNchannels; docs/model.md#p2p).
int net_peer_channels(const CommGraph& g) {
  double nic_Bps = 0;
  if (auto nic = g.router().nearest_nic(g.ranks().front())) {
    for (LinkId id : g.topology().out_links(*nic)) {
      const Link& link = g.topology().link(id);
      if (link.family == LinkFamily::kNetwork) nic_Bps = std::max(nic_Bps, link.bw_Bps);
    }
  }
  const int nics = 1;  // the GPU's nearest NIC: the NICs at its best path bandwidth
  const int p2p_total = p2p_total_channels(g);
  const int n = static_cast<int>(g.ranks().size());
  if (g.options().nccl_version.at_least(2, 29)) {
    // From 2.29: enough channels to drive the NIC, at least one per NIC, rounded up to a power
    // of two; then, on several servers, halved while channels x ceil(ranks / 8) exceed the
    // p2p channels, so that every peer fits in one round of NCCL_MAX_DEV_WORK_P2P_PER_BATCH
    // = 8 peers (ncclTopoComputeP2pChannels).
    const int wanted =
        std::max(nics, static_cast<int>(std::ceil(nic_Bps / kP2pNetChannelBps - 1e-9)));
    int c = pow2_up(wanted);
    const int rounds = (n + kP2pPeersPerBatch - 1) / kP2pPeersPerBatch;
    while (c * rounds > p2p_total && c > 1) c /= 2;
    return c;
  }
  // Up to 2.28: two channels, halved while 2 x ranks exceeds 4 x the p2p channels.
  int c = 2;
  while (c * n > p2p_total * 4 && c > 1) c /= 2;
  return std::max(nics, c);
}

double net_peer_cap_Bps(const CommGraph& g) { return net_peer_channels(g) * kP2pNetChannelBps; }

// The channels a send of `bytes` runs on (src/enqueue.cc addP2pToPlan and
// scheduleP2pTasksToPlan; docs/model.md#p2p): it starts from the peer's channels halved while
// they times the ranks exceed the p2p channels, at most one per part of at least
// minPart, and doubles while a part exceeds maxPart, up to the peer's channels.
int p2p_channels(const CommGraph& g, double bytes) {
  const bool servers = g.node_count() > 1;
  const int most = servers ? net_peer_channels(g) : local_peer_channels(g);
  const int n = static_cast<int>(g.ranks().size());
  int least = most;
  while (least * n > p2p_total_channels(g) && least > 1) least /= 2;
  const double chunk = servers         ? kP2pNetChunkBytes
                       : all_nvlink(g) ? kP2pNvlChunkBytes
                                       : kP2pPciChunkBytes;
  const double min_part = servers ? chunk / 2 : chunk / 8;
  const double max_part = servers ? chunk : chunk * 32;
  int channels = static_cast<int>(std::min<double>(least, std::ceil(bytes / min_part)));
  channels = std::max(1, channels);
  double part = std::max(min_part, std::ceil(bytes / channels));
  while (part > max_part && channels <= most / 2) {
    channels *= 2;
    part = std::ceil(bytes / channels);
  }
  return channels;
}

// What the channels NCCL gives a send of one size carry, bytes/s: to a peer on another server,
// over NVLink; unbounded otherwise. Computed once per call (p2p_channels reads the routes).
struct P2pChannelCaps {
  double net_Bps = 0;
  double nvlink_Bps = 0;
  double of(const Route& route) const {
    if (route.cls == PathClass::kNet) return net_Bps;
    if (route.cls != PathClass::kNvlink) return std::numeric_limits<double>::infinity();
    return nvlink_Bps;
  }
};

P2pChannelCaps p2p_channel_caps(const CommGraph& g, double bytes) {
  const double nvlink = g.nvlink_channel_Bps() > 0 ? p2p_channels(g, bytes) * p2p_channel_Bps(g)
                                                   : std::numeric_limits<double>::infinity();
  return {g.node_count() > 1 ? net_peer_cap_Bps(g) : std::numeric_limits<double>::infinity(),
          nvlink};
}

// nccl-tests' sendrecv: rank i sends its buffer to rank i+1 while receiving from i-1.
CostModel sendrecv_model(const CommGraph& g, Protocol p, double size_bytes, CostTrace* trace) {
  CostModel m;
  m.eligible = true;
  const int n = static_cast<int>(g.ranks().size());
  m.channels = g.channels();
  m.wire_factor = 1.0;
  m.latency_s = direct_latency_s(g, p, trace);
  StreamSet set(g.capacities());
  const P2pChannelCaps channel_caps = p2p_channel_caps(g, size_bytes);
  for (int a = 0; a < n; ++a) {
    Bottleneck why;
    const Route& r = g.route(a, (a + 1) % n);
    double cap = route_rate_cap(g.topology(), r, g.options().calibration, &why, &g.gdr_nics());
    const double channel_cap = channel_caps.of(r);
    if (channel_cap < cap) {
      cap = channel_cap;
      why = Bottleneck{};
      why.kind = BottleneckKind::kP2pChannels;
      why.size_bytes = size_bytes;
      why.family = r.cls == PathClass::kNet ? LinkFamily::kNetwork : LinkFamily::kNvlink;
      why.rate_Bps = cap;
    }
    if (n > 1) set.add(r, 1.0, cap, why);
  }
  StreamSet::Limit limit = set.limit();
  m.link_scale = direct_protocol_scale(p, limit.throughput_Bps, trace);
  m.bw_Bps = limit.throughput_Bps * m.link_scale;
  m.bottleneck = limit.bottleneck(g.topology(), /*name_family=*/false);
  if (trace != nullptr) {
    add_bottleneck_terms(g, m.bottleneck, trace->bandwidth.terms,
                         limit.by_link ? load_of(set.loads(), limit.link) : std::nullopt);
    if (m.bottleneck.kind == BottleneckKind::kP2pChannels &&
        m.bottleneck.family == LinkFamily::kNetwork) {
      trace->bandwidth.terms.push_back(count_term(
          "channels_net", net_peer_channels(g),
          g.options().nccl_version.at_least(2, 29)
              ? "max(NICs, ceil(NIC rate / 14 GB/s)) (NCCL 2.29+ paths.cc ncclTopoGetNchannels)"
              : "2, halved while 2 x ranks > 4 x p2p channels (NCCL <= 2.28 paths.cc)"));
      trace->bandwidth.terms.push_back(
          rate_term("B_channel", kP2pNetChannelBps, "NCCL_P2P_PER_CHANNEL_NET_BW"));
    } else if (m.bottleneck.kind == BottleneckKind::kP2pChannels) {
      trace->bandwidth.terms.push_back(
          count_term("channels_p2p", p2p_channels(g, size_bytes),
                     "the send's parts: the peer's channels halved while they x ranks exceed "
                     "the p2p channels, doubled while a part exceeds its most "
                     "(enqueue.cc addP2pToPlan; docs/model.md#p2p)"));
      trace->bandwidth.terms.push_back(
          rate_term("B_channel", p2p_channel_Bps(g),
                    "one channel over NVLink: a lane at its realized rate (docs/model.md#p2p)"));
      trace->bandwidth.notes.push_back(
          "T_pattern = channels_p2p x B_channel: a send over NVLink runs on few channels while "
          "it is small (calibration 57)");
    }
  }
  return m;
}

FlowOutcome direct_flows(const CommGraph& g, CollectiveOp op, const CostModel& m, double bytes,
                         JointFlows* joint) {
  const int n = static_cast<int>(g.ranks().size());
  Lowering low(g, m.link_scale, m.latency_s + m.fill_s, joint);
  if (op == CollectiveOp::kSendRecv) {
    for (int a = 0; a < n; ++a) low.send(a, (a + 1) % n, bytes);
  } else {
    check_size(double(n) * (n - 1), op);
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (a != b) low.send(a, b, bytes / n);
      }
    }
  }
  return low.run(m.bottleneck);
}

}  // namespace

AlgorithmOps direct_algorithm() {
  return {Algorithm::kDirect, "direct", "",
          [](const CommGraph&, CollectiveOp op) {
            return op == CollectiveOp::kAllToAll || op == CollectiveOp::kSendRecv;
          },
          [](const CommGraph& g, CollectiveOp op, Protocol p, double size_bytes, CostTrace* trace) {
            return op == CollectiveOp::kAllToAll ? alltoall_model(g, p, trace)
                                                 : sendrecv_model(g, p, size_bytes, trace);
          },
          [](const CommGraph& g, CollectiveOp op, const CostModel& m, double bytes, int,
             JointFlows* joint) { return direct_flows(g, op, m, bytes, joint);
          }};
}

}  // namespace linksim::detail
