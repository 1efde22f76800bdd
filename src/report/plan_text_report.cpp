// SPDX-License-Identifier: Apache-2.0
// The readable breakdown of one plan (render_plan_text).
#include <fmt/core.h>

#include <map>
#include <string>

#include "linksim/plan_report.hpp"
#include "linksim/units.hpp"
#include "report/plan_text_parts.hpp"
#include "report/text_lines.hpp"
#include "report/text_table.hpp"

namespace linksim {
namespace {

using report_text::append_line;
using report_text::layout_text;
using report_text::percent_text;
using report_text::TextTable;
using report_text::tflops_text;

std::string on_off(bool value) { return value ? "on" : "off"; }

std::string batch_line(const PlanResult& r) {
  const ParallelLayout& l = r.layout;
  switch (r.mode) {
    case PlanMode::kTrain:
      return fmt::format("micro-batch {}, global batch {} ({} micro-batches per pipeline), "
                         "seq {} tokens",
                         l.micro_batch, l.global_batch, l.micro_batches(), l.seq);
    case PlanMode::kPrefill:
      return fmt::format("{} prompt{} of {} tokens", l.batch, l.batch == 1 ? "" : "s", l.seq);
    case PlanMode::kDecode:
      return fmt::format("{} sequence{} holding {} tokens of context", l.batch,
                         l.batch == 1 ? "" : "s", l.kv_len);
  }
  return "";
}

void append_configuration(std::string& out, const PlanResult& r) {
  const ParallelLayout& l = r.layout;
  const PlanCompute& c = r.compute;
  append_line(out, "Configuration");
  TextTable t({"", ""}, {});
  t.add_row({"layout", fmt::format("{}, sp {}, zero {}, vpp {}", layout_text(l), on_off(l.sp),
                                   l.zero, l.vpp)});
  t.add_row({"batch", batch_line(r)});
  t.add_row({"precision", fmt::format("compute {}, weights {}, recompute {}, tp-overlap {}",
                                      r.dtype, r.weight_dtype, to_string(r.recompute),
                                      r.tp_overlap_async ? "async" : "none")});
  if (!r.framework.empty()) t.add_row({"framework", r.framework});
  if (r.mode != PlanMode::kTrain) t.add_row({"engine", r.engine});
  t.add_row({"GPU", fmt::format("{}: {} dense, HBM {}", r.gpu_model, tflops_text(c.peak_flops),
                                format_bandwidth(c.hbm_Bps))});
  // The GEMMs' own achieved fraction: one layer's and the head's, each once.
  double gemm_flops = 0, gemm_time_s = 0;
  for (const PlanGemm& g : c.gemms) {
    gemm_flops += 2 * g.m * g.n * g.k * g.instances;
    gemm_time_s += g.time_s;
  }
  const double gemm_achieved = gemm_time_s > 0 ? gemm_flops / (c.peak_flops * gemm_time_s) : 0;
  t.add_row({"efficiency",
             fmt::format("GEMM {:.2f} of peak at best (achieved {:.2g}; with attention {:.2g}), "
                         "HBM {:.2f} of bandwidth",
                         c.gemm_efficiency, gemm_achieved, c.achieved_gemm_efficiency,
                         c.hbm_efficiency)});
  if (r.layers_on_slowest_stage > 0) {
    t.add_row({"pipeline", fmt::format("{} layers on the slowest stage", r.layers_on_slowest_stage)});
  }
  for (const std::string& a : r.assumptions) t.add_row({"assumption", a});
  out += t.render("  ");
}

void append_memory(std::string& out, const PlanResult& r) {
  const MemoryBreakdown& m = r.memory;
  append_line(out, "Memory per GPU (the most loaded)");
  TextTable t({"", ""}, {false, true});
  t.add_row({"weights", format_size(m.weights)});
  t.add_row({"gradients", format_size(m.gradients)});
  t.add_row({"optimizer", format_size(m.optimizer)});
  t.add_row({"activations", format_size(m.activations)});
  t.add_row({"KV cache", format_size(m.kv_cache)});
  t.add_row({"workspace", format_size(m.workspace)});
  t.add_row({"total", format_size(m.total)});
  t.add_row({"capacity", format_size(m.capacity)});
  out += t.render("  ");
  if (m.fits) {
    append_line(out, fmt::format("  fits: {} free", format_size(m.capacity - m.total)));
  } else {
    append_line(out, fmt::format("  does not fit: {} over the GPU's {}",
                                 format_size(m.total - m.capacity), format_size(m.capacity)));
    append_line(out, r.smallest_fitting.empty()
                         ? "  no tp x pp on this topology fits"
                         : fmt::format("  smallest fitting: {}", r.smallest_fitting));
  }
}

void append_time(std::string& out, const PlanResult& r) {
  const PlanCompute& c = r.compute;
  const PlanBreakdown& b = r.breakdown;
  append_line(out, "Time per step (slowest pipeline stage)");
  TextTable t({"", "time", "share"}, {false, true, true});
  auto share = [&](double s) { return r.step_time_s > 0 ? percent_text(s / r.step_time_s) : "-"; };
  auto row = [&](const std::string& name, double s) {
    t.add_row({name, format_duration(s), share(s)});
  };
  row("compute", b.compute_s);
  row("  GEMM", c.gemm_s);
  row("  attention", c.attention_s);
  row("  memory-bound", c.memory_bound_s);
  row("  optimizer", c.optimizer_s);
  row("  overhead", c.overhead_s);
  if (c.comm_sm_s > 0) row("    of it, SMs held by NCCL", c.comm_sm_s);
  // Exposed communication by kind, in the order the kinds first appear.
  std::vector<std::string> kinds;
  std::map<std::string, double> exposed_by_kind;
  for (const PlanComm& comm : r.comms) {
    if (!exposed_by_kind.count(comm.kind)) kinds.push_back(comm.kind);
    exposed_by_kind[comm.kind] += comm.exposed_s;
  }
  row("exposed communication", b.exposed_comm_s);
  for (const std::string& kind : kinds) row("  " + kind, exposed_by_kind[kind]);
  row("pipeline bubble", b.bubble_s);
  if (b.engine_overhead_s > 0) row("engine overhead", b.engine_overhead_s);
  row("step", r.step_time_s);
  out += t.render("  ");
}

void append_results(std::string& out, const PlanResult& r) {
  append_line(out, "Results");
  TextTable t({"", ""}, {});
  t.add_row({"tokens/s", fmt::format("{:.0f} ({:.1f} per GPU)", r.tokens_per_s, r.tokens_per_s_per_gpu)});
  t.add_row({"model FLOP/s", fmt::format("{} per GPU, MFU {}", tflops_text(r.model_tflops_per_gpu * 1e12),
                                         percent_text(r.mfu))});
  if (r.ttft_s) t.add_row({"time to first token", format_duration(*r.ttft_s)});
  if (r.tpot_s) t.add_row({"time per output token", format_duration(*r.tpot_s)});
  t.add_row({"communication", fmt::format("{} in all, {:.2f} x compute", format_duration(r.comm_time_s),
                                          r.comm_compute_ratio)});
  if (r.speedup && r.scaling_efficiency) {
    const std::string against = r.baseline.empty() ? "the baseline" : r.baseline;
    t.add_row({"speedup", fmt::format("{:.2f} x against {}, scaling efficiency {}", *r.speedup,
                                      against, percent_text(*r.scaling_efficiency))});
  } else {
    t.add_row({"speedup", "no baseline (nothing smaller fits)"});
  }
  out += t.render("  ");
}

void append_comms(std::string& out, const PlanResult& r) {
  append_line(out, "Communication per step");
  if (r.comms.empty()) {
    append_line(out, "  none: every group has one GPU");
    return;
  }
  TextTable t({"kind", "phase", "group", "collective", "bytes", "count", "algorithm", "protocol",
               "time", "exposed", "bottleneck", "GPUs"},
              {false, false, true, false, true, true, false, false, true, true, false, false});
  for (const PlanComm& c : r.comms) {
    t.add_row({c.kind, c.phase, std::to_string(c.group_size), std::string(to_string(c.collective)),
               format_size(c.bytes), fmt::format("{:g}", c.count),
               std::string(to_string(c.algorithm)), std::string(to_string(c.protocol)),
               format_duration(c.time_s), format_duration(c.exposed_s), c.bottleneck, c.gpus});
  }
  out += t.render("  ");
  // What the groups of one kind running at once cost each other (docs/planner.md#shared-links).
  for (const PlanComm& c : r.comms) {
    if (c.shared_slowdown <= 1) continue;
    append_line(out, fmt::format("  shared: {} {} {} {:.2f} x its time alone, {}", c.kind,
                                 c.phase, to_string(c.collective), c.shared_slowdown,
                                 describe_shared(c)));
  }
}

}  // namespace

std::string render_plan_text(const PlanResult& r) {
  std::string out;
  append_line(out, fmt::format("linksim plan: {}, {} on {} ({} x {})", r.model, to_string(r.mode),
                               r.topology, r.gpus, r.gpu_model));
  append_line(out, "");
  append_configuration(out, r);
  append_line(out, "");
  append_memory(out, r);
  append_line(out, "");
  append_time(out, r);
  append_line(out, "");
  append_results(out, r);
  append_line(out, "");
  append_comms(out, r);
  return out;
}

}  // namespace linksim
