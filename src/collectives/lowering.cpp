// SPDX-License-Identifier: Apache-2.0
#include "collectives/lowering.hpp"

#include <fmt/core.h>

#include "linksim/error.hpp"

namespace linksim::detail {
namespace {

constexpr double kMaxTransfers = 16e6;

}  // namespace

// NCCL's binary tree over n servers (graph/trees.cc, ncclGetBtree): the parent of r clears
// r's lowest set bit and sets the next one up, so most edges join neighbouring servers.
// Returns -1 for the root (server 0).
int btree_parent(int r, int n) {
  if (r == 0) return -1;
  const int low = r & -r;
  const int up = (r ^ low) | (low << 1);
  return up < n ? up : (r ^ low);
}

int second_btree_parent(int r, int n) {
  if (n % 2 == 1) {
    const int parent = btree_parent((r - 1 + n) % n, n);
    return parent < 0 ? -1 : (parent + 1) % n;
  }
  const int parent = btree_parent(n - 1 - r, n);
  return parent < 0 ? -1 : n - 1 - parent;
}

std::vector<std::vector<int>> tree_chains(const CommGraph& g) {
  const std::vector<int>& ring = g.ring().rings.front();
  const int nodes = g.node_count();
  const int ppn = static_cast<int>(ring.size()) / nodes;
  std::vector<std::vector<int>> chain(nodes);
  for (int k = 0; k < nodes; ++k) {
    for (int i = 0; i < ppn; ++i) chain[k].push_back(ring[k * ppn + i]);
  }
  return chain;
}

void Lowering::reserve_with_trees(size_t transfers, size_t subflows, size_t trees) {
  const auto& nodes = g_.nodes();
  if (!sim_) return;
  size_t path_entries = subflows;
  if (trees > 0 && nodes.size() > 1) {
    const size_t tree_transfers = 4 * trees * (nodes.size() - 1);
    size_t route_links = 0;
    g_.with_route_paths(nodes.front().front(), nodes.back().front(), [&](const Route& route) {
      for (const Path& path : route.paths) route_links += path.links.size();
    });
    transfers += tree_transfers;
    subflows += tree_transfers;
    path_entries += tree_transfers * route_links;
  }
  sim_->reserve(transfers, subflows, path_entries, 0);
}

void Lowering::reserve_like(std::initializer_list<TransfersLike> groups) {
  if (!sim_) return;
  size_t transfers = 0;
  size_t subflows = 0;
  size_t path_entries = 0;
  for (const TransfersLike& group : groups) {
    if (group.count == 0) continue;
    g_.with_route_paths(group.from, group.to, [&](const Route& route) {
      transfers += group.count;
      subflows += group.count * route.paths.size();
      for (const Path& path : route.paths) path_entries += group.count * path.links.size();
    });
  }
  sim_->reserve(transfers, subflows, path_entries, 0);
}

void check_size(double transfers, CollectiveOp op) {
  if (transfers > kMaxTransfers) {
    throw ConfigError(fmt::format("flow mode would need {:.0f} transfers for {}; the limit is "
                                  "{:.0f}: use --mode analytic",
                                  transfers, to_string(op), kMaxTransfers));
  }
}

}  // namespace linksim::detail
