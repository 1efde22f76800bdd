// SPDX-License-Identifier: Apache-2.0
// Choosing ring orders the way NCCL's graph search does in spirit: within a server, the
// cyclic order whose slowest hop is fastest; several rings while links have capacity left.
#pragma once

#include <functional>
#include <vector>

namespace linksim::detail {

/// hop_rate(a, b): achievable bytes/s from local position a to b (0 when unusable).
using HopRate = std::function<double(int, int)>;

/// The cyclic order of positions 0..n-1, starting at 0, that maximizes the slowest hop
/// (then the sum of hop rates; then lexicographic order, for determinism). Exhaustive for
/// n <= 9, greedy nearest-fastest neighbour beyond. Returns positions; empty when n == 0.
std::vector<int> best_cycle(int n, const HopRate& hop_rate);

}  // namespace linksim::detail
