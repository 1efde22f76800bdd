// SPDX-License-Identifier: Apache-2.0
// CommGraph::plan_rings: the rings of a communicator and their throughput
// (docs/model.md#rings).
#include <algorithm>
#include <limits>
#include <map>

#include "collectives/comm_graph.hpp"
#include "collectives/link_efficiency.hpp"
#include "collectives/ring_search.hpp"

namespace linksim::detail {
namespace {

constexpr double kMinExtraRingFraction = 0.2;
constexpr int kMaxPackedRings = 16;

double hop_rate_on(const Topology& t, const ModelCalibration& calibration, const Route& route,
                   const std::vector<double>& residual, const GdrNics& gdr_nics) {
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
  for (size_t i = 0; ring.size() > 1 && i < ring.size(); ++i) {
    const int a = ring[i];
    const int b = ring[(i + 1) % ring.size()];
    // Inside a server, the host-0 route the server repeats, uncopied (no rate cap: that is
    // host staging's, whose mechanism names the devices).
    if (cached_route(a, b) == nullptr) {
      const auto host = router_.host_route(ranks_[size_t(a)], ranks_[size_t(b)]);
      if (host && host->local->transport != Transport::kShm) {
        set.add(*host->local, weight, std::numeric_limits<double>::infinity(), Bottleneck{},
                host->link_offset);
        continue;
      }
    }
    with_route(a, b, [&](const Route& r) {
      Bottleneck why;
      const double cap = route_rate_cap(topology_, r, options_.calibration, &why, &gdr_nics_);
      set.add(r, weight, cap, why);
    });
  }
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
    for (size_t i = 0; i < ring.size(); ++i) {
      with_route(ring[i], ring[(i + 1) % ring.size()], [&](const Route& r) {
        if (r.transport == Transport::kNet) return;
        if (r.cls != PathClass::kNvlink) ring_.intra_class = HopClass::kPcie;
        if (r.transport == Transport::kShm || r.cls != PathClass::kNvlink) ring_.uses_p2p_only = false;
      });
    }
  };

  if (n_nodes == 1) {
    // One server: pack rings while links have capacity left (NCCL builds several channels on
    // meshes such as DGX-1's NVLink cube mesh, each on its own links).
    std::vector<double> residual = capacities();
    const auto& node = nodes_[0];
    std::vector<double> rates;
    for (int k = 0; k < kMaxPackedRings; ++k) {
      std::vector<int> order = k == 0 ? std::vector<int>() : best_cycle(
          static_cast<int>(node.size()), [&](int a, int b) {
            double rate = 0;
            with_route(node[a], node[b],
                       [&](const Route& r) { rate = hop_rate_on(topology_, options_.calibration, r, residual, gdr_nics_); });
            return rate;
          });
      std::vector<int> ring;
      if (k == 0) ring = node_order[0];
      else for (int pos : order) ring.push_back(node[pos]);
      StreamSet set(residual);
      add_ring_streams(set, ring, 1.0);
      StreamSet::Limit limit = set.limit();
      if (k == 0) ring_.bottleneck = limit.bottleneck(topology_);
      if (k > 0 && limit.throughput_Bps < kMinExtraRingFraction * rates.front()) break;
      if (!(limit.throughput_Bps > 0)) break;
      rates.push_back(limit.throughput_Bps);
      ring_.rings.push_back(ring);
      for (size_t i = 0; i < ring.size(); ++i) {
        for (const Path& p : route(ring[i], ring[(i + 1) % ring.size()]).paths) {
          for (LinkId id : p.links) {
            residual[id.value] = std::max(0.0, residual[id.value] - limit.throughput_Bps * p.share);
          }
        }
      }
      if (!limit.by_link) break;  // capped by host staging: more rings add nothing
    }
    double total = 0;
    for (double r : rates) total += r;
    for (double r : rates) ring_.weights.push_back(r / total);
    ring_.throughput_Bps = total;
    ring_.intra_throughput_Bps = total;
    StreamSet all(capacities());
    for (size_t k = 0; k < ring_.rings.size(); ++k) {
      add_ring_streams(all, ring_.rings[k], ring_.weights[k]);
    }
    ring_.link_loads = all.loads();
    classify_hops(ring_.rings.front());
    return;
  }

  // Several servers: NCCL's rings span servers, each ring entering and leaving every server
  // through a different GPU (and so a different NIC: rails). Rotate each server's order.
  const int rotations = static_cast<int>(node_order[0].size());
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
  StreamSet set(capacities());
  for (size_t k = 0; k < ring_.rings.size(); ++k) add_ring_streams(set, ring_.rings[k], ring_.weights[k]);
  StreamSet::Limit limit = set.limit();
  ring_.throughput_Bps = limit.throughput_Bps;
  ring_.bottleneck = limit.bottleneck(topology_);
  ring_.link_loads = set.loads();
  classify_hops(ring_.rings.front());
}

}  // namespace linksim::detail
