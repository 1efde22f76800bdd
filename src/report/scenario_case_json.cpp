// SPDX-License-Identifier: Apache-2.0
// One scenario case as a JSON document, and the run's manifest (field names are a contract:
// docs/scenario-format.md#outputs).
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "linksim/scenario_report.hpp"
#include "linksim/units.hpp"
#include "report/data_format.hpp"
#include "report/json_numbers.hpp"
#include "report/serve_json.hpp"

namespace linksim {
namespace {

using Json = nlohmann::ordered_json;
using report_data::round_to_10_digits;
using report_json::count_value;

Json optional_number(const std::optional<double>& value) {
  return value ? Json(round_to_10_digits(*value)) : Json(nullptr);
}

Json collective_json(const CollectiveCaseSpec& spec, const CollectiveCaseResult& result) {
  Json rows = Json::array();
  for (const CollectiveRow& row : result.report.rows) {
    Json json{
        {"size_bytes", count_value(row.size_bytes)},
        {"count", count_value(row.count)},
        {"type", row.type},
        {"redop", row.redop},
        {"root", row.root},
        {"time_us", round_to_10_digits(row.time_s / kMicrosecond)},
        {"algbw_GBps", round_to_10_digits(row.algbw_Bps / kGB)},
        {"busbw_GBps", round_to_10_digits(row.busbw_Bps / kGB)},
        {"algorithm", row.algorithm},
        {"protocol", row.protocol},
        {"bottleneck", row.bottleneck},
    };
    if (!row.confidence.empty()) {  // the row's error band (docs/calibration.md#error-bands)
      json["time_low_us"] = round_to_10_digits(row.time_low_s / kMicrosecond);
      json["time_high_us"] = round_to_10_digits(row.time_high_s / kMicrosecond);
      json["confidence"] = row.confidence;
    }
    rows.push_back(std::move(json));
  }
  return Json{
      {"collective", result.report.collective},
      {"ranks", result.report.ranks},
      {"mode", result.report.mode},
      {"nccl_version", result.report.nccl_version},
      {"algo", std::string(to_string(spec.sweep.algorithm))},
      {"proto", std::string(to_string(spec.sweep.protocol))},
      {"p2p", !spec.comm.p2p_disable},
      {"nvls", spec.comm.nvls_enable},
      {"rows", std::move(rows)},
  };
}

// What the machine picture needs (docs/scenario-format.md#link-usage): the machine as loaded
// (absolute file path, so a merge from another directory finds it, and `set:` values) and
// [link id, utilisation] for every directed link that carried data, utilisation rounded to 4
// decimals (a hundredth of a percent).
Json link_usage_json(const ScenarioCase& c, const CollectiveCaseResult& result) {
  Json set = Json::object();
  for (const auto& [name, value] : c.overrides) set[name] = value;
  Json links = Json::array();
  for (const LinkUsage& u : result.link_usage) {
    const double utilization = std::round(u.utilization * 1e4) / 1e4;
    if (utilization > 0) links.push_back(Json::array({u.link.value, utilization}));
  }
  return Json{{"size_bytes", count_value(result.link_usage_size_bytes)},
              {"mode", std::string(to_string(result.link_usage_mode))},
              {"topology_file",
               std::filesystem::absolute(c.topology_file).lexically_normal().string()},
              {"set", std::move(set)},
              {"links", std::move(links)}};
}

// The document as dump(2) writes it, but with one line per link_usage entry ("[12, 0.5]")
// instead of four: a 64-server machine has thousands of them.
std::string with_compact_links(Json doc) {
  const Json links = std::move(doc["link_usage"]["links"]);
  const std::string placeholder = "\"(links)\"";
  doc["link_usage"]["links"] = "(links)";
  std::string text = doc.dump(2) + "\n";
  std::string lines;
  for (const Json& entry : links) {
    lines += lines.empty() ? "[\n" : ",\n";
    lines += "      [" + entry[0].dump() + ", " + entry[1].dump() + "]";
  }
  lines += lines.empty() ? "[]" : "\n    ]";
  text.replace(text.rfind(placeholder), placeholder.size(), lines);  // links is the last field
  return text;
}

Json layout_json(const ParallelLayout& l) {
  return Json{{"tp", l.tp}, {"pp", l.pp}, {"dp", l.dp}, {"cp", l.cp}, {"ep", l.ep},
              {"etp", l.etp}, {"sp", l.sp}, {"zero", l.zero}, {"vpp", l.vpp},
              {"micro_batch", l.micro_batch}, {"global_batch", l.global_batch},
              {"seq", l.seq}, {"batch", l.batch}, {"kv_len", l.kv_len}};
}

Json breakdown_json(const PlanBreakdown& b) {
  return Json{{"compute_s", round_to_10_digits(b.compute_s)},
              {"exposed_comm_s", round_to_10_digits(b.exposed_comm_s)},
              {"bubble_s", round_to_10_digits(b.bubble_s)}};
}

Json memory_json(const MemoryBreakdown& m) {
  auto gb = [](double bytes) { return round_to_10_digits(bytes / kGB); };
  return Json{{"weights_GB", gb(m.weights)},     {"gradients_GB", gb(m.gradients)},
              {"optimizer_GB", gb(m.optimizer)}, {"activations_GB", gb(m.activations)},
              {"kv_cache_GB", gb(m.kv_cache)},   {"workspace_GB", gb(m.workspace)},
              {"total_GB", gb(m.total)},         {"capacity_GB", gb(m.capacity)},
              {"fits", m.fits}};
}

Json plan_json(const PlanResult& p) {
  Json comms = Json::array();
  for (const PlanComm& c : p.comms) {
    comms.push_back(Json{{"kind", c.kind},
                         {"phase", c.phase},
                         {"group_size", c.group_size},
                         {"collective", std::string(to_string(c.collective))},
                         {"bytes", count_value(c.bytes)},
                         {"count", round_to_10_digits(c.count)},
                         {"algorithm", std::string(to_string(c.algorithm))},
                         {"protocol", std::string(to_string(c.protocol))},
                         {"time_s", round_to_10_digits(c.time_s)},
                         {"exposed_s", round_to_10_digits(c.exposed_s)},
                         {"bottleneck", c.bottleneck},
                         {"gpus", c.gpus}});
  }
  return Json{
      {"model", p.model},
      {"mode", std::string(to_string(p.mode))},
      {"layout", layout_json(p.layout)},
      {"recompute", std::string(to_string(p.recompute))},
      {"dtype", p.dtype},
      {"weight_dtype", p.weight_dtype},
      {"step_time_s", round_to_10_digits(p.step_time_s)},
      {"tokens_per_s", round_to_10_digits(p.tokens_per_s)},
      {"tokens_per_s_per_gpu", round_to_10_digits(p.tokens_per_s_per_gpu)},
      {"model_tflops_per_gpu", round_to_10_digits(p.model_tflops_per_gpu)},
      {"mfu", round_to_10_digits(p.mfu)},
      {"ttft_s", optional_number(p.ttft_s)},
      {"tpot_s", optional_number(p.tpot_s)},
      {"comm_time_s", round_to_10_digits(p.comm_time_s)},
      {"comm_compute_ratio", round_to_10_digits(p.comm_compute_ratio)},
      {"speedup", optional_number(p.speedup)},
      {"scaling_efficiency", optional_number(p.scaling_efficiency)},
      {"baseline", p.baseline},
      {"baseline_gpus", p.baseline_gpus ? Json(*p.baseline_gpus) : Json(nullptr)},
      {"breakdown", breakdown_json(p.breakdown)},
      {"memory", memory_json(p.memory)},
      {"smallest_fitting", p.smallest_fitting},
      {"comms", std::move(comms)},
      {"assumptions", p.assumptions},
  };
}

Json ranking_json(const std::vector<SearchCandidate>& ranking) {
  Json out = Json::array();
  int rank = 1;
  for (const SearchCandidate& c : ranking) {
    out.push_back(Json{{"rank", rank++},
                       {"layout", layout_json(c.layout)},
                       {"fits", c.fits},
                       {"tokens_per_s", round_to_10_digits(c.tokens_per_s)},
                       {"step_time_s", round_to_10_digits(c.step_time_s)},
                       {"memory_GB", round_to_10_digits(c.memory_bytes / kGB)},
                       {"breakdown", breakdown_json(c.breakdown)},
                       {"verdict", c.verdict}});
  }
  return out;
}

}  // namespace

std::string render_case_json(const ScenarioCase& c, const CaseResult& r) {
  Json parameters = Json::object();
  for (const auto& [name, value] : c.parameters) parameters[name] = value;
  Json doc{
      {"id", c.id},
      {"index", c.index},
      {"fingerprint", c.fingerprint},
      {"study", c.study},
      {"kind", c.kind},
      {"machine", c.machine},
      {"topology", std::filesystem::path(c.topology_file).stem().string()},
      {"parameters", std::move(parameters)},
      {"gpu_model", r.gpu_model},
      {"gpus", r.gpus},
      {"servers", r.nodes},
      {"status", r.error.empty() ? "ok" : "error"},
      {"error", r.error},
  };
  if (r.collective && c.collective) {
    doc["collective"] = collective_json(*c.collective, *r.collective);
    if (!r.collective->link_usage.empty()) doc["link_usage"] = link_usage_json(c, *r.collective);
  }
  if (doc.contains("link_usage")) return with_compact_links(doc);
  if (r.plan && r.plan->plan) doc["plan"] = plan_json(*r.plan->plan);
  if (r.plan && c.plan && c.plan->search) doc["search"] = ranking_json(r.plan->ranking);
  if (r.serve) {
    Json serve = report_json::serve_result_json(r.serve->run);
    serve.erase("assumptions");
    serve["max_rate_requests_per_s"] =
        r.serve->max_rate_requests_per_s ? report_json::rounded(*r.serve->max_rate_requests_per_s) : Json(nullptr);
    doc["serve"] = std::move(serve);
  }
  return doc.dump(2) + "\n";
}

std::string render_manifest(const Scenario& s) {
  Json cases = Json::array();
  for (const ScenarioCase& c : s.cases) {
    cases.push_back(Json{{"index", c.index}, {"id", c.id}, {"file", c.file_stem + ".json"},
                         {"fingerprint", c.fingerprint}});
  }
  Json doc{{"scenario", s.name},
           {"title", s.title},
           {"parameters", s.parameter_columns},
           {"cases_total", s.cases.size()},
           {"cases", std::move(cases)}};
  if (!s.questions.empty()) {
    Json questions = Json::array();
    for (const ScenarioQuestion& q : s.questions) {
      questions.push_back(Json{{"ask", q.ask},
                               {"studies", q.studies},
                               {"metric", q.metric},
                               {"size_bytes", count_value(q.size_bytes)}});
    }
    doc["questions"] = std::move(questions);
  }
  return doc.dump(2) + "\n";
}

}  // namespace linksim
