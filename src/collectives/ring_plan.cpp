// SPDX-License-Identifier: Apache-2.0
// CommGraph::plan_rings: the rings of a communicator and their throughput
// (docs/model.md#rings).
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "collectives/comm_graph.hpp"
#include "collectives/link_efficiency.hpp"
#include "collectives/route_caps.hpp"
#include "collectives/route_shapes.hpp"
#include "collectives/ring_search.hpp"

namespace linksim::detail {
namespace {

constexpr double kMinExtraRingFraction = 0.2;
constexpr int kMaxPackedRings = 16;
// Equal-speed channels (pack_equal_speed_channels): searched on servers of at most this many
// ranks, at the first ring's rate divided by 1..kMaxChannelSplit, each split within a budget
// of hop trials; adopted only when they beat the greedy packing by more than kBetterBy.
constexpr int kMaxMeshSearchRanks = 9;
constexpr int kMaxChannelSplit = 4;
constexpr long kMeshSearchSteps = 1L << 16;
constexpr double kBetterBy = 1e-6;

// `residual`: per-link capacities by link id (a std::vector<double> or LinkCapacities).
template <class Capacities>
double hop_rate_on(const Topology& t, const ModelCalibration& calibration, const Route& route,
                   const Capacities& residual, const GdrNics& gdr_nics) {
  double rate = std::numeric_limits<double>::infinity();
  for (const Path& p : route.paths) {
    double path_rate = std::numeric_limits<double>::infinity();
    for (LinkId id : p.links) path_rate = std::min(path_rate, residual[id.value] / p.share);
    rate = std::min(rate, path_rate);
  }
  return std::max(0.0, std::min(rate, route_rate_cap(t, route, calibration, nullptr, &gdr_nics)));
}

}  // namespace

void CommGraph::add_ring_streams(StreamSet& set, const std::vector<int>& ring, double weight) const {
  // A ring over servers crosses the network once per server: its hops' routes and caps repeat
  // per shape (RouteShapes, RouteCaps).
  RouteCaps caps(topology_, options_.calibration, &gdr_nics_, network_legs_by_link_id());
  RouteShapes shapes(*this);
  add_ring_hops(set, ring, weight, caps, shapes, nullptr);
}

void CommGraph::plan_tree_chain(const std::vector<int>& order) {
  if (order.size() < 2) {
    ring_.tree_chain_throughput_Bps = std::numeric_limits<double>::infinity();
    return;
  }
  // Each neighbour pair of the chain as a two-rank ring: the hop up and the hop down, each
  // carrying S per byte of S (both trees of NCCL's double binary tree run the same chain,
  // each with S / 2 up and S / 2 down).
  StreamSet set(capacities());
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    add_ring_streams(set, {order[i], order[i + 1]}, 1.0);
  }
  const StreamSet::Limit limit = set.limit();
  ring_.tree_chain_throughput_Bps = limit.throughput_Bps;
  ring_.tree_chain_bottleneck = limit.bottleneck(topology_);
}

bool CommGraph::add_ring_hops(StreamSet& set, const std::vector<int>& ring, double weight,
                              RouteCaps& caps, RouteShapes& shapes, const TwinLinks* twins) const {
  Route scratch;
  for (size_t i = 0; ring.size() > 1 && i < ring.size(); ++i) {
    const int a = ring[i];
    const int b = ring[(i + 1) % ring.size()];
    bool same_server = false;  // asked with twins only
    if (twins) {
      // A twin server's own hops load only its block: skipped.
      const std::optional<int> server = server_of(topology_, ranks_[size_t(a)]);
      same_server = server == server_of(topology_, ranks_[size_t(b)]);
      if (same_server && !twins->loads_host(uint32_t(*server))) continue;
    }
    // Inside a server, the host-0 route the server repeats, uncopied and uncapped.
    if (const auto host = uncapped_server_route(a, b)) {
      set.add(*host->local, weight, std::numeric_limits<double>::infinity(), Bottleneck{},
              host->link_offset);
      continue;
    }
    // Twins need every server's hops to repeat host 0's (or the shapes' for hops between
    // servers): not so for a staged copy, whose cap reads its own server's CPU.
    if (same_server) return false;
    // A hop between servers or a staged copy, unsummarized (the set reads its paths and cap
    // alone), into one scratch route reused hop after hop: from the shapes' table when it
    // answers, the cap's mechanism then asked of RouteCaps only for a finite cap
    // (StreamSet::add reads it for those alone).
    Bottleneck why;
    double cap = 0;
    if (shapes.route(a, b, caps, &scratch, &cap)) {
      if (cap < std::numeric_limits<double>::infinity()) caps.cap(scratch, &why);
      if (twins) {
        set.add_kept(scratch, weight, cap, why, *twins);
      } else {
        set.add(scratch, weight, cap, why);
      }
      continue;
    }
    if (twins) return false;  // the router's own route may leave the shape's legs
    const Route& r = route_paths(a, b, &scratch);
    cap = caps.cap(r, &why);
    set.add(r, weight, cap, why);
  }
  return true;
}

std::optional<StreamSet::Limit> CommGraph::twin_rings_limit() const {
  // Every ring visits the servers in node order, each server's ranks in the same local order
  // (rotated per ring). Server s > 1 then receives, in every ring, the same additions as
  // server 1 (the hop from its predecessor, its own hops, the hop to its successor) on its
  // copy of each link, in the same order, later: its loads are server 1's, and each of its
  // links is touched first after server 1's copy, so StreamSet::limit (the first link of
  // least throughput in first-touch order) never names it. Server 0 receives its ring's last
  // hop after its own, so it is loaded in full, as is the fabric.
  if (nodes_.size() < 3 || !network_legs_by_link_id()) return std::nullopt;
  const uint64_t per_host = topology_.devices_per_host();
  const uint64_t block_devices = per_host * uint64_t(topology_.host_count());
  const auto local_of = [&](int rank) { return ranks_[size_t(rank)].value % per_host; };
  const std::vector<int>& first_ring = ring_.rings.front();
  const size_t m = nodes_[0].size();
  for (const auto& node : nodes_) {
    if (node.size() != m) return std::nullopt;
  }
  for (size_t i = 0; i < first_ring.size(); ++i) {
    if (ranks_[size_t(first_ring[i])].value >= block_devices) return std::nullopt;
    if (local_of(first_ring[i]) != local_of(first_ring[i % m])) return std::nullopt;
  }
  TwinLinks twins;
  twins.links_per_host = topology_.links_per_host();
  twins.block_links = twins.links_per_host * uint32_t(topology_.host_count());
  twins.first_host = uint32_t(*server_of(topology_, ranks_[size_t(first_ring[0])]));
  twins.second_host = uint32_t(*server_of(topology_, ranks_[size_t(first_ring[m])]));
  RouteCaps caps(topology_, options_.calibration, &gdr_nics_, network_legs_by_link_id());
  RouteShapes shapes(*this);
  StreamSet set(capacities());
  for (size_t k = 0; k < ring_.rings.size(); ++k) {
    if (!add_ring_hops(set, ring_.rings[k], ring_.weights[k], caps, shapes, &twins)) {
      return std::nullopt;
    }
  }
  return set.limit();
}

CommGraph::ServerRings CommGraph::pack_rings_greedily(const std::vector<int>& first_ring) const {
  // Rings one after another while links have capacity left, each the best cycle on what the
  // previous ones left (NCCL builds several channels on meshes such as DGX-1's cube mesh).
  ServerRings out;
  std::vector<double> residual = capacities().to_vector();
  const auto& node = nodes_[0];
  for (int k = 0; k < kMaxPackedRings; ++k) {
    std::vector<int> ring = first_ring;
    if (k > 0) {
      ring.clear();
      const auto order = best_cycle(static_cast<int>(node.size()), [&](int a, int b) {
        double rate = 0;
        with_route(node[a], node[b], [&](const Route& r) {
          rate = hop_rate_on(topology_, options_.calibration, r, residual, gdr_nics_);
        });
        return rate;
      });
      for (int pos : order) ring.push_back(node[pos]);
    }
    StreamSet set(residual);
    add_ring_streams(set, ring, 1.0);
    const StreamSet::Limit limit = set.limit();
    if (k == 0) out.bottleneck = limit.bottleneck(topology_);
    if (k > 0 && limit.throughput_Bps < kMinExtraRingFraction * out.rates.front()) break;
    if (!(limit.throughput_Bps > 0)) break;
    out.rates.push_back(limit.throughput_Bps);
    out.rings.push_back(ring);
    for (size_t i = 0; i < ring.size(); ++i) {
      for (const Path& p : route(ring[i], ring[(i + 1) % ring.size()]).paths) {
        for (LinkId id : p.links) {
          residual[id.value] = std::max(0.0, residual[id.value] - limit.throughput_Bps * p.share);
        }
      }
    }
    if (!limit.by_link) {  // capped by host staging: more rings add nothing
      out.link_bound = false;
      break;
    }
  }
  return out;
}

std::optional<CommGraph::ServerRings> CommGraph::pack_equal_speed_channels(
    const ServerRings& greedy) const {
  // NCCL's search asks for as many channels as fit at one speed and lowers the speed when
  // few do (search.cc ncclTopoCompute); several slower rings can then use every lane of a
  // mesh where full-speed rings cannot (a 4-GPU full mesh has no set of directed Hamiltonian
  // cycles using each hop once: Tillson's theorem). Only for direct P2P hops on a link-bound
  // plan below what the GPUs can send.
  const auto& node = nodes_[0];
  const int n = static_cast<int>(node.size());
  if (n < 3 || n > kMaxMeshSearchRanks || !greedy.link_bound || greedy.rates.empty()) {
    return std::nullopt;
  }
  std::map<uint32_t, int> ledger_link;  // LinkId -> ledger index
  std::vector<uint32_t> link_of;
  std::vector<std::vector<std::pair<uint32_t, double>>> hops(size_t(n * n));
  std::vector<std::set<uint32_t>> first_links(static_cast<size_t>(n));  // by rank: links its hops leave on
  bool direct = true;
  for (int a = 0; a < n && direct; ++a) {
    for (int b = 0; b < n && direct; ++b) {
      if (a == b) continue;
      with_route(node[a], node[b], [&](const Route& r) {
        if (r.transport != Transport::kP2p ||
            route_rate_cap(topology_, r, options_.calibration, nullptr, &gdr_nics_) <
                std::numeric_limits<double>::infinity()) {
          direct = false;
          return;
        }
        for (const Path& p : r.paths) {
          if (p.links.empty()) continue;
          first_links[size_t(a)].insert(p.links.front().value);
          for (LinkId id : p.links) hops[size_t(a * n + b)].emplace_back(id.value, p.share);
        }
      });
    }
  }
  if (!direct) return std::nullopt;
  double egress_Bps = std::numeric_limits<double>::infinity();
  for (const auto& links : first_links) {
    double sum = 0;
    for (uint32_t id : links) sum += capacities()[id];
    egress_Bps = std::min(egress_Bps, sum);
  }
  double greedy_total = 0;
  for (double r : greedy.rates) greedy_total += r;
  if (!(greedy_total < egress_Bps * (1 - kBetterBy))) return std::nullopt;

  ChannelLedger base;
  base.n = n;
  base.hop_loads.resize(hops.size());
  for (size_t h = 0; h < hops.size(); ++h) {
    for (const auto& [id, share] : hops[h]) {
      auto [it, added] = ledger_link.emplace(id, static_cast<int>(link_of.size()));
      if (added) link_of.push_back(id);
      base.hop_loads[h].emplace_back(it->second, share);
    }
  }
  std::optional<ServerRings> best;
  double best_total = greedy_total * (1 + kBetterBy);
  for (int split = 1; split <= kMaxChannelSplit; ++split) {
    const double channel_Bps = greedy.rates.front() / split;
    ChannelLedger ledger = base;
    ledger.free_channels.clear();
    for (uint32_t id : link_of) ledger.free_channels.push_back(capacities()[id] / channel_Bps);
    const int most = std::min(kMaxPackedRings, static_cast<int>(egress_Bps / channel_Bps + 1e-9));
    const auto channels = pack_equal_channels(most, kMeshSearchSteps, std::move(ledger));
    if (channels.empty()) continue;
    ServerRings candidate;
    StreamSet set(capacities());
    for (const auto& order : channels) {
      std::vector<int> ring;
      for (int pos : order) ring.push_back(node[pos]);
      add_ring_streams(set, ring, 1.0 / static_cast<double>(channels.size()));
      candidate.rings.push_back(std::move(ring));
    }
    const StreamSet::Limit limit = set.limit();
    if (!(limit.throughput_Bps > best_total)) continue;
    best_total = limit.throughput_Bps;
    candidate.rates.assign(channels.size(), limit.throughput_Bps / static_cast<double>(channels.size()));
    candidate.bottleneck = limit.bottleneck(topology_);
    best = std::move(candidate);
  }
  return best;
}

void CommGraph::plan_rings() {
  const int n_nodes = node_count();
  if (ranks_.size() == 1) {
    ring_.rings = {{0}};
    ring_.weights = {1.0};
    ring_.throughput_Bps = std::numeric_limits<double>::infinity();
    ring_.intra_throughput_Bps = ring_.throughput_Bps;
    ring_.bottleneck = Bottleneck{};  // kNone
    return;
  }
  // Order each server's ranks; servers with the same local shape share one search.
  std::map<std::vector<uint32_t>, std::vector<int>> order_of_shape;
  std::vector<std::vector<int>> node_order(n_nodes);
  for (int k = 0; k < n_nodes; ++k) {
    const auto& node = nodes_[k];
    std::vector<uint32_t> shape;
    int host = topology_.device(ranks_[node[0]]).host.value_or(0);
    for (int r : node) shape.push_back(ranks_[r].value - topology_.host_device_offset(host));
    auto it = order_of_shape.find(shape);
    if (it == order_of_shape.end()) {
      auto order = best_cycle(static_cast<int>(node.size()), [&](int a, int b) {
        // Every pair is rated once: visited, not cached (a cache would hold n^2 routes).
        double rate = 0;
        with_route(node[a], node[b],
                   [&](const Route& r) { rate = hop_rate_on(topology_, options_.calibration, r, capacities(), gdr_nics_); });
        return rate;
      });
      it = order_of_shape.emplace(shape, order).first;
    }
    for (int pos : it->second) node_order[k].push_back(node[pos]);
  }

  auto classify_hops = [&](const std::vector<int>& ring) {
    // Class and transport alone: a hop between servers is a network route (Router::route),
    // which counts for neither; a hop inside one is its server's copy of host 0's route.
    for (size_t i = 0; i < ring.size(); ++i) {
      const auto host = router_.host_route(ranks_[size_t(ring[i])],
                                           ranks_[size_t(ring[(i + 1) % ring.size()])]);
      if (!host) continue;
      const Route& r = *host->local;
      if (r.transport == Transport::kNet) continue;
      if (r.cls != PathClass::kNvlink) ring_.intra_class = HopClass::kPcie;
      if (r.transport == Transport::kShm || r.cls != PathClass::kNvlink) ring_.uses_p2p_only = false;
    }
  };

  if (n_nodes == 1) {
    ServerRings server = pack_rings_greedily(node_order[0]);
    if (auto equal = pack_equal_speed_channels(server)) server = std::move(*equal);
    double total = 0;
    for (double r : server.rates) total += r;
    ring_.rings = std::move(server.rings);
    for (double r : server.rates) ring_.weights.push_back(r / total);
    ring_.throughput_Bps = total;
    ring_.intra_throughput_Bps = total;
    ring_.bottleneck = server.bottleneck;
    classify_hops(ring_.rings.front());
    return;
  }

  // Several servers: NCCL's rings span servers, each ring entering and leaving every server
  // through a different GPU (and so a different NIC: rails) where the GPUs have NVLink: each
  // server's order rotated. Where they have PCIe alone, NCCL's search keeps its first order:
  // every ring passes each GPU's one PCIe link, so one channel at the fastest speed its paths
  // allow carries what differently ordered ones would (search.cc ncclTopoCompute stops once
  // `nChannels x bwInter >= totalBw`, totalBw the larger of a GPU's PCIe link and its NVLinks
  // summed), and ncclTopoDupChannels copies it: every channel runs the one order, each hop in
  // one direction (docs/model.md#rings). The order's own hops tell: the best cycle takes an
  // NVLink hop wherever a GPU has one.
  const std::vector<int>& first_order = node_order[0];
  bool nvlink_between_gpus = false;
  for (size_t i = 0; first_order.size() > 1 && i < first_order.size() && !nvlink_between_gpus;
       ++i) {
    with_route_paths(first_order[i], first_order[(i + 1) % first_order.size()],
                     [&](const Route& r) { nvlink_between_gpus = r.cls == PathClass::kNvlink; });
  }
  const int rotations = nvlink_between_gpus ? static_cast<int>(first_order.size()) : 1;
  for (int r = 0; r < rotations; ++r) {
    std::vector<int> ring;
    for (const auto& order : node_order) {
      const int m = static_cast<int>(order.size());
      for (int i = 0; i < m; ++i) ring.push_back(order[(r + i) % m]);
    }
    ring_.rings.push_back(std::move(ring));
    ring_.weights.push_back(1.0 / rotations);
  }
  StreamSet intra(capacities());
  add_ring_streams(intra, node_order[0], 1.0);
  ring_.intra_throughput_Bps = node_order[0].size() > 1 ? intra.limit().throughput_Bps
                                                        : std::numeric_limits<double>::infinity();
  plan_tree_chain(node_order[0]);
  std::optional<StreamSet::Limit> limit = twin_rings_limit();
  if (!limit) {
    StreamSet set(capacities());
    for (size_t k = 0; k < ring_.rings.size(); ++k) add_ring_streams(set, ring_.rings[k], ring_.weights[k]);
    limit = set.limit();
  }
  ring_.throughput_Bps = limit->throughput_Bps;
  ring_.bottleneck = limit->bottleneck(topology_);
  classify_hops(ring_.rings.front());
}

const std::vector<std::pair<LinkId, double>>& CommGraph::ring_link_loads() const {
  // Every ring with its weight, as plan_rings adds them (the same streams in the same order,
  // so the same doubles in the same first-touch order).
  std::call_once(ring_link_loads_once_, [&] {
    StreamSet all(capacities());
    for (size_t k = 0; k < ring_.rings.size(); ++k) {
      add_ring_streams(all, ring_.rings[k], ring_.weights[k]);
    }
    ring_link_loads_ = all.loads();
  });
  return ring_link_loads_;
}

}  // namespace linksim::detail
