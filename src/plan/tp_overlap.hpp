// SPDX-License-Identifier: Apache-2.0
// Transformer Engine's userbuffers overlap of tensor-parallel communication with the GEMMs
// (Megatron-LM / NeMo --tp-comm-overlap), from its defaults in
// transformer_engine/pytorch/module/base.py, initialize_ub (docs/planner.md#tp-overlap).
#pragma once

#include "plan/compute_model.hpp"

namespace linksim::plan_detail {

/// SMs a "pipeline" or "bulk" overlap reserves for its communication kernel while the GEMM runs
/// beside it (initialize_ub's default `num_sm` 16 with `set_sm_margin` for those methods).
inline constexpr int kUserbufferCommSms = 16;
/// Chunks a "pipeline" reduce-scatter overlap splits its GEMM into (default `num_splits` 4).
inline constexpr int kUserbufferPipelineSplits = 4;

/// What the overlap costs one layer of one micro-batch beyond its GEMMs on the whole GPU.
struct UserbufferCost {
  double forward_extra_s = 0;   ///< attention out and FFN down ("pipeline", forward) on SMs - 16
  double backward_extra_s = 0;  ///< QKV and FFN up data and weight gradients ("bulk") on SMs - 16
};

/// The GEMMs TE overlaps with a communication kernel on reserved SMs, timed on the SMs left
/// (the same per-SM rate, fewer SMs, so more waves) against the whole GPU. `moe` layers overlap
/// only their attention projections (the expert FFN is not a TE userbuffers layer).
UserbufferCost userbuffer_cost(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w,
                               bool moe, const Precision& p, const GpuRates& r);

}  // namespace linksim::plan_detail
