// SPDX-License-Identifier: Apache-2.0
// explain_plan: a plan's step time term by term, from the numbers plan() computed with
// (PlanResult), then the communication/compute ratio and the Amdahl bounds they imply
// (docs/explain.md#a-plan).
#include <fmt/core.h>

#include <limits>

#include "linksim/plan_explain.hpp"

namespace linksim {
namespace {

std::string gpu_source(const Topology& topology, const PlanResult& p) {
  const GpuModel* gpu = topology.catalog().find_gpu(p.gpu_model);
  return fmt::format("catalog '{}'{}, dense {} tensor peak", p.gpu_model,
                     gpu != nullptr ? fmt::format(" ({})", gpu->name) : std::string(),
                     p.dtype == "fp8" ? "FP8" : "BF16");
}

void add_compute_steps(const Topology& topology, const PlanResult& p,
                       std::vector<ExplainStep>& steps) {
  const PlanCompute& c = p.compute;
  ExplainStep gemm;
  gemm.title = "compute: GEMMs and attention";
  gemm.formula = "t_matmul = FLOPs / (peak x eff_achieved)";
  gemm.terms = {{"FLOPs", c.flops, "FLOP", "executed on the slowest stage in the step"},
                {"peak", c.peak_flops, "FLOP/s", gpu_source(topology, p)},
                {"eff_achieved", c.achieved_gemm_efficiency, "",
                 fmt::format("the best-shaped GEMM at {:.3g} of peak, each GEMM less after tile "
                             "and wave quantization, memory limits and its K loop's fill and "
                             "drain; attention at its own (docs/planner.md#compute)",
                             c.gemm_efficiency)}};
  gemm.result = {"t_matmul", c.gemm_s + c.attention_s, "s", ""};
  steps.push_back(gemm);

  ExplainStep layer;
  layer.title = "compute: the GEMMs of one layer's forward";
  layer.formula = "t = max(t_tiles, t_memory) + t_edge; eff = 2 x M x N x K / (peak x t)";
  double layer_s = 0;
  for (const PlanGemm& g : c.gemms) {
    const std::string shape = fmt::format("M x N x K = {:.6g} x {:.6g} x {:.6g}", g.m, g.n, g.k);
    layer.terms.push_back(
        {g.name, g.time_s, "s",
         fmt::format("{}{}, {:.3g} of peak, {}",
                     g.instances != 1 ? fmt::format("{:.4g} experts x ", g.instances) : "",
                     shape, g.achieved_efficiency,
                     g.memory_bound ? "memory-bound" : "compute-bound")});
    layer_s += g.time_s;
  }
  layer.notes.push_back(
      "each GEMM once, before the launch floor; the step runs them once per layer and "
      "micro-batch, the head once, and backward as a data- and a weight-gradient GEMM");
  layer.result = {"t_gemms", layer_s, "s", ""};
  steps.push_back(layer);

  ExplainStep mem;
  mem.title = "compute: memory-bound kernels";
  mem.formula = "t_mem = bytes / (HBM x eff_hbm)";
  mem.terms = {{"bytes", c.memory_bytes, "bytes", "norms, activations, residuals, embedding, loss"},
               {"HBM", c.hbm_Bps, "B/s", fmt::format("catalog '{}' memory bandwidth", p.gpu_model)},
               {"eff_hbm", c.hbm_efficiency, "", "streaming kernels (docs/planner.md#compute)"}};
  mem.result = {"t_mem", c.memory_bound_s, "s", ""};
  steps.push_back(mem);

  ExplainStep total;
  total.title = "compute";
  total.formula = "compute = t_matmul + t_mem + t_launch + t_optimizer";
  total.terms = {{"t_matmul", c.gemm_s + c.attention_s, "s", "above"},
                 {"t_mem", c.memory_bound_s, "s", "above"},
                 {"t_launch", c.overhead_s, "s", "kernels shorter than the launch floor"},
                 {"t_optimizer", c.optimizer_s, "s", "Adam: 28 bytes per local parameter / HBM"}};
  total.result = {"compute", p.breakdown.compute_s, "s", ""};
  steps.push_back(total);
}

void add_comm_steps(const PlanResult& p, std::vector<ExplainStep>& steps) {
  ExplainStep sum;
  sum.title = "exposed communication";
  sum.formula = "exposed = sum over the communications of their exposed part";
  for (const PlanComm& c : p.comms) {
    ExplainStep s;
    s.title = fmt::format("communication: {} {} {}", c.kind, c.phase, to_string(c.collective));
    s.formula = "time = count x t_call; exposed = the part not hidden behind compute";
    s.terms = {{"group", double(c.group_size), "", c.gpus},
               {"S", c.bytes, "bytes", "nccl-tests size of one call"},
               {"count", c.count, "", "calls per step on the critical path of one GPU"},
               {"t_call", c.count > 0 ? c.time_s / c.count : 0, "s",
                fmt::format("linksim coll {} --size {:.0f} on {}: {} {}, bottleneck {}",
                            to_string(c.collective), c.bytes, c.gpus, to_string(c.algorithm),
                            to_string(c.protocol), c.bottleneck)},
               {"exposed", c.exposed_s, "s", "not hidden (docs/planner.md#communication)"}};
    if (c.shared_slowdown > 1) {
      s.terms.push_back({"shared", c.shared_slowdown, "",
                         "t_call over its time alone: " + describe_shared(c) +
                             " (docs/planner.md#shared-links)"});
    }
    s.result = {"time", c.time_s, "s", ""};
    steps.push_back(s);
    sum.terms.push_back(
        {c.kind + " " + c.phase, c.exposed_s, "s", std::string(to_string(c.collective))});
  }
  sum.result = {"exposed", p.breakdown.exposed_comm_s, "s", ""};
  steps.push_back(sum);
}

ExplainStep bubble_step(const PlanResult& p) {
  ExplainStep s;
  s.title = "pipeline bubble";
  const ParallelLayout& l = p.layout;
  if (p.mode != PlanMode::kTrain) {
    s.formula = "bubble = 0: one batch passes the stages in turn (their times add up)";
  } else {
    const double m = l.micro_batches();
    s.formula =
        "bubble = (p - 1) / v x t_mb; fraction (p - 1) / (m x v + p - 1) of the step's "
        "pipeline time";
    s.terms = {{"p", double(l.pp), "", "--pp"},
               {"v", double(l.vpp), "", "--vpp (interleaved 1F1B)"},
               {"m", m, "", "micro-batches per pipeline: global batch / (micro-batch x dp)"},
               {"t_mb", p.breakdown.microbatch_s, "s",
                "forward + backward of one micro-batch on the slowest stage, exposed TP/EP/CP "
                "included"},
               {"fraction", (l.pp - 1.0) / (m * l.vpp + l.pp - 1.0), "",
                "Narayanan et al. 2021, sections 2.2.1-2.2.2"}};
  }
  s.result = {"bubble", p.breakdown.bubble_s, "s", ""};
  return s;
}


ExplainStep step_time_step(const PlanResult& p) {
  ExplainStep step;
  step.title = "step time";
  step.formula = "step = compute + exposed + bubble + engine";
  step.terms = {{"compute", p.breakdown.compute_s, "s", "above"},
                {"exposed", p.breakdown.exposed_comm_s, "s", "above"},
                {"bubble", p.breakdown.bubble_s, "s", "above"},
                {"engine", p.breakdown.engine_overhead_s, "s",
                 p.engine == "none" ? "no serving engine (--engine none)"
                                  : "host time per iteration of engine " + p.engine +
                                        " (docs/serving.md#engines)"}};
  step.result = {"step", p.step_time_s, "s", ""};
  return step;
}

ExplainStep ratio_step(const PlanResult& p) {
  ExplainStep ratio;
  ratio.title = "communication / compute";
  ratio.formula = "ratio = comm / compute (all communication, hidden or not)";
  ratio.terms = {{"comm", p.comm_time_s, "s", "sum of the communications' times"},
                 {"compute", p.breakdown.compute_s, "s", "above"}};
  ratio.result = {"ratio", p.comm_compute_ratio, "", ""};
  return ratio;
}

// Fills the explanation's bounds and returns their step (Amdahl 1967, docs/explain.md#a-plan).
ExplainStep amdahl_step(PlanExplanation& e) {
  const PlanResult& p = e.plan;
  const double step_s = p.step_time_s, exposed_s = p.breakdown.exposed_comm_s;
  const double inf = std::numeric_limits<double>::infinity();
  e.exposed_fraction = step_s > 0 ? exposed_s / step_s : 0;
  e.compute_speedup_bound = exposed_s > 0 ? step_s / exposed_s : inf;
  e.comm_free_speedup = step_s > exposed_s ? step_s / (step_s - exposed_s) : inf;
  // A baseline that is this very plan (the model fits no fewer GPUs) adds nothing.
  const bool own_baseline = p.baseline_gpus.value_or(p.gpus) == p.gpus && p.speedup == 1.0;
  if (p.speedup && !own_baseline) e.speedup_comm_hidden = *p.speedup * e.comm_free_speedup;

  ExplainStep amdahl;
  amdahl.title = "Amdahl bound";
  amdahl.formula =
      "f = exposed / step; compute infinitely fast: speedup <= 1 / f; "
      "communication fully hidden: speedup = 1 / (1 - f)";
  amdahl.terms = {{"exposed", exposed_s, "s", "above"},
                  {"step", step_s, "s", "above"},
                  {"f", e.exposed_fraction, "", "exposed / step"},
                  {"1/f", e.compute_speedup_bound, "", "the exposed communication stays"},
                  {"1/(1-f)", e.comm_free_speedup, "", "compute, bubble and launches stay"}};
  if (!e.speedup_comm_hidden) {
    amdahl.result = {"1/f", e.compute_speedup_bound, "", ""};
    return amdahl;
  }
  amdahl.formula += "; over the baseline with communication hidden: speedup x 1 / (1 - f)";
  amdahl.terms.push_back(
      {"speedup", *p.speedup, "", fmt::format("tokens/s over the baseline ({})", p.baseline)});
  amdahl.terms.push_back(
      {"linear", double(p.gpus) / p.baseline_gpus.value_or(p.gpus), "", "GPUs / baseline GPUs"});
  amdahl.result = {"speedup_hidden", *e.speedup_comm_hidden, "", ""};
  return amdahl;
}

}  // namespace

PlanExplanation explain_plan(const Topology& topology, const PlanRequest& request) {
  PlanExplanation e;
  e.plan = plan(topology, request);
  add_compute_steps(topology, e.plan, e.steps);
  add_comm_steps(e.plan, e.steps);
  e.steps.push_back(bubble_step(e.plan));
  e.steps.push_back(step_time_step(e.plan));
  e.steps.push_back(ratio_step(e.plan));
  e.steps.push_back(amdahl_step(e));
  return e;
}

}  // namespace linksim
