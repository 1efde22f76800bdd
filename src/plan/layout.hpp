// SPDX-License-Identifier: Apache-2.0
// Resolving and checking a parallel layout, and placing its ranks on GPUs Megatron-style
// (TP innermost, then CP, DP, PP outermost; experts folded over TP x CP x DP as
// Megatron-Core does: ETP innermost, then EP, then expert-DP). docs/planner.md#layout
#pragma once

#include <string>
#include <vector>

#include "linksim/plan.hpp"

namespace linksim::plan_detail {

/// The GPUs a plan runs on: the request's selection (-g, --gpus, --per-node), else the first
/// TP x PP x CP x DP GPUs when DP is given, else every GPU. Throws ConfigError when the
/// topology has fewer GPUs than the degrees ask for.
std::vector<DeviceId> selected_gpus(const Topology& topology, const PlanRequest& request);

/// Fills the degrees the request leaves open and checks every constraint against the model
/// and the number of GPUs selected. Throws ConfigError naming the constraint and the numbers.
/// `assumptions` receives one line per default filled in.
ParallelLayout resolve_layout(const PlanRequest& request, int gpus_selected,
                              std::vector<std::string>& assumptions);

/// Checks a complete layout (used by the search, which builds layouts itself).
/// Returns an empty string when valid, else the reason.
std::string layout_problem(const ModelSpec& model, PlanMode mode, const ParallelLayout& layout,
                           int gpus_selected);

/// The ranks (indices into the selected GPUs) of each kind of group that contains rank 0's
/// position, plus the pipeline neighbour pairs.
struct Groups {
  std::vector<int> tp, cp, dp, ep, edp;  ///< rank indices of the group holding rank 0
  std::vector<int> dp_cp;                ///< DP x CP: the ranks that share rank 0's weights
  std::vector<std::pair<int, int>> pp_pairs;  ///< (stage s rank, stage s+1 rank) along rank 0's pipeline
};
Groups rank_groups(const ParallelLayout& layout);

/// Every group of the kind of `group` (rank indices of one group, as rank_groups gives it)
/// among `ranks` ranks, `group` first: the layout's groups of one kind partition the ranks,
/// each the first group shifted by a rank offset (docs/planner.md#shared-links). With
/// `every_shift` (the neighbour pairs of pipeline stages and of CP rings, which overlap), every
/// shift that stays within the ranks instead.
std::vector<std::vector<int>> concurrent_groups(const std::vector<int>& group, int ranks,
                                                bool every_shift = false);

}  // namespace linksim::plan_detail
