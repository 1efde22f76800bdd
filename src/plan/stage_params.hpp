// SPDX-License-Identifier: Apache-2.0
// Which layers a pipeline stage holds and the parameters one of its GPUs stores
// (docs/planner-memory.md#weights).
#pragma once

#include "linksim/model.hpp"
#include "linksim/plan_memory.hpp"

namespace linksim::detail {

/// The layers of pipeline stage `index` of `pp`: consecutive, the first (layers mod pp) stages
/// one more than the rest. `dense` of them use the dense FFN (the leading dense layers of an MoE
/// model fall in the first stages).
struct StageLayers {
  int index = 0;
  int layers = 0;
  int dense = 0;
  bool first = false;
  bool last = false;
  int moe() const { return layers - dense; }
};
StageLayers stage_layers(const ModelSpec& model, int pp, int index);

/// Parameters one GPU of a stage holds before ZeRO sharding, split by the data-parallel group
/// that shares them: `dense` over dp*cp, `expert` (routed experts) over the expert data-parallel
/// group tp*cp*dp/(ep*etp) (Megatron-Core's folding).
struct HeldParams {
  double dense = 0;
  double expert = 0;
};
HeldParams stage_params(const ModelSpec& model, const ParallelLayout& layout,
                        const StageLayers& stage);

/// ZeRO shard counts of the two groups above.
double dense_shards(const ParallelLayout& layout);
double expert_shards(const ParallelLayout& layout);

}  // namespace linksim::detail
