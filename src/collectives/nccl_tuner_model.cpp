// SPDX-License-Identifier: Apache-2.0
// NCCL's estimates (docs/model.md#tuner): the graphs its search finds and its tuning tables.
#include "collectives/nccl_tuner_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "collectives/algorithm.hpp"
#include "collectives/model_common.hpp"
#include "collectives/nccl_tuner_tables.hpp"

namespace linksim::detail {
namespace {

// tuning.cc treeCorrectionFactor[proto][log2(size / 64 B)], 64 B to 512 MiB: the same 23
// columns in every release from v2.10.3-1 (v2.29.2-1 adds a 24th, read only by NVLSTree);
// ncclTopoGetAlgoTime applies it to Tree while logSize < 23.
constexpr std::array<std::array<double, 23>, 3> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0,
     1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9,
     1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
}};

// NCCL's MAXCHANNELS / 2: the most channels a ring search returns.
constexpr int kRingMaxChannels = 32;

const TunerTables& tables_of(const CommGraph& g) { return tuner_tables(g.options().nccl_version); }

// NCCL's per-NVLink constant (topo.h) on GPUs of `sm` as the communicator's release has it,
// bytes/s.
double tuner_nvlink_Bps(const CommGraph& g, int sm) {
  return sm >= 100 ? tables_of(g).sm100_nvlink_GBps * 1e9 : nccl_nvlink_bw_Bps(sm);
}

// Up to 2.17 (tuning.cc "model refinements"): every busbw at most 235 GB/s on the Ampere row,
// 370 on the Hopper row (2.17); 0 = no cap.
double total_cap(const TunerTables& t, int arch, double bus) {
  const double cap = t.total_bus_cap_GBps[arch];
  return cap > 0 ? std::min(bus, cap) : bus;
}

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
    if (realized > 0) bw *= tuner_nvlink_Bps(g, g.min_sm()) / realized;
  }
  return bw / 1e9;
}

// The NICs of one server at their line rate, GB/s (topo.h: speed in Mb/s / 8000).
double nic_budget_GBps(const CommGraph& g) {
  return g.node_count() > 1 ? g.node_network_Bps() / kNetworkEfficiency / 1e9 : 0.0;
}

// The catalog platform of the first rank's server's first CPU (NCCL's cpuArch and cpuVendor,
// topo.cc ncclTopoCpuType); the catalog's default where the server declares none.
const HostPlatform& first_host_platform(const CommGraph& g) {
  const Topology& t = g.topology();
  const std::optional<int> host = t.device(g.ranks().front()).host;
  const auto devices = t.devices();
  for (uint32_t i = 0; i < devices.size(); ++i) {
    if (devices[i].kind == DeviceKind::kCpu && devices[i].host == host) {
      return t.host_platform(DeviceId{i});
    }
  }
  return t.catalog().default_platform();
}

bool x86_host(const CommGraph& g) { return first_host_platform(g).arch == CpuArch::kX86; }

// NCCL's llMaxBw (tuning.cc ncclTopoTuneModel): on one server the GPU's row, across servers
// the CPU vendor's (AMD: 22.5 on two nodes, 19.0 beyond; others: 39.0, 20.4), GB/s.
double ll_max_GBps(const CommGraph& g, const TunerTables& t, int arch) {
  const int nodes = g.node_count();
  if (nodes <= 1) return t.ll_max_GBps[arch][0];
  const int vendor_row = first_host_platform(g).vendor == CpuVendor::kAmd ? 1 : 0;
  return t.ll_max_GBps[vendor_row][tuner_nodes_index(nodes)];
}

NcclEstimate ring_estimate(const CommGraph& g, CollectiveOp op, Protocol p, double latency_s) {
  const int n = static_cast<int>(g.ranks().size()), nodes = g.node_count();
  const SearchedGraph& graph = g.nccl_ring_graph();
  const TunerTables& t = tables_of(g);
  const int arch = tuner_arch_index(t, g.min_sm()), ni = tuner_nodes_index(nodes);
  double bus = total_cap(t, arch, graph.total_GBps());
  if (p == Protocol::kLL) {
    const double ll_max = ll_max_GBps(g, t, arch);
    // Up to 2.20: x 1/4 for AllReduce, Reduce or across servers, else x 1/3; then x 0.5.
    double factor = t.ring_ll_factor;
    if (factor < 0.5 && nodes == 1 && op != CollectiveOp::kAllReduce && op != CollectiveOp::kReduce) {
      factor = 1.0 / 3.0;
    }
    bus = std::min(ll_max, bus * factor);
  } else if (p == Protocol::kLL128) {
    const double ppn = double(n) / nodes;
    const double factor = t.ring_ll128_one_ppn_0_7 && ppn < 2 ? 0.7 : 0.92;
    bus = std::min(bus * factor, graph.channels * t.ring_ll128_per_ch_GBps[arch][ni]);
  }
  NcclEstimate e;
  e.enabled = bus > 0;
  e.channels = graph.channels;
  e.algbw_Bps = bus * 1e9 * n / nsteps(op, n);
  e.latency_s = latency_s;
  e.proto = p;
  // ncclTopoGetAlgoTime: the ring's plateau on several servers.
  if (p == Protocol::kSimple && nodes > 1 && op == CollectiveOp::kAllReduce) {
    e.plateau_factor = g.min_sm() >= t.plateau_split_sm ? t.plateau_high : t.plateau_low;
    e.plateau_from_bytes = t.plateau_per_channel ? 64.0 * graph.channels * n : 4096.0 * n;
  }
  return e;
}

// The tree graph's intra speed, GB/s. Its search (src/graph/search.cc ncclTopoCompute, pass 2:
// "increase bwIntra for trees (2 nodes or collnet)", every release from 2.10) starts from the
// ring's channels and speed and raises bwIntra alone, one search speed at a time, while it is
// below twice bwInter and the server's hops still carry every channel at it.
double tree_graph_bw_intra_GBps(const CommGraph& g, const SearchedGraph& ring) {
  const std::span<const double> speeds =
      search_speeds_GBps(g.min_sm(), true, g.options().nccl_version);
  const double budget = ring_intra_budget_GBps(g);
  double bw = ring.speed_GBps;
  // The speeds run fastest first: walk them from the slowest up.
  for (auto s = speeds.rbegin(); s != speeds.rend(); ++s) {
    if (*s <= bw + 1e-9) continue;
    if (bw >= 2 * ring.speed_GBps - 1e-9 || ring.channels * *s > budget + 1e-9) break;
    bw = *s;
  }
  return bw;
}

NcclEstimate tree_estimate(const CommGraph& g, Protocol p, double latency_s) {
  const int nodes = g.node_count();
  // The tree graph has the ring's channels (init.cc: tree min/max channels = ring's) and its
  // inter speed; on up to two servers the tuner reads its raised intra speed (tuning.cc:
  // `nNodes <= 2 ? bwIntra : bwInter`).
  const SearchedGraph& ring = g.nccl_ring_graph();
  const SearchedGraph graph =
      nodes <= 2 ? SearchedGraph{ring.channels, tree_graph_bw_intra_GBps(g, ring)} : ring;
  const TunerTables& t = tables_of(g);
  const int arch = tuner_arch_index(t, g.min_sm()), ni = tuner_nodes_index(nodes);
  double bus = std::min(total_cap(t, arch, graph.total_GBps()) * 0.92,
                        graph.channels * t.tree_per_ch_GBps[arch][ni]);
  if (p == Protocol::kLL) {
    bus = std::min(bus / 3.8, ll_max_GBps(g, t, arch));
  } else if (p == Protocol::kLL128) {
    bus = std::min(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                   graph.channels * t.tree_ll128_per_ch_GBps[arch][ni]);
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
  const TunerTables& t = tables_of(g);
  const int arch = tuner_arch_index(t, nv.sm);
  const double gpu_nvs_GBps =
      nv.gpu_nvlink_Bps / nv.lane_Bps * tuner_nvlink_Bps(g, nv.sm) / 1e9;
  const SearchedGraph graph =
      t.nvls_on_ring_graph ? g.nccl_ring_graph()
                           : nvls_search(nv.sm, gpu_nvs_GBps, ppn, nodes > 1, g.options().nccl_version);
  NcclEstimate e;
  if (graph.channels < 2) return e;
  // The NVLS graph's inter speed is its intra speed, bounded by each head's NIC.
  const double inter =
      nodes > 1 ? std::min(graph.speed_GBps, nic_budget_GBps(g) / graph.channels) : graph.speed_GBps;
  const bool all_reduce = op == CollectiveOp::kAllReduce;
  double algbw_GBps = 0;
  if (t.nvls_efficiency[arch] > 0) {
    // 2.28 on: NVLS busbw per channel by nvlsEfficiency, algbw = busbw x nRanks / nsteps.
    double intra = graph.speed_GBps * t.nvls_efficiency[arch] * (graph.channels - 1) / graph.channels;
    intra *= all_reduce ? 2.0 : (ppn - 1.0) / ppn;
    double bw = intra;
    if (nodes > 1) bw = std::min(bw, inter * (tree && nodes <= 2 ? 2.0 : 1.0));
    if (tree) bw = std::min(bw, t.nvls_tree_per_ch_GBps[arch][tuner_nodes_index(nodes)]);
    algbw_GBps = bw * graph.channels * n / nsteps(op, n);
  } else {
    // 2.17-2.27: bw = min(bwIntra, bwInter) (NVLSTree: bwInter / 2 beyond two nodes; 2.27's
    // AllGather / ReduceScatter: min(bwIntra x (ppn - 1) / ppn, bwInter x 0.9)); busbw =
    // channels x bw; AllReduce algbw = busbw x 0.75 (2.17) or 5/6 (2.18 on), the others none.
    double bw = std::min(graph.speed_GBps, tree && nodes > 2 ? inter / 2 : inter);
    if (!all_reduce && g.options().nccl_version.at_least(2, 27)) {
      bw = std::min(graph.speed_GBps * (ppn - 1.0) / ppn, inter * 0.9);
    }
    algbw_GBps = total_cap(t, arch, bw * graph.channels) * (all_reduce ? t.nvls_alg_ratio : 1.0);
  }
  e.enabled = algbw_GBps > 0;
  e.channels = graph.channels;
  e.algbw_Bps = algbw_GBps * 1e9;
  e.latency_s = latency_s;
  e.nvls_tree_corrected = tree && all_reduce && t.nvls_tree_correction_sm100_x86 &&
                          g.min_sm() >= 100 && x86_host(g);
  return e;
}

}  // namespace

std::span<const double> search_speeds_GBps(int sm, bool inter_node, NcclVersion v) {
  return tuner_search_speeds(tuner_tables(v), sm, inter_node);
}

SearchedGraph ring_search(int sm, double intra_GBps, double nic_GBps, int max_channels,
                          double max_path_GBps, NcclVersion v, int nic_count) {
  const bool inter = nic_GBps > 0;
  const std::span<const double> speeds = search_speeds_GBps(sm, inter, v);
  const double total = inter ? std::min(intra_GBps, nic_GBps) : intra_GBps;
  const double first = std::min(total, max_path_GBps);
  auto channels_at = [&](double s) {
    double c = std::floor(intra_GBps / s + 1e-9);
    if (inter && nic_count > 0) {
      c = std::min(c, nic_count * std::floor(nic_GBps / nic_count / s + 1e-9));
    } else if (inter) {
      c = std::min(c, std::floor(nic_GBps / s + 1e-9));
    }
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
  // Twice the channels at half the speed (search.cc): from 25 GB/s up to 2.15; 2.16-2.18 from
  // 25 GB/s up to SM80 and from 50 up to SM90 (none beyond); from 2.19 (ncclTopoDupChannels)
  // from 25 GB/s, but not on SM90+ below 50 GB/s with more than 4 channels.
  bool dup = best.speed_GBps >= 25;
  if (v.at_least(2, 19)) {
    dup = dup && !(sm > 80 && best.speed_GBps < 50 && best.channels > 4);
  } else if (v.at_least(2, 16)) {
    dup = (sm <= 80 && best.speed_GBps >= 25) || (sm <= 90 && best.speed_GBps >= 50);
  }
  if (dup) {
    const int doubled = std::min(best.channels * 2, max_channels);
    const int divisor = (doubled + best.channels - 1) / best.channels;
    best.speed_GBps /= divisor;
    best.channels = doubled;
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
    best = std::max(best, r.bw_Bps / lane * tuner_nvlink_Bps(g, g.min_sm()) / 1e9);
  }
  return best > 0 ? best : std::numeric_limits<double>::infinity();
}

SearchedGraph search_nccl_ring_graph(const CommGraph& g) {
  return ring_search(g.min_sm(), ring_intra_budget_GBps(g), nic_budget_GBps(g), kRingMaxChannels,
                     max_path_GBps(g), g.options().nccl_version,
                     g.node_count() > 1 ? g.node_nic_count() : 0);
}

SearchedGraph nvls_search(int sm, double gpu_nvs_GBps, int heads, bool inter_node, NcclVersion v) {
  heads = std::min(heads, kMaxNvlsArity);
  if (heads < 1 || !(gpu_nvs_GBps > 0)) return {};
  const std::span<const double> speeds = search_speeds_GBps(sm, inter_node, v);
  for (double s : speeds) {
    if (s * heads > gpu_nvs_GBps + 1e-9) continue;          // start: speed x channels <= total
    if ((heads + 1) * s <= gpu_nvs_GBps + 1e-9) return {heads, s};
  }
  return {};
}

double NcclEstimate::time_s(double size_bytes) const {
  const double lat = size_bytes >= plateau_from_bytes ? latency_s * plateau_factor : latency_s;
  if (!(size_bytes > 0)) return lat;
  double bw = tree ? algbw_Bps * tree_correction(proto, size_bytes) : algbw_Bps;
  if (nvls_tree_corrected) bw *= nvls_tree_correction(size_bytes);
  return lat + size_bytes / bw;
}

double nvls_tree_correction(double size_bytes) {
  // The 24th column v2.29.2-1 added: Simple 0.9 at floor(log2(size / 64 B)) = 23.
  const double units = std::floor(size_bytes / 64.0);
  const int index = units < 1 ? 0 : std::ilogb(units);
  if (index == 23) return 0.9;
  return index < 23 ? tree_correction(Protocol::kSimple, size_bytes) : 1.0;
}

double tree_correction(Protocol proto, double size_bytes) {
  const double units = std::floor(size_bytes / 64.0);
  // floor(log2(units)) for units >= 1: the binary exponent, exactly.
  const int index = units < 1 ? 0 : std::ilogb(units);
  if (index >= static_cast<int>(kTreeCorrection[0].size())) return 1.0;
  return kTreeCorrection[protocol_index(proto)][index];
}

// NCCL's latency of (algo, proto) for `op` with the constants `lat`, microseconds (tuning.cc
// ncclTopoTuneModel): Ring base + (nsteps - nInter) x max(intra, netOverhead) + nInter x NET
// (NET of the tree with one GPU per node when `ppn1_tree_net`); Tree base + 2 ((ppn - 1) x
// intra + log2(nodes) x NET); NVLS base + NVLink (+ NET across servers); NVLSTree base +
// NVLink + 2 log2(nodes) x NET (2 (nodes - 1) in 2.18). The closed form's formulas
// (algo_ring.cpp, algo_tree.cpp, algo_nvls.cpp), so that two constant sets differ only by
// their constants.
double nccl_latency_us(const TunerLatencies& lat, bool ppn1_tree_net, const CommGraph& g,
                       CollectiveOp op, Algorithm algo, Protocol p) {
  const int n = static_cast<int>(g.ranks().size()), nodes = g.node_count();
  const int i = protocol_index(p);
  const bool nvlink = g.ring().intra_class == HopClass::kNvlink;
  const double log2_nodes = std::log2(static_cast<double>(nodes));
  switch (algo) {
    case Algorithm::kRing: {
      const int steps = nsteps(op, n);
      const int inter = nodes <= 1 ? 0 : op == CollectiveOp::kAllReduce ? 2 * (nodes - 1) : nodes - 1;
      double intra = nvlink ? lat.nvlink_ring[i] : lat.pci_ring[i];
      if (nodes > 1) intra = std::max(intra, kLat.net_overhead_us * (p == Protocol::kSimple ? 3 : 1));
      const double net = ppn1_tree_net && n == nodes ? lat.net_tree[i] : lat.net_ring[i];
      return lat.base_ring[i] + (steps - inter) * intra + inter * net;
    }
    case Algorithm::kTree: {
      const double ppn = double(n) / nodes;
      const double intra = nvlink ? lat.nvlink_tree[i] : lat.pci_tree[i];
      return lat.base_tree[i] + 2.0 * ((ppn - 1) * intra + log2_nodes * lat.net_tree[i]);
    }
    case Algorithm::kNvls:
      return lat.nvls_base_us + lat.nvls_nvlink_us + (nodes > 1 ? lat.nvls_net_us : 0.0);
    case Algorithm::kNvlsTree:
      return lat.nvls_tree_base_us + lat.nvls_tree_nvlink_us +
             (lat.nvls_tree_net_linear ? 2.0 * (nodes - 1) : 2.0 * log2_nodes) * lat.nvls_tree_net_us;
    default: return 0;
  }
}

// What the release's latency constants add to the closed form's NCCL-table latency (which
// has the constants of kClosedFormLatencies), seconds.
double release_latency_delta_s(const CommGraph& g, CollectiveOp op, Algorithm algo, Protocol p) {
  // Ring Broadcast and Reduce take the realized model as their estimate.
  if (algo == Algorithm::kRing && (op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce)) {
    return 0;
  }
  const NcclVersion v = g.options().nccl_version;
  const double release = nccl_latency_us(tuner_latencies(v), tuner_tables(v).ring_ppn1_tree_net_latency,
                                         g, op, algo, p);
  const double closed_form =
      nccl_latency_us(tuner_latencies(kClosedFormLatencies), false, g, op, algo, p);
  return (release - closed_form) * 1e-6;
}

NcclEstimate nccl_estimate(const CommGraph& g, CollectiveOp op, Algorithm algo, Protocol proto,
                           const CostModel& realized) {
  NcclEstimate e;
  if (!realized.eligible) return e;
  // NCCL's own latency: the closed form's NCCL-table part, without linksim's launch overhead
  // and latency overrides (which NCCL does not know) — the same for every pair.
  const double table_latency_s =
      realized.table_latency_s + release_latency_delta_s(g, op, algo, proto);
  const bool one_rank = g.ranks().size() < 2;
  if (proto == Protocol::kLL128 && (algo == Algorithm::kRing || algo == Algorithm::kTree) &&
      !tuner_ll128_arch_enabled(g.options().nccl_version, g.min_sm())) {
    return e;  // the release leaves LL128 off on these GPUs: no bandwidth in its table
  }
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
