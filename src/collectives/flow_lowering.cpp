// SPDX-License-Identifier: Apache-2.0
// Lowering of NCCL's algorithms to flows (docs/model.md#flow-mode). A pipelined algorithm is
// its concurrent streams: a ring over N ranks is N transfers running at once, each carrying
// its whole share of the data, plus the same latency and fill the analytic mode charges.
#include "collectives/flow_lowering.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/core.h>
#include <limits>

#include "collectives/link_efficiency.hpp"
#include "linksim/error.hpp"
#include "linksim/flowsim.hpp"

namespace linksim::detail {
namespace {

std::vector<double> scaled(std::vector<double> caps, double scale) {
  for (double& c : caps) c *= scale;
  return caps;
}

// One simulation's worth of transfers: capacities scaled by the protocol's efficiency.
class Lowering {
 public:
  Lowering(const CommGraph& g, double scale, double start_latency_s)
      : Lowering(g, scaled(g.capacities(), scale), scale, start_latency_s) {}

  /// With capacities of the caller's choosing; route caps are scaled by `cap_scale`.
  Lowering(const CommGraph& g, std::vector<double> capacities, double cap_scale,
           double start_latency_s)
      : g_(g), scale_(cap_scale), latency_s_(start_latency_s),
        sim_(std::make_unique<FlowSimulator>(std::move(capacities))) {}

  /// Adds a transfer over explicit parallel paths.
  void send_paths(std::span<const PathSpec> paths, double bytes) {
    sim_->add_transfer({.bytes = bytes, .paths = paths, .latency_s = latency_s_});
  }

  /// Adds `bytes` from rank a to rank b along their route (all its parallel paths).
  void send(int a, int b, double bytes) { send_route(g_.route(a, b), bytes); }

  void send_route(const Route& route, double bytes) {
    paths_.clear();
    resources_.clear();
    size_t total = 0;
    for (const Path& p : route.paths) total += p.links.size();
    resources_.reserve(total);
    for (const Path& p : route.paths) {
      size_t begin = resources_.size();
      for (LinkId id : p.links) resources_.push_back(ResourceId{id.value});
      paths_.push_back({std::span<const ResourceId>(resources_.data() + begin, p.links.size()),
                        p.share});
    }
    TransferSpec spec;
    spec.bytes = bytes;
    spec.paths = paths_;
    spec.latency_s = latency_s_;
    const double cap = route_rate_cap(g_.topology(), route);
    if (cap < std::numeric_limits<double>::infinity()) spec.rate_cap_Bps = cap * scale_;
    sim_->add_transfer(spec);
  }


  FlowOutcome run(const Bottleneck& fallback) const {
    const FlowResult result = sim_->run();
    FlowOutcome out;
    out.time_s = result.makespan_s;
    out.bottleneck = result.bottlenecks.empty()
                         ? fallback
                         : link_bottleneck(g_.topology(), LinkId{result.bottlenecks.front().value});
    for (size_t r = 0; r < result.resources.size(); ++r) {
      const ResourceUsage& used = result.resources[r];
      if (!(used.bytes > 0)) continue;
      const double raw_Bps = g_.topology().links()[r].bw_Bps;
      const double utilization = out.time_s > 0 ? used.bytes / (raw_Bps * out.time_s) : 0.0;
      out.link_usage.push_back({LinkId{static_cast<uint32_t>(r)}, used.bytes, used.busy_s,
                                utilization});
    }
    return out;
  }

 private:
  const CommGraph& g_;
  double scale_;
  double latency_s_;
  std::unique_ptr<FlowSimulator> sim_;
  std::vector<PathSpec> paths_;
  std::vector<ResourceId> resources_;
};

constexpr double kMaxTransfers = 16e6;

// NCCL's binary tree over n servers (graph/trees.cc, ncclGetBtree): the parent of r clears
// r's lowest set bit and sets the next one up, so most edges join neighbouring servers.
// Returns -1 for the root (server 0).
int btree_parent(int r, int n) {
  if (r == 0) return -1;
  const int low = r & -r;
  const int up = (r ^ low) | (low << 1);
  return up < n ? up : (r ^ low);
}

// Calls edge(child, parent) for every edge of NCCL's double binary tree: the tree above and
// its mirror image (server r plays n - 1 - r), each carrying half of the data.
template <typename Edge>
void for_each_double_tree_edge(int n, Edge edge) {
  for (int tree = 0; tree < 2; ++tree) {
    for (int r = 1; r < n; ++r) {
      const int parent = btree_parent(r, n);
      if (tree == 0) edge(r, parent);
      else edge(n - 1 - r, n - 1 - parent);
    }
  }
}

void check_size(double transfers, CollectiveOp op) {
  if (transfers > kMaxTransfers) {
    throw ConfigError(fmt::format("flow mode would need {:.0f} transfers for {}; the limit is "
                                  "{:.0f}: use --mode analytic",
                                  transfers, to_string(op), kMaxTransfers));
  }
}

FlowOutcome ring_flows(const CommGraph& g, CollectiveOp op, const CostModel& m, double bytes,
                       int root) {
  const RingPlan& plan = g.ring();
  Lowering low(g, m.link_scale, m.latency_s + m.fill_s);
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

// Each server's chain reduces up and broadcasts down; the servers' heads exchange over two
// complementary binary trees, each carrying half the data (NCCL's double binary tree).
FlowOutcome tree_flows(const CommGraph& g, const CostModel& m, double bytes) {
  Lowering low(g, m.link_scale, m.latency_s + m.fill_s);
  const RingPlan& plan = g.ring();
  const int nodes = g.node_count();
  std::vector<std::vector<int>> chain(nodes);
  const int ppn = static_cast<int>(plan.rings.front().size()) / nodes;
  for (int k = 0; k < nodes; ++k) {
    for (int i = 0; i < ppn; ++i) chain[k].push_back(plan.rings.front()[k * ppn + i]);
    for (int i = 0; i + 1 < ppn; ++i) {
      low.send(chain[k][i + 1], chain[k][i], bytes);  // reduce towards the head
      low.send(chain[k][i], chain[k][i + 1], bytes);  // broadcast back
    }
  }
  // One tree pair per rail: position j of every server's chain talks to position j of the
  // others, so every GPU's nearest NIC carries its share (NCCL's channels).
  for (int j = 0; j < ppn; ++j) {
    for_each_double_tree_edge(nodes, [&](int c, int p) {
      low.send(chain[c][j], chain[p][j], bytes / 2 / ppn);
      low.send(chain[p][j], chain[c][j], bytes / 2 / ppn);
    });
  }
  return low.run(m.bottleneck);
}

// NVLS: every GPU sends its buffer into the switches and receives the result by multicast;
// across servers (NVLSTree) the GPUs of each rail also exchange their shards over two
// complementary binary trees of servers, S / (2 ppn) per tree edge and direction.
FlowOutcome nvls_flows(const CommGraph& g, CollectiveOp op, const CostModel& m, double bytes) {
  const Topology& t = g.topology();
  const size_t n = g.ranks().size();
  std::vector<double> caps = g.capacities();
  std::vector<std::vector<ResourceId>> up(n), down(n);
  std::vector<std::vector<double>> bw(n);
  for (size_t r = 0; r < n; ++r) {
    for (LinkId id : t.out_links(g.ranks()[r])) {
      const Link& link = t.link(id);
      const Device& peer = t.device(link.to);
      if (link.family != LinkFamily::kNvlink || peer.kind != DeviceKind::kNvswitch || !peer.reduction) {
        continue;
      }
      caps[id.value] = link.bw_Bps * m.link_scale;
      caps[link.reverse.value] = link.bw_Bps * m.link_scale;
      up[r].push_back(ResourceId{id.value});
      down[r].push_back(ResourceId{link.reverse.value});
      bw[r].push_back(link.bw_Bps);
    }
  }
  Lowering low(g, std::move(caps), 1.0, m.latency_s + m.fill_s);
  const double each = op == CollectiveOp::kAllReduce ? bytes : m.wire_factor * bytes;
  for (size_t r = 0; r < n; ++r) {
    double total = 0;
    for (double b : bw[r]) total += b;
    std::vector<PathSpec> up_paths, down_paths;
    for (size_t i = 0; i < up[r].size(); ++i) {
      up_paths.push_back({std::span<const ResourceId>(&up[r][i], 1), bw[r][i] / total});
      down_paths.push_back({std::span<const ResourceId>(&down[r][i], 1), bw[r][i] / total});
    }
    low.send_paths(up_paths, each);
    low.send_paths(down_paths, each);
  }
  const auto& nodes = g.nodes();
  const int n_nodes = static_cast<int>(nodes.size());
  for (size_t j = 0; n_nodes > 1 && j < nodes[0].size(); ++j) {
    const double shard = bytes / (2.0 * nodes[0].size());
    for_each_double_tree_edge(n_nodes, [&](int c, int p) {
      if (j >= nodes[c].size() || j >= nodes[p].size()) return;
      low.send(nodes[c][j], nodes[p][j], shard);
      low.send(nodes[p][j], nodes[c][j], shard);
    });
  }
  return low.run(m.bottleneck);
}

FlowOutcome direct_flows(const CommGraph& g, CollectiveOp op, const CostModel& m, double bytes) {
  const int n = static_cast<int>(g.ranks().size());
  Lowering low(g, m.link_scale, m.latency_s + m.fill_s);
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

FlowOutcome simulate_flows(const CommGraph& g, CollectiveOp op, Algorithm algo,
                           const CostModel& m, double size_bytes, int root) {
  switch (algo) {
    case Algorithm::kRing: return ring_flows(g, op, m, size_bytes, root);
    case Algorithm::kTree: return tree_flows(g, m, size_bytes);
    case Algorithm::kNvls:
    case Algorithm::kNvlsTree: return nvls_flows(g, op, m, size_bytes);
    case Algorithm::kDirect: return direct_flows(g, op, m, size_bytes);
    case Algorithm::kAuto: break;
  }
  return {m.time_s(size_bytes), m.bottleneck, {}};
}

}  // namespace linksim::detail
