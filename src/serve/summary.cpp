// SPDX-License-Identifier: Apache-2.0
// A run's answer from its event trace: latency percentiles, throughput, goodput under the SLO,
// KV use and the state over time (docs/serving.md#outputs).
#include <algorithm>
#include <cmath>

#include "serve/summary.hpp"

namespace linksim::serve_detail {
namespace {

constexpr size_t kTimelineSamples = 200;

std::vector<ServeSample> thin_samples(const std::vector<ServeSample>& all, double end_s) {
  if (all.size() <= kTimelineSamples || end_s <= 0) return all;
  std::vector<ServeSample> out;
  out.reserve(kTimelineSamples + 1);
  size_t i = 0;
  for (size_t k = 0; k <= kTimelineSamples; ++k) {
    const double t = end_s * double(k) / kTimelineSamples;
    while (i + 1 < all.size() && all[i + 1].time_s <= t) ++i;
    ServeSample s = all[i];
    s.time_s = t;
    out.push_back(s);
  }
  return out;
}

bool meets_slo(const ServeSlo& slo, double ttft_s, const std::optional<double>& tpot_s) {
  if (slo.ttft_s && ttft_s > *slo.ttft_s) return false;
  if (slo.tpot_s && tpot_s && *tpot_s > *slo.tpot_s) return false;
  return true;
}

}  // namespace

void summarise_run(const RunTrace& trace, const ServeRequest& r, ServeResult& out) {
  std::vector<double> ttft, tpot, e2e, queue;
  const size_t n = trace.sequences.size();
  ttft.reserve(n);
  e2e.reserve(n);
  queue.reserve(n);
  double first_arrival = n ? trace.sequences.front().arrival_s : 0, output_tokens = 0;
  long good = 0;
  for (const Sequence& s : trace.sequences) {
    first_arrival = std::min(first_arrival, s.arrival_s);
    const double t_first = s.first_token_s.value_or(s.finish_s) - s.arrival_s;
    ttft.push_back(t_first);
    e2e.push_back(s.finish_s - s.arrival_s);
    queue.push_back(s.scheduled_s.value_or(s.arrival_s) - s.arrival_s);
    std::optional<double> per_token;
    if (s.output_tokens > 1) {
      per_token = (s.finish_s - *s.first_token_s) / (s.output_tokens - 1);
      tpot.push_back(*per_token);
    }
    output_tokens += s.output_tokens;
    if (r.slo && meets_slo(*r.slo, t_first, per_token)) ++good;
    if (r.keep_records) {
      out.records.push_back({s.id, s.replica, s.arrival_s, s.first_token_s.value_or(s.finish_s),
                             s.finish_s, s.input_tokens, s.output_tokens, s.preemptions});
    }
  }
  out.requests = int(n);
  out.ttft_s = latency_stats(ttft);
  out.tpot_s = latency_stats(tpot);
  out.e2e_s = latency_stats(e2e);
  out.queue_s = latency_stats(queue);
  out.itl_s = trace.gaps.stats();
  out.duration_s = std::max(trace.end_s - first_arrival, 1e-12);
  out.throughput.requests_per_s = double(n) / out.duration_s;
  out.throughput.output_tokens_per_s = output_tokens / out.duration_s;
  out.throughput.output_tokens_per_s_per_gpu = out.throughput.output_tokens_per_s / out.gpus;
  if (r.slo) {
    out.slo_attainment = n ? double(good) / double(n) : 0;
    out.goodput_requests_per_s = double(good) / out.duration_s;
    out.slo_met = 100 * *out.slo_attainment >= r.slo->percentile - 1e-9;
  }
  const double span = std::max(trace.end_s, 1e-12);
  out.kv.preemptions = trace.preemptions;
  out.kv.utilization_mean =
      out.kv.blocks > 0 ? trace.kv_used_area / (span * double(out.kv.blocks) * out.replicas) : 0;
  out.iterations = trace.iterations;
  out.mean_batch_tokens = trace.iterations ? trace.tokens / double(trace.iterations) : 0;
  out.mean_running = trace.running_area / span;
  out.mean_in_system = trace.system_area / span;
  out.comm_share = trace.step_s > 0 ? trace.comm_s / trace.step_s : 0;
  out.engine_share = trace.step_s > 0 ? trace.engine_s / trace.step_s : 0;
  out.timeline = thin_samples(trace.samples, trace.end_s);
}

IterationBatch typical_batch(const RunTrace& trace) {
  IterationBatch b;
  if (trace.iterations == 0) return b;
  const double k = double(trace.iterations);
  const IterationBatch& s = trace.batch_sum;
  b.decode_sequences = int(std::lround(s.decode_sequences / k));
  b.decode_context_tokens = s.decode_context_tokens / k;
  b.prefill_sequences = int(std::lround(s.prefill_sequences / k));
  b.prefill_tokens = std::round(s.prefill_tokens / k);
  b.prefill_attention_pairs = s.prefill_attention_pairs / k;
  b.prefill_context_tokens = s.prefill_context_tokens / k;
  if (b.tokens() < 1) b.decode_sequences = 1;
  return b;
}

}  // namespace linksim::serve_detail
