// SPDX-License-Identifier: Apache-2.0
// A serving run as JSON, both ways. Field names and units are a contract (docs/cli.md#serve-json):
// add fields, never rename or remove them.
#include "serve/serve_json.hpp"

#include "common/json_numbers.hpp"

namespace linksim::serve_json {
namespace {

using Json = nlohmann::ordered_json;
using json_fields::FieldReader;
using json_numbers::rounded;

Json latency_json(const LatencyStats& s) {
  return Json{{"mean", rounded(s.mean)}, {"p50", rounded(s.p50)}, {"p90", rounded(s.p90)},
              {"p99", rounded(s.p99)}};
}

LatencyStats latency_from(const FieldReader& s) {
  return LatencyStats{s.number("mean"), s.number("p50"), s.number("p90"), s.number("p99")};
}

int to_int(std::int64_t value) { return static_cast<int>(value); }

}  // namespace

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
  j["ttft_s"] = latency_json(r.ttft_s);
  j["tpot_s"] = latency_json(r.tpot_s);
  j["itl_s"] = latency_json(r.itl_s);
  j["e2e_s"] = latency_json(r.e2e_s);
  j["queue_s"] = latency_json(r.queue_s);
  j["throughput"] =
      Json{{"requests_per_s", rounded(r.throughput.requests_per_s)},
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

ServeResult serve_result_from_json(const FieldReader& f) {
  ServeResult r;
  r.model = f.text("model");
  r.topology = f.text("topology");
  r.gpu_model = f.text("gpu_model");
  r.engine = f.text("engine");
  r.engine_release = f.text("engine_release");
  r.replicas = to_int(f.integer("replicas"));
  r.gpus = to_int(f.integer("gpus"));
  const FieldReader parallel = f.object("parallel");
  r.layout.tp = to_int(parallel.integer("tp"));
  r.layout.pp = to_int(parallel.integer("pp"));
  r.layout.cp = to_int(parallel.integer("cp"));
  r.layout.ep = to_int(parallel.integer("ep"));
  r.rate_requests_per_s = f.number("rate_requests_per_s");
  if (auto c = f.optional_integer("concurrency")) r.concurrency = to_int(*c);
  r.requests = to_int(f.integer("requests"));
  r.duration_s = f.number("duration_s");
  r.ttft_s = latency_from(f.object("ttft_s"));
  r.tpot_s = latency_from(f.object("tpot_s"));
  r.itl_s = latency_from(f.object("itl_s"));
  r.e2e_s = latency_from(f.object("e2e_s"));
  r.queue_s = latency_from(f.object("queue_s"));
  const FieldReader throughput = f.object("throughput");
  r.throughput.requests_per_s = throughput.number("requests_per_s");
  r.throughput.output_tokens_per_s = throughput.number("output_tokens_per_s");
  r.throughput.output_tokens_per_s_per_gpu = throughput.number("output_tokens_per_s_per_gpu");
  if (f.has("slo_attainment")) {  // written with an SLO only
    r.goodput_requests_per_s = f.optional_number("goodput_requests_per_s");
    r.slo_attainment = f.number("slo_attainment");
    r.slo_met = f.boolean("slo_met");
  }
  const FieldReader kv = f.object("kv");
  r.kv.blocks = static_cast<long>(kv.integer("blocks"));
  r.kv.block_size_tokens = to_int(kv.integer("block_size_tokens"));
  r.kv.bytes_per_token = kv.number("bytes_per_token");
  r.kv.utilization_mean = kv.number("utilization_mean");
  r.kv.preemptions = static_cast<long>(kv.integer("preemptions"));
  r.iterations = static_cast<long>(f.integer("iterations"));
  r.mean_batch_tokens = f.number("mean_batch_tokens");
  r.mean_running = f.number("mean_running");
  r.mean_in_system = f.number("mean_in_system");
  r.comm_share = f.number("comm_share");
  r.engine_share = f.number("engine_share");
  r.bounding_link = f.optional_text("bounding_link");
  r.allreduce = f.optional_text("allreduce");
  for (const FieldReader& s : f.objects("timeline")) {
    r.timeline.push_back(ServeSample{s.number("time_s"), to_int(s.integer("running")),
                                     to_int(s.integer("queued")), s.number("kv_utilization")});
  }
  if (f.has("assumptions")) r.assumptions = f.texts("assumptions");
  return r;
}

}  // namespace linksim::serve_json
