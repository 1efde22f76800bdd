// SPDX-License-Identifier: Apache-2.0
// One plan evaluated on one layout: compute per stage, the communication of every group timed
// by the collective engine, overlap, pipeline schedule and memory (docs/planner.md#step).
#pragma once

#include <vector>

#include "linksim/plan.hpp"
#include "plan/comm_timer.hpp"
#include "plan/precision.hpp"

namespace linksim::plan_detail {

/// Evaluates `layout` (already checked) on the `selected` GPUs with the request's precision
/// (resolve_precision). Leaves speedup, baseline and smallest_fitting empty.
PlanResult evaluate_layout(const PlanRequest& request, const Precision& precision,
                           const ParallelLayout& layout, const std::vector<DeviceId>& selected,
                           CommTimer& timer);

}  // namespace linksim::plan_detail
