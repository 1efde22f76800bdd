// SPDX-License-Identifier: Apache-2.0
// The text rendering of serving results (render_serve_text) and the per-request CSV.
#include <fmt/core.h>

#include "linksim/serve_report.hpp"
#include "report/text_table.hpp"

namespace linksim {
namespace {

using report_text::TextTable;

std::string serve_ms(double seconds) { return fmt::format("{:.2f}", seconds * 1e3); }

void add_latency_row(TextTable& t, const char* name, const LatencyStats& s) {
  t.add_row({name, serve_ms(s.mean), serve_ms(s.p50), serve_ms(s.p90), serve_ms(s.p99)});
}

std::string serve_run_text(const ServeResult& r) {
  std::string out;
  out += fmt::format("{} on {} ({} x {}), engine {} ({})\n", r.model, r.topology, r.gpus,
                     r.gpu_model, r.engine, r.engine_release);
  out += fmt::format("replica: tp={} pp={} cp={}; {} replica{}\n", r.layout.tp, r.layout.pp,
                     r.layout.cp, r.replicas, r.replicas == 1 ? "" : "s");
  if (r.concurrency) {
    out += fmt::format("workload: closed loop, {} clients, {} requests\n", *r.concurrency, r.requests);
  } else {
    out += fmt::format("workload: {:g} requests/s, {} requests\n", r.rate_requests_per_s, r.requests);
  }
  out += "assumptions:\n";
  for (const std::string& a : r.assumptions) out += "  - " + a + "\n";
  out += "\nlatency (ms):\n";
  TextTable t({"", "mean", "p50", "p90", "p99"}, {false, true, true, true, true});
  add_latency_row(t, "TTFT", r.ttft_s);
  add_latency_row(t, "TPOT", r.tpot_s);
  add_latency_row(t, "ITL", r.itl_s);
  add_latency_row(t, "E2E", r.e2e_s);
  add_latency_row(t, "queue", r.queue_s);
  out += t.render("  ");
  out += fmt::format("\nthroughput: {:.3f} requests/s, {:.1f} output tokens/s, {:.1f} per GPU "
                     "(over {:.2f} s)\n",
                     r.throughput.requests_per_s, r.throughput.output_tokens_per_s,
                     r.throughput.output_tokens_per_s_per_gpu, r.duration_s);
  if (r.slo_attainment) {
    out += fmt::format("goodput: {:.3f} requests/s; SLO attainment {:.1f} % ({})\n",
                       *r.goodput_requests_per_s, 100 * *r.slo_attainment,
                       r.slo_met ? "met" : "missed");
  }
  out += fmt::format("KV cache: {} blocks of {} tokens per replica, mean utilisation {:.1f} %, "
                     "{} preemptions\n",
                     r.kv.blocks, r.kv.block_size_tokens, 100 * r.kv.utilization_mean,
                     r.kv.preemptions);
  out += fmt::format("iterations: {}, {:.1f} tokens each on average, {:.1f} sequences running, "
                     "{:.1f} requests in the system\n",
                     r.iterations, r.mean_batch_tokens, r.mean_running, r.mean_in_system);
  out += fmt::format("iteration time: {:.1f} % exposed communication{}, {:.1f} % engine overhead\n",
                     100 * r.comm_share,
                     r.bounding_link.empty() ? ""
                                             : fmt::format(" (bound by {}, {})", r.bounding_link, r.allreduce),
                     100 * r.engine_share);
  if (!r.timeline.empty()) {
    out += "\nover time:\n";
    TextTable tl({"time_s", "running", "queued", "kv_used"}, {true, true, true, true});
    const size_t step = std::max<size_t>(1, r.timeline.size() / 10);
    for (size_t i = 0; i < r.timeline.size(); i += step) {
      const ServeSample& s = r.timeline[i];
      tl.add_row({fmt::format("{:.2f}", s.time_s), std::to_string(s.running),
                  std::to_string(s.queued), fmt::format("{:.1f} %", 100 * s.kv_utilization)});
    }
    out += tl.render("  ");
  }
  return out;
}

std::string serve_sweep_text(const std::vector<ServeResult>& sweep) {
  TextTable t({"rate", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "req/s", "tok/s",
               "goodput", "preempt"},
              {true, true, true, true, true, true, true, true, true});
  for (const ServeResult& r : sweep) {
    t.add_row({fmt::format("{:g}", r.rate_requests_per_s), serve_ms(r.ttft_s.p50),
               serve_ms(r.ttft_s.p99), serve_ms(r.tpot_s.p50), serve_ms(r.tpot_s.p99),
               fmt::format("{:.2f}", r.throughput.requests_per_s),
               fmt::format("{:.0f}", r.throughput.output_tokens_per_s),
               r.goodput_requests_per_s ? fmt::format("{:.2f}", *r.goodput_requests_per_s) : "-",
               std::to_string(r.kv.preemptions)});
  }
  return "rate sweep (requests/s; latencies in ms):\n" + t.render("  ");
}

}  // namespace

std::string render_serve_text(const ServeReport& report) {
  std::string out;
  if (report.run) out += serve_run_text(*report.run);
  if (!report.sweep.empty()) {
    if (!out.empty()) out += "\n";
    if (!report.run) out += serve_run_text(report.sweep.front()) + "\n";
    out += serve_sweep_text(report.sweep);
  }
  if (report.max_rate) {
    if (!out.empty()) out += "\n";
    std::string slo;
    if (report.slo && report.slo->ttft_s) slo += fmt::format("TTFT <= {:g} ms", *report.slo->ttft_s * 1e3);
    if (report.slo && report.slo->tpot_s) {
      slo += fmt::format("{}TPOT <= {:g} ms", slo.empty() ? "" : ", ", *report.slo->tpot_s * 1e3);
    }
    if (report.slo) slo += fmt::format(" for {:g} % of requests", report.slo->percentile);
    out += fmt::format("max rate meeting the SLO ({}): {:.3f} requests/s ({} runs)\n", slo,
                       report.max_rate->rate_requests_per_s, report.max_rate->probes);
    if (report.max_rate->rate_requests_per_s > 0) {
      const ServeResult& at = report.max_rate->at;
      out += fmt::format("  there: TTFT p99 {} ms, TPOT p99 {} ms, {:.1f} output tokens/s\n",
                         serve_ms(at.ttft_s.p99), serve_ms(at.tpot_s.p99),
                         at.throughput.output_tokens_per_s);
    }
  }
  return out;
}

std::string render_requests_csv(const ServeResult& r) {
  std::string out =
      "id,replica,arrival_s,first_token_s,finish_s,input_tokens,output_tokens,ttft_s,tpot_s,e2e_s,"
      "preemptions\n";
  for (const RequestRecord& q : r.records) {
    const double tpot = q.output_tokens > 1 ? (q.finish_s - q.first_token_s) / (q.output_tokens - 1) : 0;
    out += fmt::format("{},{},{:.9g},{:.9g},{:.9g},{},{},{:.9g},{:.9g},{:.9g},{}\n", q.id, q.replica,
                       q.arrival_s, q.first_token_s, q.finish_s, q.input_tokens, q.output_tokens,
                       q.first_token_s - q.arrival_s, tpot, q.finish_s - q.arrival_s, q.preemptions);
  }
  return out;
}

}  // namespace linksim
