// SPDX-License-Identifier: Apache-2.0
// A case record as its case file (field names are a contract: docs/scenario-format.md#case-files).
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/json_numbers.hpp"
#include "linksim/units.hpp"
#include "scenario/case_record_json.hpp"
#include "serve/serve_json.hpp"

namespace linksim {
namespace {

using Json = nlohmann::ordered_json;
using json_numbers::count_value;
using json_numbers::rounded;

Json collective_json(const CollectiveSweepRecord& c) {
  Json rows = Json::array();
  for (const CollectiveRow& row : c.rows) {
    Json json{
        {"size_bytes", count_value(row.size_bytes)},
        {"count", count_value(row.count)},
        {"type", row.type},
        {"redop", row.redop},
        {"root", row.root},
        {"time_us", rounded(row.time_s / kMicrosecond)},
        {"algbw_GBps", rounded(row.algbw_Bps / kGB)},
        {"busbw_GBps", rounded(row.busbw_Bps / kGB)},
        {"algorithm", row.algorithm},
        {"protocol", row.protocol},
        {"bottleneck", row.bottleneck},
    };
    if (!row.confidence.empty()) {  // the row's error band (docs/calibration.md#error-bands)
      json["time_low_us"] = rounded(row.time_low_s / kMicrosecond);
      json["time_high_us"] = rounded(row.time_high_s / kMicrosecond);
      json["confidence"] = row.confidence;
    }
    rows.push_back(std::move(json));
  }
  return Json{{"collective", c.collective}, {"ranks", c.ranks},
              {"mode", c.mode},             {"nccl_version", c.nccl_version},
              {"algo", c.algorithm},        {"proto", c.protocol},
              {"p2p", c.p2p},               {"nvls", c.nvls},
              {"rows", std::move(rows)}};
}

Json link_usage_json(const LinkUsageRecord& u) {
  Json set = Json::object();
  for (const auto& [name, value] : u.set) set[name] = value;
  Json links = Json::array();
  for (const LinkUtilization& l : u.links) links.push_back(Json::array({l.link, l.utilization}));
  return Json{{"size_bytes", count_value(u.size_bytes)}, {"mode", u.mode},
              {"topology_file", u.topology_file},        {"set", std::move(set)},
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
  return Json{{"compute_s", rounded(b.compute_s)},
              {"exposed_comm_s", rounded(b.exposed_comm_s)},
              {"bubble_s", rounded(b.bubble_s)}};
}

Json memory_json(const MemoryBreakdown& m) {
  auto gb = [](double bytes) { return rounded(bytes / kGB); };
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
                         {"count", rounded(c.count)},
                         {"algorithm", std::string(to_string(c.algorithm))},
                         {"protocol", std::string(to_string(c.protocol))},
                         {"time_s", rounded(c.time_s)},
                         {"exposed_s", rounded(c.exposed_s)},
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
      {"step_time_s", rounded(p.step_time_s)},
      {"tokens_per_s", rounded(p.tokens_per_s)},
      {"tokens_per_s_per_gpu", rounded(p.tokens_per_s_per_gpu)},
      {"model_tflops_per_gpu", rounded(p.model_tflops_per_gpu)},
      {"mfu", rounded(p.mfu)},
      {"ttft_s", rounded(p.ttft_s)},
      {"tpot_s", rounded(p.tpot_s)},
      {"comm_time_s", rounded(p.comm_time_s)},
      {"comm_compute_ratio", rounded(p.comm_compute_ratio)},
      {"speedup", rounded(p.speedup)},
      {"scaling_efficiency", rounded(p.scaling_efficiency)},
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
                       {"tokens_per_s", rounded(c.tokens_per_s)},
                       {"step_time_s", rounded(c.step_time_s)},
                       {"memory_GB", rounded(c.memory_bytes / kGB)},
                       {"breakdown", breakdown_json(c.breakdown)},
                       {"verdict", c.verdict}});
  }
  return out;
}

Json serve_case_json(const ServeCaseResult& s) {
  Json serve = serve_json::serve_result_json(s.run);
  serve.erase("assumptions");
  serve["max_rate_requests_per_s"] = rounded(s.max_rate_requests_per_s);
  return serve;
}

}  // namespace

namespace scenario_json {

Json case_record_object(const CaseRecord& r, CaseFields fields) {
  Json parameters = Json::object();
  for (const auto& [name, value] : r.parameters) parameters[name] = value;
  Json doc{{"id", r.id}, {"index", r.index}};
  if (fields == CaseFields::kCaseFile) doc["fingerprint"] = r.fingerprint;
  doc.update(Json{{"study", r.study},
                  {"kind", r.kind},
                  {"machine", r.machine},
                  {"topology", r.topology},
                  {"parameters", std::move(parameters)},
                  {"gpu_model", r.gpu_model},
                  {"gpus", r.gpus},
                  {"servers", r.servers},
                  {"status", r.ok() ? "ok" : "error"},
                  {"error", r.error}});
  if (const CollectiveSweepRecord* c = r.collective()) {
    doc["collective"] = collective_json(*c);
    if (c->link_usage && fields == CaseFields::kCaseFile) {
      doc["link_usage"] = link_usage_json(*c->link_usage);
    }
  }
  if (const PlanCaseRecord* p = r.plan_case()) {
    if (p->plan) doc["plan"] = plan_json(*p->plan);
    if (p->search) doc["search"] = ranking_json(*p->search);
  }
  if (const ServeCaseResult* s = r.serve()) doc["serve"] = serve_case_json(*s);
  return doc;
}

}  // namespace scenario_json

std::string case_record_json(const CaseRecord& record) {
  const Json doc = scenario_json::case_record_object(record, scenario_json::CaseFields::kCaseFile);
  return doc.contains("link_usage") ? with_compact_links(doc) : doc.dump(2) + "\n";
}

}  // namespace linksim
