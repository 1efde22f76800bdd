// SPDX-License-Identifier: Apache-2.0
// The layout search behind `plan --search` and the baseline of a plan (docs/planner.md#search).
#pragma once

#include <string>
#include <vector>

#include "linksim/plan.hpp"
#include "plan/precision.hpp"

namespace linksim::plan_detail {

/// Every valid layout on exactly `gpus`, evaluated and ranked: fitting layouts first, then by
/// tokens/s. With `best_only`, stops caring about verdicts (used for baselines).
std::vector<SearchCandidate> search_on(const Topology& topology, const PlanRequest& request,
                                       const Precision& precision,
                                       const std::vector<DeviceId>& gpus, bool best_only);

/// "tp=4 pp=2 dp=1" plus cp, ep, etp, vpp and micro-batch where they are not 1.
std::string describe_layout(const ParallelLayout& layout);

}  // namespace linksim::plan_detail
