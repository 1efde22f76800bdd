// SPDX-License-Identifier: Apache-2.0
// The planner's keywords (model=, arch=, mode=, tp=, ... as `linksim plan`'s flags, with
// Python names: micro_batch for --micro-batch) read into the library's PlanRequest.
#pragma once

#include <string>
#include <vector>

#include "linksim/plan.hpp"
#include "python/keyword_options.hpp"

namespace linksim::python {

/// Every keyword plan_request_from reads (the NCCL switches of comm_keywords.hpp included).
std::vector<std::string> plan_keyword_names();

/// The request the keywords describe. Throws ConfigError naming the keyword.
/// REQUIRES: the GIL is held.
PlanRequest plan_request_from(const KeywordOptions& options);

}  // namespace linksim::python
