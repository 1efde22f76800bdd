// SPDX-License-Identifier: Apache-2.0
#include "flowsim/busiest_first.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

namespace linksim::flowsim_internal {
namespace {

// The general case: a merge sort of (busy time, id) keys made in id order (its sequential
// passes beat a quicksort's on many equal times).
std::vector<ResourceId> sort_busiest(std::span<const ResourceUsage> resources, std::size_t busy) {
  std::vector<std::pair<double, uint32_t>> keys;
  keys.reserve(busy);
  for (std::size_t r = 0; r < resources.size(); ++r) {
    if (resources[r].busy_s > 0) keys.emplace_back(resources[r].busy_s, static_cast<uint32_t>(r));
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<ResourceId> order;
  order.reserve(keys.size());
  for (const auto& key : keys) order.push_back(ResourceId{key.second});
  return order;
}

}  // namespace

std::vector<ResourceId> busiest_first(std::span<const ResourceUsage> resources) {
  // One pass: the count of busy resources, and the distinct busy times while there are few,
  // sorted descending, with the count of each.
  std::array<double, kFewBusyTimes> times_s{};
  std::array<std::size_t, kFewBusyTimes> counts{};
  std::size_t distinct = 0, busy = 0;
  bool few = true;
  for (const ResourceUsage& resource : resources) {
    const double busy_s = resource.busy_s;
    if (!(busy_s > 0)) continue;
    ++busy;
    if (!few) continue;
    const auto known = times_s.begin() + static_cast<std::ptrdiff_t>(distinct);
    const auto at = std::find(times_s.begin(), known, busy_s);
    if (at != known) {
      ++counts[static_cast<std::size_t>(at - times_s.begin())];
      continue;
    }
    if (distinct == kFewBusyTimes) {
      few = false;
      continue;
    }
    times_s[distinct] = busy_s;
    counts[distinct] = 1;
    ++distinct;
  }
  if (!few) return sort_busiest(resources, busy);
  // Buckets in descending time order, each filled with its ids in id order.
  std::array<std::size_t, kFewBusyTimes> rank{};  // rank[i]: the place of times_s[i]
  for (std::size_t i = 0; i < distinct; ++i) {
    for (std::size_t j = 0; j < distinct; ++j) rank[i] += times_s[j] > times_s[i] ? 1 : 0;
  }
  std::array<std::size_t, kFewBusyTimes> next{};  // next[rank]: the bucket's next position
  for (std::size_t i = 0; i < distinct; ++i) {
    for (std::size_t j = 0; j < distinct; ++j) {
      if (rank[j] < rank[i]) next[rank[i]] += counts[j];
    }
  }
  std::vector<ResourceId> order(busy);
  for (std::size_t r = 0; r < resources.size(); ++r) {
    const double busy_s = resources[r].busy_s;
    if (!(busy_s > 0)) continue;
    const auto i = static_cast<std::size_t>(
        std::find(times_s.begin(), times_s.begin() + static_cast<std::ptrdiff_t>(distinct),
                  busy_s) -
        times_s.begin());
    order[next[rank[i]]++] = ResourceId{static_cast<uint32_t>(r)};
  }
  return order;
}

}  // namespace linksim::flowsim_internal
