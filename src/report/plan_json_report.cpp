// SPDX-License-Identifier: Apache-2.0
// The JSON rendering of one plan (render_plan_json). Field names and units are a contract
// (docs/cli.md#plan-json): add fields, never rename or remove them.
#include <nlohmann/json.hpp>
#include <string>

#include "linksim/plan_report.hpp"
#include "common/json_numbers.hpp"
#include "report/plan_text_parts.hpp"

namespace linksim {
namespace {

using Json = nlohmann::ordered_json;
using json_numbers::count_value;
using json_numbers::rounded;

// A quantity the mode has (train: micro and global batch, seq; prefill: batch, seq; decode:
// batch, kv_len) or null.
Json if_mode(bool applies, int value) { return applies ? Json(value) : Json(nullptr); }

Json parallel_json(const PlanResult& r) {
  const ParallelLayout& l = r.layout;
  const bool train = r.mode == PlanMode::kTrain;
  const bool prefill = r.mode == PlanMode::kPrefill;
  const bool decode = r.mode == PlanMode::kDecode;
  return Json{{"tp", l.tp},
              {"pp", l.pp},
              {"dp", l.dp},
              {"cp", l.cp},
              {"ep", l.ep},
              {"etp", l.etp},
              {"sp", l.sp},
              {"zero", l.zero},
              {"vpp", l.vpp},
              {"micro_batch", if_mode(train, l.micro_batch)},
              {"global_batch", if_mode(train, l.global_batch)},
              {"seq", if_mode(train || prefill, l.seq)},
              {"batch", if_mode(prefill || decode, l.batch)},
              {"kv_len", if_mode(decode, l.kv_len)}};
}

Json gemm_json(const PlanGemm& g) {
  return Json{{"name", g.name},
              {"m", rounded(g.m)},
              {"n", rounded(g.n)},
              {"k", rounded(g.k)},
              {"instances", rounded(g.instances)},
              {"time_s", rounded(g.time_s)},
              {"achieved_efficiency", rounded(g.achieved_efficiency)},
              {"memory_bound", g.memory_bound}};
}

Json compute_json(const PlanCompute& c) {
  Json gemms = Json::array();
  for (const PlanGemm& g : c.gemms) gemms.push_back(gemm_json(g));
  return Json{{"gemm_s", rounded(c.gemm_s)},
              {"attention_s", rounded(c.attention_s)},
              {"memory_bound_s", rounded(c.memory_bound_s)},
              {"optimizer_s", rounded(c.optimizer_s)},
              {"overhead_s", rounded(c.overhead_s)},
              {"comm_sm_s", rounded(c.comm_sm_s)},
              {"total_s", rounded(c.total_s)},
              {"gemm_efficiency", rounded(c.gemm_efficiency)},
              {"achieved_gemm_efficiency", rounded(c.achieved_gemm_efficiency)},
              {"hbm_efficiency", rounded(c.hbm_efficiency)},
              {"peak_flops", rounded(c.peak_flops)},
              {"hbm_Bps", rounded(c.hbm_Bps)},
              {"gemms", gemms}};
}

Json comm_json(const PlanComm& c) {
  return Json{{"kind", c.kind},
              {"phase", c.phase},
              {"group_size", c.group_size},
              {"collective", std::string(to_string(c.collective))},
              {"bytes", count_value(c.bytes)},
              {"count", count_value(c.count)},
              {"algorithm", std::string(to_string(c.algorithm))},
              {"protocol", std::string(to_string(c.protocol))},
              {"time_s", rounded(c.time_s)},
              {"exposed_s", rounded(c.exposed_s)},
              {"bottleneck", c.bottleneck},
              {"implementation", c.implementation},
              {"gpus", c.gpus},
              {"shared_slowdown", rounded(c.shared_slowdown)},
              {"shared_link", c.shared_link.empty() ? Json(nullptr) : Json(c.shared_link)},
              {"shared_groups", c.shared_groups},
              {"shared_with", c.shared_with}};
}

Json memory_json(const PlanResult& r) {
  const MemoryBreakdown& m = r.memory;
  Json smallest = m.fits || r.smallest_fitting.empty() ? Json(nullptr) : Json(r.smallest_fitting);
  return Json{{"weights", count_value(m.weights)},
              {"gradients", count_value(m.gradients)},
              {"optimizer", count_value(m.optimizer)},
              {"activations", count_value(m.activations)},
              {"kv_cache", count_value(m.kv_cache)},
              {"workspace", count_value(m.workspace)},
              {"total", count_value(m.total)},
              {"capacity", count_value(m.capacity)},
              {"fits", m.fits},
              {"smallest_fitting", smallest}};
}

Json baseline_json(const PlanResult& r) {
  if (!r.baseline_gpus) return nullptr;
  return Json{{"gpus", *r.baseline_gpus}, {"layout", r.baseline}};
}

}  // namespace

std::string render_plan_json(const PlanResult& r) {
  Json comms = Json::array();
  for (const PlanComm& c : r.comms) comms.push_back(comm_json(c));
  const Json document{
      {"model", r.model},
      {"topology", r.topology},
      {"gpu_model", r.gpu_model},
      {"mode", std::string(to_string(r.mode))},
      {"gpus", r.gpus},
      {"parallel", parallel_json(r)},
      {"dtype", r.dtype},
      {"weight_dtype", r.weight_dtype},
      {"recompute", std::string(to_string(r.recompute))},
      {"tp_overlap", r.tp_overlap_async ? "async" : "none"},
      {"framework", r.framework.empty() ? Json(nullptr) : Json(r.framework)},
      {"step_time_s", rounded(r.step_time_s)},
      {"tokens_per_s", rounded(r.tokens_per_s)},
      {"tokens_per_s_per_gpu", rounded(r.tokens_per_s_per_gpu)},
      {"model_flops", rounded(r.model_flops)},
      {"model_tflops_per_gpu", rounded(r.model_tflops_per_gpu)},
      {"mfu", rounded(r.mfu)},
      {"ttft_s", rounded(r.ttft_s)},
      {"tpot_s", rounded(r.tpot_s)},
      {"comm_time_s", rounded(r.comm_time_s)},
      {"comm_compute_ratio", rounded(r.comm_compute_ratio)},
      {"speedup", rounded(r.speedup)},
      {"scaling_efficiency", rounded(r.scaling_efficiency)},
      {"baseline", baseline_json(r)},
      {"breakdown",
       Json{{"compute_s", rounded(r.breakdown.compute_s)},
            {"exposed_comm_s", rounded(r.breakdown.exposed_comm_s)},
            {"bubble_s", rounded(r.breakdown.bubble_s)},
            {"engine_overhead_s", rounded(r.breakdown.engine_overhead_s)}}},
      {"engine", r.engine},
      {"compute", compute_json(r.compute)},
      {"comms", std::move(comms)},
      {"memory", memory_json(r)},
      {"layers_on_slowest_stage", r.layers_on_slowest_stage},
      {"assumptions", r.assumptions},
  };
  return document.dump(2) + "\n";
}

}  // namespace linksim
