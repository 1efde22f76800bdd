// SPDX-License-Identifier: Apache-2.0
// One plan evaluated on one layout: compute per stage, the communication of every group timed
// by the collective engine, overlap, pipeline schedule and memory (docs/planner.md#step).
#pragma once

#include <string>
#include <vector>

#include "linksim/plan.hpp"
#include "plan/comm_timer.hpp"

namespace linksim::plan_detail {

/// Bytes per element of a dtype name; throws ConfigError naming `flag` for an unknown one.
double dtype_bytes(const std::string& name, const char* flag);

/// Evaluates `layout` (already checked) on the `selected` GPUs. Leaves speedup, baseline and
/// smallest_fitting empty.
PlanResult evaluate_layout(const PlanRequest& request, const ParallelLayout& layout,
                           const std::vector<DeviceId>& selected, CommTimer& timer);

}  // namespace linksim::plan_detail
