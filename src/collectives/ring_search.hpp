// SPDX-License-Identifier: Apache-2.0
// Choosing ring orders the way NCCL's graph search does in spirit: within a server, the
// cyclic order whose slowest hop is fastest; several rings while links have capacity left.
#pragma once

#include <functional>
#include <utility>
#include <vector>

namespace linksim::detail {

/// hop_rate(a, b): achievable bytes/s from local position a to b (0 when unusable).
using HopRate = std::function<double(int, int)>;

/// The cyclic order of positions 0..n-1, starting at 0, that maximizes the slowest hop
/// (then the sum of hop rates; then lexicographic order, for determinism). Exhaustive for
/// n <= 9, greedy nearest-fastest neighbour beyond. Returns positions; empty when n == 0.
std::vector<int> best_cycle(int n, const HopRate& hop_rate);

/// The capacity several rings at one common rate (channels) may take from a server's links.
/// Hop a->b of a channel loads each link of its route by the path's share; a link's capacity
/// is counted in channels (its bytes/s over the channel rate).
struct ChannelLedger {
  int n = 0;  ///< positions 0..n-1
  /// By hop a*n+b: (ledger link index, share of the channel's bytes on that link).
  std::vector<std::vector<std::pair<int, double>>> hop_loads;
  std::vector<double> free_channels;  ///< by ledger link: channels it can still carry

  bool fits(int a, int b) const;
  /// Adds `count` channels' load on hop a->b (negative to give it back).
  void take(int a, int b, double count);
};

/// Up to `max_channels` cyclic orders of positions 0..n-1 (each starting at 0) that together
/// fit in `ledger`: a depth-first search that backtracks across channels, as NCCL's graph
/// search does (search.cc ncclTopoSearchRec), so an early channel gives up a hop a later one
/// needs. Stops after `step_budget` hop trials and returns the most channels found; channels
/// come in non-decreasing lexicographic order (a set, each found once).
std::vector<std::vector<int>> pack_equal_channels(int max_channels, long step_budget,
                                                  ChannelLedger ledger);

}  // namespace linksim::detail
