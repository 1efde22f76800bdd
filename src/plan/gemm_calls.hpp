// SPDX-License-Identifier: Apache-2.0
// The GEMMs of one transformer layer (and of the output head) as one GPU runs them: their
// names and shapes after the TP / EP / ETP split, and their times in forward and backward
// from the GEMM model (docs/planner.md#compute).
#pragma once

#include <string>
#include <vector>

#include "linksim/plan.hpp"
#include "plan/compute_model.hpp"

namespace linksim::plan_detail {

/// Per-GPU widths of the attention projections, elements per token.
struct AttentionShape {
  double q_dim = 0, kv_dim = 0;
};
AttentionShape attention_shape(const ModelSpec& m, const ParallelLayout& l);

/// One GEMM of a forward pass: Y (m x n) = X (m x k) W (k x n), run `instances` times by one
/// kernel (a grouped GEMM over the experts that receive tokens).
struct GemmCall {
  std::string name;  ///< "QKV", "attention out", "FFN up/gate", "FFN down", "experts up/gate", ...
  double m = 0, n = 0, k = 0;
  double instances = 1;
  double flops() const { return 2 * m * n * k * instances; }
};

/// QKV (fused) and the attention output projection.
std::vector<GemmCall> attention_gemms(const ModelSpec& m, const ParallelLayout& l,
                                      const WorkShape& w);
/// The dense FFN (`moe` false: up/gate, or gate and up apart when the engine does not fuse
/// them, then down) or the MoE FFN (routed experts as grouped GEMMs, router, shared experts).
std::vector<GemmCall> ffn_gemms(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w,
                                bool moe, const GpuRates& r);
/// The output head: tokens x vocab / TP x hidden.
GemmCall logits_gemm(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w);

/// Forward time of one call, seconds: `instances` x gemm_time_s (the launch floor is applied
/// by LayerCost::add_kernel).
double forward_time_s(const GemmCall& g, const Precision& p, const GpuRates& r);
/// Adds the calls' forward (one kernel each) or backward (two kernels each of the forward's
/// time: the data and the weight gradient) to a layer's cost, with their FLOPs.
enum class GemmPass { kForward, kBackward };
void add_gemms(LayerCost& c, const std::vector<GemmCall>& calls, GemmPass pass,
               const Precision& p, const GpuRates& r);

/// The GEMMs of one layer's forward (attention, then FFN) and of the head, with their
/// shapes, forward times and achieved fractions of peak, as `explain plan` prints them.
std::vector<PlanGemm> report_gemms(const ModelSpec& m, const ParallelLayout& l,
                                   const WorkShape& w, const WorkShape& head, bool dense,
                                   bool moe, bool logits, const Precision& p, const GpuRates& r);

}  // namespace linksim::plan_detail
