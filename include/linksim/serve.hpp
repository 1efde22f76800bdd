// SPDX-License-Identifier: Apache-2.0
// Serving as it really runs (docs/serving.md): a discrete-event simulation of requests on
// model replicas. Requests arrive (Poisson, closed loop or a trace), wait for KV-cache blocks,
// and run in a serving engine's iterations under continuous batching; each iteration's time is
// the planner's step model for exactly that batch (IterationTimer) plus the engine's overhead.
// Out come latency percentiles (TTFT, TPOT, ITL, E2E), throughput, goodput under an SLO, KV
// utilisation and preemptions, the running batch and queue over time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/engine.hpp"
#include "linksim/plan.hpp"
#include "linksim/topology.hpp"

namespace linksim {

/// Prompt or output lengths: a fixed number or a distribution, sampled per request and
/// rounded to whole tokens within [1, max_model_len].
struct LengthDistribution {
  enum class Kind { kFixed, kUniform, kNormal, kLognormal };
  Kind kind = Kind::kFixed;
  double a = 128;  ///< fixed: the length; uniform: low; normal: mean; lognormal: mu
  double b = 0;    ///< uniform: high (inclusive); normal: sd; lognormal: sigma
  /// "128", "uniform:64:256", "normal:512:64", "lognormal:6:0.5"
  std::string describe() const;
};

/// Parses "128", "uniform:A:B", "normal:MEAN:SD" or "lognormal:MU:SIGMA" (numbers, no range
/// checks); nullopt for anything else.
std::optional<LengthDistribution> parse_length_distribution(std::string_view text);

/// One request of a trace: when it arrives and how long it is.
struct TraceRequest {
  double arrival_s = 0;
  int input_tokens = 0;
  int output_tokens = 0;
  int line = 0;          ///< the row's line in its file (1-based); 0 when not read from one
  int input_column = 0;  ///< the column of its input tokens (1-based); 0 when not read from one
};

/// The most tokens a trace row may give for its prompt or output: beyond any model's context.
inline constexpr int kMaxTraceTokens = 100'000'000;

/// Reads a CSV trace: arrival time (s), input tokens, output tokens per row; a header row
/// (a first row that is not numbers) is skipped; blank lines are ignored. Throws ConfigError
/// at file:line:column for a malformed row, a length below 1 or above kMaxTraceTokens, an
/// arrival before the one above it, or a file without rows.
std::vector<TraceRequest> parse_trace_csv(std::string_view text, const std::string& file);

/// A latency objective: a request meets it when its TTFT and its TPOT are within the bounds;
/// a run meets it when at least `percentile` % of its requests do.
struct ServeSlo {
  std::optional<double> ttft_s;
  std::optional<double> tpot_s;
  double percentile = 99;
};

/// How a request picks one of the data-parallel replicas.
enum class ReplicaRouting { kRoundRobin, kShortestQueue };
std::string_view to_string(ReplicaRouting routing);  ///< "round-robin", "shortest-queue"

/// What to simulate. Exactly one of rate_per_s, concurrency or a non-empty trace.
struct ServeRequest {
  /// Model, layout (tp, pp, dp = replicas, ...), machine options, precision; its mode and
  /// batch sizes are ignored. `plan.engine` is ignored too: `engine` below is used.
  PlanRequest plan;
  EngineModel engine;
  std::optional<double> rate_per_s;     ///< open loop: Poisson arrivals, requests/s (all replicas)
  std::optional<int> concurrency;       ///< closed loop: this many clients, each sending its next
                                        ///< request when the previous one completes
  std::vector<TraceRequest> trace;      ///< replaces arrivals and lengths when not empty
  std::string trace_file;               ///< where the trace was read, for errors at its rows
  LengthDistribution input, output;
  int requests = 1000;                  ///< simulated (ignored with a trace: all of its rows)
  std::uint64_t seed = 1;
  int max_model_len = 131072;           ///< prompt + output at most, tokens
  std::optional<ServeSlo> slo;
  ReplicaRouting routing = ReplicaRouting::kRoundRobin;
  std::optional<long> kv_blocks;        ///< override the pool size (blocks per replica)
  bool keep_records = false;            ///< fill ServeResult::records (per-request CSV)
};

/// Mean and percentiles of a latency, seconds.
struct LatencyStats {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
};

struct ServeThroughput {
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
};

struct KvStats {
  long blocks = 0;                ///< per replica
  int block_size_tokens = 0;
  double bytes_per_token = 0;     ///< per GPU (the most loaded pipeline stage)
  double utilization_mean = 0;    ///< time-weighted mean of blocks in use / blocks
  long preemptions = 0;           ///< all replicas
};

/// One sample of the state of the replicas (summed over them) at a moment.
struct ServeSample {
  double time_s = 0;
  int running = 0;        ///< sequences in the running batch
  int queued = 0;         ///< requests waiting for admission
  double kv_utilization = 0;
};

/// One request's life, for --requests-csv.
struct RequestRecord {
  int id = 0;
  int replica = 0;
  double arrival_s = 0, first_token_s = 0, finish_s = 0;
  int input_tokens = 0, output_tokens = 0;
  int preemptions = 0;
};

struct ServeResult {
  std::string model, topology, gpu_model;
  std::string engine;                 ///< engine name
  std::string engine_release;
  int replicas = 1;
  int gpus = 0;                       ///< all replicas
  ParallelLayout layout;              ///< one replica's layout (dp = 1)
  double rate_requests_per_s = 0;     ///< offered rate (Poisson), or the trace's mean; 0 closed loop
  std::optional<int> concurrency;
  int requests = 0;
  double duration_s = 0;              ///< first arrival to last completion
  LatencyStats ttft_s, tpot_s, itl_s, e2e_s;
  LatencyStats queue_s;               ///< arrival to first scheduled
  ServeThroughput throughput;
  std::optional<double> goodput_requests_per_s;  ///< with an SLO
  std::optional<double> slo_attainment;          ///< with an SLO: fraction (0..1) meeting it
  bool slo_met = false;                          ///< with an SLO: attainment >= percentile
  KvStats kv;
  long iterations = 0;
  double mean_batch_tokens = 0;       ///< tokens per iteration
  double mean_running = 0;            ///< time-weighted sequences running (all replicas)
  double mean_in_system = 0;          ///< time-weighted requests queued or running (Little's L)
  double comm_share = 0;              ///< of the iterations' time, exposed communication
  double engine_share = 0;            ///< of the iterations' time, the engine's overhead
  std::string bounding_link;          ///< the link that bounds the exposed communication
  std::string allreduce;              ///< "nccl", "custom one-shot", ... of a typical iteration
  std::vector<ServeSample> timeline;  ///< about 200 samples over the run
  std::vector<RequestRecord> records; ///< with keep_records
  std::vector<std::string> assumptions;
  double wall_s = 0;                  ///< simulation wall time (for the figures)
  long distinct_iterations = 0;       ///< iteration shapes timed by the step model (cache misses)
};

/// The highest Poisson rate meeting the SLO, by bisection.
struct MaxRateResult {
  double rate_requests_per_s = 0;   ///< 0 when even the lowest rate tried misses the SLO
  ServeResult at;                   ///< the run at that rate
  int probes = 0;
};

/// The replica's step model and KV pool set up once; runs any number of workloads. Not
/// thread-safe. REQUIRES: the topology outlives it.
class ServeSimulator {
 public:
  /// Throws ConfigError for a layout plan() refuses, a model that leaves no KV memory, an
  /// invalid workload (naming the field: rate, concurrency, requests, input, output, slo).
  ServeSimulator(const Topology& topology, ServeRequest request);
  ~ServeSimulator();
  ServeSimulator(ServeSimulator&&) noexcept;

  /// The request's workload.
  ServeResult run();
  /// The request's workload at another Poisson rate (requests/s).
  ServeResult run_at_rate(double rate_per_s);
  /// One run per rate from `from` to `to` (inclusive, within rounding) by `step`.
  std::vector<ServeResult> sweep(double from, double to, double step);
  /// REQUIRES: an SLO. The highest rate meeting it, within 1 %.
  MaxRateResult max_rate();

  const ServeRequest& request() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One run: ServeSimulator(topology, request).run().
ServeResult simulate_serving(const Topology& topology, const ServeRequest& request);

}  // namespace linksim
