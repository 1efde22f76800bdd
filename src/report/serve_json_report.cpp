// SPDX-License-Identifier: Apache-2.0
// The JSON rendering of serving results (render_serve_json). Field names and units are a
// contract (docs/cli.md#serve-json): add fields, never rename or remove them.
#include <nlohmann/json.hpp>

#include "linksim/serve_report.hpp"
#include "report/json_numbers.hpp"
#include "report/serve_json.hpp"

namespace linksim {
namespace {

using Json = nlohmann::ordered_json;
using report_json::rounded;

Json serve_latency_json(const LatencyStats& s) {
  return Json{{"mean", rounded(s.mean)}, {"p50", rounded(s.p50)}, {"p90", rounded(s.p90)},
              {"p99", rounded(s.p99)}};
}

}  // namespace

namespace report_json {

Json serve_result_json(const ServeResult& r) {
  Json j;
  j["model"] = r.model;
  j["topology"] = r.topology;
  j["gpu_model"] = r.gpu_model;
  j["engine"] = r.engine;
  j["engine_release"] = r.engine_release;
  j["replicas"] = r.replicas;
  j["gpus"] = r.gpus;
  j["parallel"] = Json{{"tp", r.layout.tp}, {"pp", r.layout.pp}, {"cp", r.layout.cp},
                       {"ep", r.layout.ep}, {"dp", r.replicas}};
  j["rate_requests_per_s"] = rounded(r.rate_requests_per_s);
  j["concurrency"] = r.concurrency ? Json(*r.concurrency) : Json(nullptr);
  j["requests"] = r.requests;
  j["duration_s"] = rounded(r.duration_s);
  j["ttft_s"] = serve_latency_json(r.ttft_s);
  j["tpot_s"] = serve_latency_json(r.tpot_s);
  j["itl_s"] = serve_latency_json(r.itl_s);
  j["e2e_s"] = serve_latency_json(r.e2e_s);
  j["queue_s"] = serve_latency_json(r.queue_s);
  j["throughput"] = Json{{"requests_per_s", rounded(r.throughput.requests_per_s)},
                         {"output_tokens_per_s", rounded(r.throughput.output_tokens_per_s)},
                         {"output_tokens_per_s_per_gpu", rounded(r.throughput.output_tokens_per_s_per_gpu)}};
  if (r.slo_attainment) {
    j["goodput_requests_per_s"] = rounded(r.goodput_requests_per_s);
    j["slo_attainment"] = rounded(r.slo_attainment);
    j["slo_met"] = r.slo_met;
  }
  j["kv"] = Json{{"blocks", r.kv.blocks},
                 {"block_size_tokens", r.kv.block_size_tokens},
                 {"bytes_per_token", rounded(r.kv.bytes_per_token)},
                 {"utilization_mean", rounded(r.kv.utilization_mean)},
                 {"preemptions", r.kv.preemptions}};
  j["iterations"] = r.iterations;
  j["mean_batch_tokens"] = rounded(r.mean_batch_tokens);
  j["mean_running"] = rounded(r.mean_running);
  j["mean_in_system"] = rounded(r.mean_in_system);
  j["comm_share"] = rounded(r.comm_share);
  j["engine_share"] = rounded(r.engine_share);
  j["bounding_link"] = r.bounding_link.empty() ? Json(nullptr) : Json(r.bounding_link);
  j["allreduce"] = r.allreduce.empty() ? Json(nullptr) : Json(r.allreduce);
  Json timeline = Json::array();
  for (const ServeSample& s : r.timeline) {
    timeline.push_back(Json{{"time_s", rounded(s.time_s)}, {"running", s.running},
                            {"queued", s.queued}, {"kv_utilization", rounded(s.kv_utilization)}});
  }
  j["timeline"] = timeline;
  j["assumptions"] = r.assumptions;
  return j;
}

}  // namespace report_json

std::string render_serve_json(const ServeReport& report) {
  Json j = report.run ? report_json::serve_result_json(*report.run) : Json::object();
  if (report.slo) {
    j["slo"] = Json{{"ttft_s", rounded(report.slo->ttft_s)}, {"tpot_s", rounded(report.slo->tpot_s)},
                    {"percentile", rounded(report.slo->percentile)}};
  }
  if (report.max_rate) {
    j["max_rate_requests_per_s"] = rounded(report.max_rate->rate_requests_per_s);
    j["max_rate_probes"] = report.max_rate->probes;
  }
  if (!report.sweep.empty()) {
    Json sweep = Json::array();
    for (const ServeResult& r : report.sweep) {
      Json point = report_json::serve_result_json(r);
      point.erase("timeline");
      point.erase("assumptions");
      sweep.push_back(point);
    }
    j["sweep"] = sweep;
  }
  return j.dump(2) + "\n";
}

}  // namespace linksim
