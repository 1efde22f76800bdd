// SPDX-License-Identifier: Apache-2.0
// NCCL's estimates (docs/model.md#tuner): the graphs its search finds and its tuning tables.
#include "collectives/nccl_tuner_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "collectives/algorithm.hpp"
#include "collectives/model_common.hpp"

namespace linksim::detail {
namespace {

// search.cc: per-channel speeds NCCL tries, GB/s, fastest first.
constexpr double kSpeedsIntra[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
constexpr double kSpeedsInter[] = {48, 30, 28, 24, 20, 18, 15, 12, 10, 9,
                                   7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12};
constexpr double kSm90SpeedsIntra[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
constexpr double kSm90SpeedsInter[] = {48, 45, 42, 40, 30, 24, 22, 20, 17.5,
                                       15, 12, 6,  3,  2.4, 1.2, 0.24, 0.12};
constexpr double kSm100SpeedsIntra[] = {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
constexpr double kSm100SpeedsInter[] = {96, 86, 80, 48, 45.1, 42, 40, 30, 24, 22,
                                        20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};

// tuning.cc treeCorrectionFactor[proto][log2(size / 64 B)], 64 B to 512 MiB.
constexpr std::array<std::array<double, 24>, 3> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0,
     1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9,
     1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9,
     .9},
}};

// NCCL's MAXCHANNELS / 2: the most channels a ring search returns.
constexpr int kRingMaxChannels = 32;

// tuning.cc per-architecture caps, GB/s, indexed [Volta, Ampere, Hopper, Blackwell][N1, N2, N4+].
constexpr double kPerChMaxTreeBw[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
constexpr double kPerChMaxTreeLL128Bw[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kPerChMaxNvlsTreeBw[4][3] = {
    {0, 0, 0}, {0, 0, 0}, {0, 57.7, 45.5}, {0, 96.0, 80.0}};
// tuning.cc nvlsEfficiency: Hopper 0.85, Blackwell 0.74 (none before).
constexpr double kNvlsEfficiency[4] = {0, 0, 0.85, 0.74};

int arch_index(int sm) { return sm >= 100 ? 3 : sm >= 90 ? 2 : sm >= 80 ? 1 : 0; }
int nodes_index(int nodes) { return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2; }

int nsteps(CollectiveOp op, int n) {
  if (op == CollectiveOp::kAllReduce) return 2 * (n - 1);
  if (op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter) return n - 1;
  return n;
}

// NCCL's per-GPU budget for a ring through the server, GB/s: the ring's rate over NCCL's own
// link constants. linksim's effective NVLink capacity is its realized rate; NCCL's search
// counts topo.h's per-link constant instead.
double ring_intra_budget_GBps(const CommGraph& g) {
  double bw = g.ring().intra_throughput_Bps;
  if (g.ring().intra_class == HopClass::kNvlink) {
    const double realized = g.nvlink_lane_Bps() * g.nvlink_efficiency();
    if (realized > 0) bw *= nccl_nvlink_bw_Bps(g.min_sm()) / realized;
  }
  return bw / 1e9;
}

// The NICs of one server at their line rate, GB/s (topo.h: speed in Mb/s / 8000).
double nic_budget_GBps(const CommGraph& g) {
  return g.node_count() > 1 ? g.node_network_Bps() / kNetworkEfficiency / 1e9 : 0.0;
}

NcclEstimate ring_estimate(const CommGraph& g, CollectiveOp op, Protocol p, double latency_s) {
  const int n = static_cast<int>(g.ranks().size()), nodes = g.node_count();
  const SearchedGraph& graph = g.nccl_ring_graph();
  const ArchCaps caps = arch_caps(g.min_sm());
  double bus = graph.total_GBps();
  if (p == Protocol::kLL) {
    bus = std::min(nodes > 1 ? caps.ll_max_multi_node_GBps : caps.ll_max_single_node_GBps,
                   bus * kEff.ll);
  } else if (p == Protocol::kLL128) {
    const double ppn = double(n) / nodes;
    bus = std::min(bus * (ppn < 2 ? 0.7 : 0.92), graph.channels * caps.ll128_per_channel_GBps);
  }
  NcclEstimate e;
  e.enabled = bus > 0;
  e.channels = graph.channels;
  e.algbw_Bps = bus * 1e9 * n / nsteps(op, n);
  e.latency_s = latency_s;
  e.proto = p;
  // ncclTopoGetAlgoTime: the ring's plateau on several servers (x1.4 from SM80, 1.9 before).
  if (p == Protocol::kSimple && nodes > 1 && op == CollectiveOp::kAllReduce) {
    e.plateau_factor = g.min_sm() >= 80 ? 1.4 : 1.9;
    e.plateau_from_bytes = 64.0 * graph.channels * n;
  }
  return e;
}

NcclEstimate tree_estimate(const CommGraph& g, Protocol p, double latency_s) {
  const int nodes = g.node_count();
  // The tree graph has the ring's channels (init.cc: tree min/max channels = ring's).
  const SearchedGraph& graph = g.nccl_ring_graph();
  const int arch = arch_index(g.min_sm()), ni = nodes_index(nodes);
  double bus = std::min(graph.total_GBps() * 0.92, graph.channels * kPerChMaxTreeBw[arch][ni]);
  if (p == Protocol::kLL) {
    bus = std::min(bus / 3.8, arch_caps(g.min_sm()).ll_max_multi_node_GBps);
  } else if (p == Protocol::kLL128) {
    bus = std::min(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                   graph.channels * kPerChMaxTreeLL128Bw[arch][ni]);
  }
  NcclEstimate e;
  e.enabled = bus > 0;
  e.channels = graph.channels;
  e.algbw_Bps = bus * 1e9 * kEff.tree_bus_to_alg;
  e.latency_s = latency_s;
  e.proto = p;
  e.tree = true;
  return e;
}

NcclEstimate nvls_estimate(const CommGraph& g, CollectiveOp op, bool tree, double latency_s) {
  const NvlsInfo& nv = g.nvls();
  const int n = static_cast<int>(g.ranks().size()), nodes = g.node_count();
  const int ppn = g.min_ranks_per_node();
  const int arch = arch_index(nv.sm);
  const double gpu_nvs_GBps =
      nv.gpu_nvlink_Bps / nv.lane_Bps * nccl_nvlink_bw_Bps(nv.sm) / 1e9;
  const SearchedGraph graph = nvls_search(nv.sm, gpu_nvs_GBps, ppn, nodes > 1);
  NcclEstimate e;
  if (graph.channels < 2) return e;
  double intra = graph.speed_GBps * kNvlsEfficiency[arch] * (graph.channels - 1) / graph.channels;
  intra *= op == CollectiveOp::kAllReduce ? 2.0 : (ppn - 1.0) / ppn;
  double bw = intra;
  if (nodes > 1) {
    // The NVLS graph's inter speed is its intra speed, bounded by each head's NIC.
    const double nic_per_head = nic_budget_GBps(g) / graph.channels;
    const double inter = std::min(graph.speed_GBps, nic_per_head) * (tree && nodes <= 2 ? 2.0 : 1.0);
    bw = std::min(bw, inter);
  }
  if (tree) bw = std::min(bw, kPerChMaxNvlsTreeBw[arch][nodes_index(nodes)]);
  const double bus = bw * graph.channels;
  e.enabled = bus > 0;
  e.channels = graph.channels;
  e.algbw_Bps = bus * 1e9 * n / nsteps(op, n);
  e.latency_s = latency_s;
  return e;
}

}  // namespace

std::span<const double> search_speeds_GBps(int sm, bool inter_node) {
  if (sm >= 100) return inter_node ? std::span<const double>(kSm100SpeedsInter) : kSm100SpeedsIntra;
  if (sm >= 90) return inter_node ? std::span<const double>(kSm90SpeedsInter) : kSm90SpeedsIntra;
  return inter_node ? std::span<const double>(kSpeedsInter) : kSpeedsIntra;
}

SearchedGraph ring_search(int sm, double intra_GBps, double nic_GBps, int max_channels,
                          double max_path_GBps) {
  const bool inter = nic_GBps > 0;
  const std::span<const double> speeds = search_speeds_GBps(sm, inter);
  const double total = inter ? std::min(intra_GBps, nic_GBps) : intra_GBps;
  const double first = std::min(total, max_path_GBps);
  auto channels_at = [&](double s) {
    double c = std::floor(intra_GBps / s + 1e-9);
    if (inter) c = std::min(c, std::floor(nic_GBps / s + 1e-9));
    return static_cast<int>(std::min<double>(c, max_channels));
  };
  size_t i = 0;
  while (i + 1 < speeds.size() && speeds[i] > first + 1e-9) ++i;
  SearchedGraph best;
  for (; i < speeds.size(); ++i) {
    const int c = channels_at(speeds[i]);
    if (c > 0 && c * speeds[i] > best.total_GBps()) best = {c, speeds[i]};
    if (best.channels > 0 && best.total_GBps() >= total - 1e-9) break;
    if (best.channels > 0 && i + 1 < speeds.size() && speeds[i + 1] / best.speed_GBps <= 0.49) break;
  }
  if (best.channels == 0) return {1, speeds.back()};
  // ncclTopoDupChannels: twice the channels at half the speed (not on Hopper+ below 50 GB/s
  // with more than 4 channels).
  if (best.speed_GBps >= 25 && !(sm > 80 && best.speed_GBps < 50 && best.channels > 4)) {
    const int dup = std::min(best.channels * 2, max_channels);
    const int divisor = (dup + best.channels - 1) / best.channels;
    best.speed_GBps /= divisor;
    best.channels = dup;
  }
  return best;
}

// NCCL's maxBw: across servers the GPU's NIC at line rate; on one server the best GPU-GPU
// path (NVLink at NCCL's per-link constant; through NVSwitches, all of the GPU's links).
double max_path_GBps(const CommGraph& g) {
  if (g.node_count() > 1) return nic_budget_GBps(g) / std::max(1, g.node_nic_count());
  double best = 0;
  const double lane = g.nvlink_lane_Bps();
  for (size_t b = 1; b < g.ranks().size(); ++b) {
    const Route& r = g.route(0, static_cast<int>(b));
    if (r.cls != PathClass::kNvlink || !(lane > 0)) return std::numeric_limits<double>::infinity();
    best = std::max(best, r.bw_Bps / lane * nccl_nvlink_bw_Bps(g.min_sm()) / 1e9);
  }
  return best > 0 ? best : std::numeric_limits<double>::infinity();
}

SearchedGraph search_nccl_ring_graph(const CommGraph& g) {
  return ring_search(g.min_sm(), ring_intra_budget_GBps(g), nic_budget_GBps(g), kRingMaxChannels,
                     max_path_GBps(g));
}

SearchedGraph nvls_search(int sm, double gpu_nvs_GBps, int heads, bool inter_node) {
  heads = std::min(heads, kMaxNvlsArity);
  if (heads < 1 || !(gpu_nvs_GBps > 0)) return {};
  const std::span<const double> speeds = search_speeds_GBps(sm, inter_node);
  for (double s : speeds) {
    if (s * heads > gpu_nvs_GBps + 1e-9) continue;          // start: speed x channels <= total
    if ((heads + 1) * s <= gpu_nvs_GBps + 1e-9) return {heads, s};
  }
  return {};
}

double NcclEstimate::time_s(double size_bytes) const {
  const double lat = size_bytes >= plateau_from_bytes ? latency_s * plateau_factor : latency_s;
  if (!(size_bytes > 0)) return lat;
  const double bw = tree ? algbw_Bps * tree_correction(proto, size_bytes) : algbw_Bps;
  return lat + size_bytes / bw;
}

double tree_correction(Protocol proto, double size_bytes) {
  const double units = std::floor(size_bytes / 64.0);
  // floor(log2(units)) for units >= 1: the binary exponent, exactly.
  const int index = units < 1 ? 0 : std::ilogb(units);
  if (index >= static_cast<int>(kTreeCorrection[0].size())) return 1.0;
  return kTreeCorrection[protocol_index(proto)][index];
}

NcclEstimate nccl_estimate(const CommGraph& g, CollectiveOp op, Algorithm algo, Protocol proto,
                           const CostModel& realized) {
  NcclEstimate e;
  if (!realized.eligible) return e;
  // NCCL's own latency: the closed form's NCCL-table part, without linksim's launch overhead
  // and latency overrides (which NCCL does not know) — the same for every pair.
  const double table_latency_s = realized.table_latency_s;
  const bool one_rank = g.ranks().size() < 2;
  if (!one_rank) {
    switch (algo) {
      case Algorithm::kRing:
        if (op != CollectiveOp::kBroadcast && op != CollectiveOp::kReduce) {
          return ring_estimate(g, op, proto, table_latency_s);
        }
        break;
      case Algorithm::kTree: return tree_estimate(g, proto, table_latency_s);
      case Algorithm::kNvls: return nvls_estimate(g, op, false, table_latency_s);
      case Algorithm::kNvlsTree: return nvls_estimate(g, op, true, table_latency_s);
      default: break;
    }
  }
  e.enabled = true;
  e.proto = proto;
  e.channels = realized.channels;
  e.latency_s = table_latency_s + realized.table_fill_s;
  e.algbw_Bps = realized.bw_Bps / realized.wire_factor;
  return e;
}

}  // namespace linksim::detail
