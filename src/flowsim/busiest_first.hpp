// SPDX-License-Identifier: Apache-2.0
// FlowResult::bottlenecks: the resources with busy_s > 0, the longest-saturated first, equal
// busy times by id (docs/flowsim.md#outputs).
#pragma once

#include <span>
#include <vector>

#include "linksim/flowsim.hpp"

namespace linksim::flowsim_internal {

/// The ids of `resources` (indexed by id) with busy_s > 0, by busy_s descending, equal busy
/// times by id ascending: a stable sort by busy time of the ids in id order. O(R) when the
/// busy times take at most kFewBusyTimes distinct values (a symmetric machine's resources
/// share a few), O(R + B log B) for B busy resources otherwise.
std::vector<ResourceId> busiest_first(std::span<const ResourceUsage> resources);

/// busiest_first() distributes the ids into per-time buckets up to this many distinct times.
inline constexpr std::size_t kFewBusyTimes = 8;

}  // namespace linksim::flowsim_internal
