// SPDX-License-Identifier: Apache-2.0
#include "plan/gemm_calls.hpp"

#include <algorithm>
#include <cmath>

namespace linksim::plan_detail {
namespace {

double ffn_matrices(FfnType type) { return type == FfnType::kSwiGlu ? 3 : 2; }

}  // namespace

AttentionShape attention_shape(const ModelSpec& m, const ParallelLayout& l) {
  const double kv_heads_local = std::max(1.0, double(m.kv_heads) / l.tp);
  return {double(m.heads) * m.head_dim / l.tp, kv_heads_local * m.head_dim};
}

std::vector<GemmCall> attention_gemms(const ModelSpec& m, const ParallelLayout& l,
                                      const WorkShape& w) {
  const AttentionShape a = attention_shape(m, l);
  return {{"QKV", w.tokens, a.q_dim + 2 * a.kv_dim, double(m.hidden)},
          {"attention out", w.tokens, double(m.hidden), a.q_dim}};
}

std::vector<GemmCall> ffn_gemms(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w,
                                bool moe, const GpuRates& r) {
  const double mats = ffn_matrices(m.ffn_type);
  const double h = m.hidden;
  std::vector<GemmCall> calls;
  if (!moe) {
    const double f = double(m.ffn) / l.tp;
    if (mats == 3 && !r.fused_gate_up) {
      // Gate and up as two GEMMs (an engine without the fused MLP): two launches, and the
      // activations read twice.
      calls.push_back({"FFN gate", w.tokens, f, h});
      calls.push_back({"FFN up", w.tokens, f, h});
    } else {
      // Gate and up fused into one GEMM for SwiGLU.
      calls.push_back({mats == 3 ? "FFN up/gate" : "FFN up", w.tokens, (mats - 1) * f, h});
    }
    calls.push_back({"FFN down", w.tokens, h, f});
    return calls;
  }
  // Routed experts: tokens spread uniformly over the experts (docs/planner.md#moe).
  const double experts_local = double(m.experts) / l.ep;
  const double routed_tokens = w.tokens * m.topk * l.etp / l.tp;  // arriving at this GPU
  // Experts that receive at least one token (all of them unless the batch is small, as in
  // decode): only those read their weights.
  const double active_experts =
      experts_local * (1 - std::pow(1 - 1 / experts_local, std::max(routed_tokens, 1.0)));
  const double tokens_per_expert = routed_tokens / active_experts;
  const double f = double(m.moe_ffn) / l.etp;
  // One grouped GEMM runs every local expert that has tokens.
  calls.push_back({mats == 3 ? "experts up/gate" : "experts up", tokens_per_expert,
                   (mats - 1) * f, h, active_experts});
  calls.push_back({"experts down", tokens_per_expert, h, f, active_experts});
  calls.push_back({"router", w.tokens, double(m.experts), h});
  if (m.shared_experts > 0) {
    // Shared experts: dense, split by TP like the dense FFN.
    const double fs = double(m.moe_ffn) * m.shared_experts / l.tp;
    calls.push_back({mats == 3 ? "shared up/gate" : "shared up", w.tokens, (mats - 1) * fs, h});
    calls.push_back({"shared down", w.tokens, h, fs});
  }
  return calls;
}

GemmCall logits_gemm(const ModelSpec& m, const ParallelLayout& l, const WorkShape& w) {
  return {"logits", w.tokens, double(m.vocab) / l.tp, double(m.hidden)};
}

double forward_time_s(const GemmCall& g, const Precision& p, const GpuRates& r) {
  return g.instances * gemm_time_s(g.m, g.n, g.k, p.act_bytes, p.weight_bytes, r);
}

void add_gemms(LayerCost& c, const std::vector<GemmCall>& calls, GemmPass pass,
               const Precision& p, const GpuRates& r) {
  for (const GemmCall& g : calls) {
    if (pass == GemmPass::kForward) {
      c.add_kernel(&LayerCost::gemm_s, forward_time_s(g, p, r), r);
      c.flops += g.flops();
    } else {
      // Data and weight gradients: two GEMMs of the forward's size.
      const double forward_s = forward_time_s(g, p, r);
      c.add_kernel(&LayerCost::gemm_s, forward_s, r);
      c.add_kernel(&LayerCost::gemm_s, forward_s, r);
      c.flops += 2 * g.flops();
    }
  }
}

std::vector<PlanGemm> report_gemms(const ModelSpec& m, const ParallelLayout& l,
                                   const WorkShape& w, const WorkShape& head, bool dense,
                                   bool moe, bool logits, const Precision& p, const GpuRates& r) {
  std::vector<GemmCall> calls = attention_gemms(m, l, w);
  for (int is_moe = 0; is_moe < 2; ++is_moe) {
    if (!(is_moe ? moe : dense)) continue;
    for (GemmCall& g : ffn_gemms(m, l, w, is_moe, r)) calls.push_back(std::move(g));
  }
  if (logits) calls.push_back(logits_gemm(m, l, head));
  std::vector<PlanGemm> out;
  for (const GemmCall& g : calls) {
    if (g.m <= 0 || g.n <= 0 || g.k <= 0) continue;
    PlanGemm row;
    row.name = g.name;
    row.m = g.m;
    row.n = g.n;
    row.k = g.k;
    row.instances = g.instances;
    row.time_s = forward_time_s(g, p, r);
    row.achieved_efficiency = g.flops() / (r.peak_flops * row.time_s);
    row.memory_bound = gemm_timing(g.m, g.n, g.k, p.act_bytes, p.weight_bytes, r).memory_bound;
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace linksim::plan_detail
