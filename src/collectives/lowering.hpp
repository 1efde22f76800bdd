// SPDX-License-Identifier: Apache-2.0
// The flow lowering's shared machinery: one simulation's worth of transfers over the
// communicator's routes, and NCCL's double binary tree (docs/model.md#flow-mode).
#pragma once

#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "collectives/analytic.hpp"
#include "collectives/flow_lowering.hpp"
#include "collectives/joint_flows.hpp"
#include "collectives/link_efficiency.hpp"
#include "collectives/route_caps.hpp"
#include "collectives/route_shapes.hpp"
#include "collectives/transfer_paths.hpp"
#include "linksim/flowsim.hpp"

namespace linksim::detail {

// One simulation's worth of transfers: capacities scaled by the protocol's efficiency. With a
// JointFlows (`joint` not null) the transfers are recorded there, as one group among several
// simulated together, and run() answers nothing (flow_lowering.hpp: simulate_flows).
class Lowering {
 public:
  Lowering(const CommGraph& g, double scale, double start_latency_s, JointFlows* joint)
      : Lowering(g, g.capacities().to_vector(scale), scale, start_latency_s, joint) {}

  /// With capacities of the caller's choosing; route caps are scaled by `cap_scale`.
  Lowering(const CommGraph& g, std::vector<double> capacities, double cap_scale,
           double start_latency_s, JointFlows* joint)
      : g_(g),
        scale_(cap_scale),
        latency_s_(start_latency_s),
        joint_(joint),
        caps_(g.topology(), g.options().calibration, &g.gdr_nics(), g.network_legs_by_link_id()),
        shapes_(g) {
    if (joint_ != nullptr) {
      capacities_ = std::move(capacities);
    } else {
      sim_ = std::make_unique<FlowSimulator>(std::move(capacities),
                                             FlowSimOptions{.record_transfer_times = false});
    }
  }

  /// Room for `transfers` transfers over `subflows` paths of one link each, and for those of
  /// `trees` double binary trees over the servers (two transfers an edge, for_each_double_tree_edge),
  /// each over as many links as the route from the first server's first rank to the last
  /// server's: the program is sized once instead of regrown by doubling (FlowSimulator::reserve;
  /// nothing with a JointFlows). Room, not a limit: it changes no answer.
  void reserve_with_trees(size_t transfers, size_t subflows, size_t trees);

  /// `count` transfers, each over as many paths and links as the route from rank `from` to
  /// rank `to`.
  struct TransfersLike {
    size_t count = 0;
    int from = 0;
    int to = 0;
  };
  /// Room for the transfers `groups` describe: the program is sized once instead of regrown
  /// by doubling (FlowSimulator::reserve; nothing with a JointFlows). Room, not a limit: it
  /// changes no answer. A group of no transfers routes nothing.
  void reserve_like(std::initializer_list<TransfersLike> groups);

  /// Adds a transfer over explicit parallel paths.
  void send_paths(std::span<const PathSpec> paths, double bytes) {
    add({.bytes = bytes, .paths = paths, .latency_s = latency_s_});
  }

  /// Adds `bytes` from rank a to rank b along their route (all its parallel paths). The
  /// route is neither kept in the communicator's cache nor summarized, and its paths are
  /// written into one scratch this lowering reuses: from the route shapes' table between
  /// servers (RouteShapes), from the host-0 route inside a server, else from
  /// CommGraph::route_paths.
  void send(int a, int b, double bytes) {
    double cap_Bps = 0;
    if (!shapes_.route(a, b, caps_, &paths_, &cap_Bps) && !server_paths(a, b, &cap_Bps)) {
      const Route& route = g_.route_paths(a, b, &route_);
      paths_.assign(route);
      cap_Bps = caps_.cap(route);
    }
    add_paths(paths_, bytes, cap_Bps);
  }

  /// The simulation of the transfers sent; an empty outcome when they went to a JointFlows.
  FlowOutcome run(const Bottleneck& fallback) const {
    if (joint_ != nullptr) return {};
    const FlowResult result = sim_->run();
    FlowOutcome out;
    out.time_s = result.makespan_s;
    out.bottleneck = result.bottlenecks.empty()
                         ? fallback
                         : link_bottleneck(g_.topology(), LinkId{result.bottlenecks.front().value});
    size_t used_links = 0;  // sized once: a cluster's links would regrow it by doubling
    for (const ResourceUsage& used : result.resources) used_links += used.bytes > 0 ? 1 : 0;
    out.link_usage.reserve(used_links);
    // A server's link has the raw rate of host 0's link of the same local id (the layout
    // contract of linksim/topology.hpp; faults apply to every server), read where it stays
    // in cache instead of from each of the cluster's links.
    const auto links = g_.topology().links();
    const size_t per_host = g_.topology().links_per_host();
    const size_t blocks = per_host * static_cast<size_t>(g_.topology().host_count());
    size_t next_local = 0;  // r's id within its server block, counted along (no division)
    for (size_t r = 0; r < result.resources.size(); ++r) {
      const size_t local = next_local;
      next_local = local + 1 == per_host ? 0 : local + 1;
      const ResourceUsage& used = result.resources[r];
      if (!(used.bytes > 0)) continue;
      const double raw_Bps = links[r < blocks ? local : r].bw_Bps;
      const double utilization = out.time_s > 0 ? used.bytes / (raw_Bps * out.time_s) : 0.0;
      out.link_usage.push_back({LinkId{static_cast<uint32_t>(r)}, used.bytes, used.busy_s,
                                utilization});
    }
    return out;
  }

 private:
  /// For ranks a and b of one server whose route is uncapped (CommGraph::uncapped_server_route),
  /// writes its paths into paths_ from the host-0 route the server repeats, and its cap, none.
  /// False for other pairs (a host-staged copy is left to the caller).
  bool server_paths(int a, int b, double* cap_Bps) {
    const std::optional<Router::HostRoute> host = g_.uncapped_server_route(a, b);
    if (!host) return false;
    paths_.assign(*host->local, host->link_offset);
    *cap_Bps = std::numeric_limits<double>::infinity();
    return true;
  }

  /// Adds `bytes` along every path of `paths`, at most `cap_Bps` (RouteCaps::cap's value for
  /// their route, before the scale) in all.
  void add_paths(const TransferPaths& paths, double bytes, double cap_Bps) {
    TransferSpec spec;
    spec.bytes = bytes;
    spec.paths = paths.paths;
    spec.latency_s = latency_s_;
    if (cap_Bps < std::numeric_limits<double>::infinity()) spec.rate_cap_Bps = cap_Bps * scale_;
    add(spec);
  }

  void add(const TransferSpec& spec) {
    if (joint_ != nullptr) {
      joint_->add(spec, capacities_);
    } else {
      sim_->add_transfer(spec);
    }
  }

  const CommGraph& g_;
  double scale_;
  double latency_s_;
  JointFlows* joint_;
  std::vector<double> capacities_;  ///< with joint_ only: the capacities this group runs at
  std::unique_ptr<FlowSimulator> sim_;
  TransferPaths paths_;  ///< send's paths, their room reused from send to send
  Route route_;  ///< send's route from CommGraph::route_paths, its room reused likewise
  RouteCaps caps_;  ///< send_route's rate caps, decided once per route shape
  RouteShapes shapes_;  ///< send's routes between servers, from a table per route shape
};

/// Throws ConfigError when a lowering would need more than kMaxTransfers transfers.
void check_size(double transfers, CollectiveOp op);

/// NCCL's binary tree over n servers (graph/trees.cc, ncclGetBtree); -1 for the root.
int btree_parent(int r, int n);

/// The tree's chain inside each server: the first ring's order within that server, its first
/// rank the head that joins the servers' trees (NCCL's treeIntra). By server, ranks.
std::vector<std::vector<int>> tree_chains(const CommGraph& g);

/// NCCL's second tree over n servers (graph/trees.cc, ncclGetDtree): the first one mirrored
/// (server r plays n - 1 - r) when n is even, shifted by one (r plays r - 1) when n is odd, so
/// that no server is an inner node of both. -1 for its root (server n - 1, or 1 when n is odd).
int second_btree_parent(int r, int n);

// Calls edge(child, parent) for every edge of NCCL's double binary tree: the tree above and
// the second (second_btree_parent), each carrying half of the data.
template <typename Edge>
void for_each_double_tree_edge(int n, Edge edge) {
  for (int r = 1; r < n; ++r) edge(r, btree_parent(r, n));
  for (int r = 1; r < n; ++r) {
    // The child that plays r in the second tree, so the edges come in the first tree's order.
    const int child = n % 2 == 1 ? (r + 1) % n : n - 1 - r;
    edge(child, second_btree_parent(child, n));
  }
}

}  // namespace linksim::detail
