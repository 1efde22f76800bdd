// SPDX-License-Identifier: Apache-2.0
#include "plan/tp_overlap.hpp"

#include <algorithm>

#include "plan/gemm_calls.hpp"

namespace linksim::plan_detail {

UserbufferCost userbuffer_cost(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w,
                               bool moe, const Precision& p, const GpuRates& r) {
  UserbufferCost out;
  if (r.multiprocessors <= kUserbufferCommSms) return out;
  // The GEMM keeps each SM's rate on the SMs the communication kernel leaves it.
  GpuRates margin = r;
  margin.multiprocessors = r.multiprocessors - kUserbufferCommSms;
  const double kept = double(margin.multiprocessors) / r.multiprocessors;
  margin.peak_flops *= kept;
  margin.attention_peak_flops *= kept;
  auto extra = [&](const GemmCall& g) {
    return std::max(0.0, forward_time_s(g, p, margin) - forward_time_s(g, p, r));
  };
  std::vector<GemmCall> calls = attention_gemms(m, l, w);
  if (!moe) {
    const std::vector<GemmCall> ffn = ffn_gemms(m, l, w, false, r);
    calls.insert(calls.end(), ffn.begin(), ffn.end());
  }
  for (const GemmCall& g : calls) {
    // "pipeline": proj_fprop and fc2_fprop, the GEMMs whose output is reduce-scattered.
    if (g.name == "attention out" || g.name == "FFN down") out.forward_extra_s += extra(g);
    // "bulk": qkv_dgrad, qkv_wgrad, fc1_dgrad, fc1_wgrad; each backward GEMM takes the
    // forward's time (add_gemms).
    if (g.name == "QKV" || g.name.rfind("FFN up", 0) == 0 || g.name == "FFN gate") {
      out.backward_extra_s += 2 * extra(g);
    }
  }
  return out;
}

}  // namespace linksim::plan_detail
