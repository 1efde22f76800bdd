// SPDX-License-Identifier: Apache-2.0
// The derivation behind a plan's step time (docs/explain.md#a-plan), in the step types of
// include/linksim/explain.hpp.
#pragma once

#include <optional>
#include <vector>

#include "linksim/explain.hpp"
#include "linksim/plan.hpp"

namespace linksim {

/// `linksim explain plan`: the step time of a plan, term by term.
struct PlanExplanation {
  PlanResult plan;  ///< identical to plan(topology, request)
  /// The derivation: compute, communication, bubble, step time, comm/compute ratio, Amdahl.
  std::vector<ExplainStep> steps;
  /// Exposed communication as a fraction of the step: exposed_comm_s / step_time_s.
  double exposed_fraction = 0;
  /// Amdahl: the step's speedup if compute became infinitely fast, <= 1 / exposed_fraction
  /// (the exposed communication stays); +inf when nothing is exposed.
  double compute_speedup_bound = 0;
  /// The step's speedup if the exposed communication vanished: step / (step - exposed).
  double comm_free_speedup = 0;
  /// speedup over the baseline x comm_free_speedup: what this layout would reach over its
  /// baseline with its communication fully hidden (above linear scaling when the baseline
  /// itself pays exposed communication); nullopt without a baseline, or when the baseline is
  /// this plan itself.
  std::optional<double> speedup_comm_hidden;
};

/// Plans `request` on `topology` (as plan() does) and explains the result.
PlanExplanation explain_plan(const Topology& topology, const PlanRequest& request);

}  // namespace linksim
