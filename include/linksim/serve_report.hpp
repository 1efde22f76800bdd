// SPDX-License-Identifier: Apache-2.0
// Renderings of serving results (include/linksim/serve.hpp): a readable summary, the JSON
// contract (docs/cli.md#linksim-serve) and a CSV of per-request records. Rendering only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "linksim/serve.hpp"

namespace linksim {

/// What a `serve` invocation answers: one run, or a sweep, and the max rate when asked.
struct ServeReport {
  std::optional<ServeResult> run;         ///< the run at the requested rate / concurrency / trace
  std::vector<ServeResult> sweep;         ///< --rate-sweep: one per rate
  std::optional<MaxRateResult> max_rate;  ///< --max-rate
  std::optional<ServeSlo> slo;
};

/// Text: configuration and assumptions, latency table (mean, p50, p90, p99 of TTFT, TPOT,
/// ITL, E2E, queue), throughput, goodput, KV use, where the iteration time goes, the running
/// batch and queue over time (a few rows), then the sweep table and the max rate.
std::string render_serve_text(const ServeReport& report);

/// One JSON object (2-space indent, '\n'). The run's keys (docs/cli.md#serve-json):
///   ttft_s, tpot_s, itl_s, e2e_s {mean, p50, p90, p99}; throughput {requests_per_s,
///   output_tokens_per_s, output_tokens_per_s_per_gpu}; goodput_requests_per_s and
///   slo_attainment (with an SLO); kv {blocks, utilization_mean, preemptions}; requests,
///   engine, rate_requests_per_s; and more (model, topology, replicas, gpus, queue_s,
///   comm_share, bounding_link, timeline ...). max_rate_requests_per_s with --max-rate;
///   sweep [objects like the run] with --rate-sweep.
std::string render_serve_json(const ServeReport& report);

/// CSV, one row per request: id, replica, arrival_s, first_token_s, finish_s, input_tokens,
/// output_tokens, ttft_s, tpot_s, e2e_s, preemptions.
std::string render_requests_csv(const ServeResult& result);

}  // namespace linksim
