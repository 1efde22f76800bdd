// SPDX-License-Identifier: Apache-2.0
// ServeSimulator: the replica's step model, iteration cache and KV pool set up once; each run
// generates its requests, runs the event loop and summarises (docs/serving.md).
#include <chrono>
#include <fmt/core.h>

#include "linksim/error.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/units.hpp"
#include "serve/summary.hpp"

namespace linksim {
namespace {

using serve_detail::KvPool;

PlanRequest iteration_request(const ServeRequest& r) {
  PlanRequest p = r.plan;
  p.mode = PlanMode::kDecode;
  p.engine = r.engine;
  p.batch = 1;
  p.kv_len = 1;
  p.compute_baseline = false;
  return p;
}

void check_serve_length(const LengthDistribution& d, const char* field, int max_model_len) {
  using Kind = LengthDistribution::Kind;
  const bool fixed_bad = d.kind == Kind::kFixed && (d.a < 1 || d.a > max_model_len);
  const bool uniform_bad = d.kind == Kind::kUniform && (d.a < 1 || d.b < d.a || d.b > max_model_len);
  const bool spread_bad = (d.kind == Kind::kNormal || d.kind == Kind::kLognormal) && d.b < 0;
  if (fixed_bad || uniform_bad || spread_bad) {
    throw ConfigError(fmt::format("{}: expected lengths from 1 to {} tokens (max_model_len), got {}",
                                  field, max_model_len, d.describe()));
  }
}

void check_serve_workload(const ServeRequest& r) {
  const int sources = (r.rate_per_s ? 1 : 0) + (r.concurrency ? 1 : 0) + (r.trace.empty() ? 0 : 1);
  if (sources != 1) {
    throw ConfigError(fmt::format("expected one of rate, concurrency or a trace, got {}", sources));
  }
  if (r.rate_per_s && !(*r.rate_per_s > 0)) {
    throw ConfigError(fmt::format("rate: expected requests/s > 0, got {:g}", *r.rate_per_s));
  }
  if (r.concurrency && *r.concurrency < 1) {
    throw ConfigError(fmt::format("concurrency: expected at least 1 client, got {}", *r.concurrency));
  }
  if (r.trace.empty() && r.requests < 1) {
    throw ConfigError(fmt::format("requests: expected at least 1, got {}", r.requests));
  }
  check_serve_length(r.input, "input", r.max_model_len);
  check_serve_length(r.output, "output", r.max_model_len);
  if (r.slo && !(r.slo->percentile > 0 && r.slo->percentile <= 100)) {
    throw ConfigError(fmt::format("slo: expected a percentile in (0, 100], got {:g}", r.slo->percentile));
  }
}

int replica_count(const Topology& topology, const ServeRequest& r, int replica_gpus) {
  const GpuSelection& s = r.plan.gpus;
  const int available = (s.first_n || s.list || s.per_node) ? int(select_gpus(topology, s).size())
                                                          : int(topology.gpus().size());
  const int replicas = r.plan.dp.value_or(std::max(1, available / replica_gpus));
  if (replicas * replica_gpus > available) {
    throw ConfigError(fmt::format("{} replicas of {} GPUs need {} GPUs, but {} are selected",
                                  replicas, replica_gpus, replicas * replica_gpus, available));
  }
  return replicas;
}

}  // namespace

struct ServeSimulator::Impl {
  Impl(const Topology& t, ServeRequest r)
      : topology(t), request(std::move(r)), timer(t, iteration_request(request)), cache(timer),
        pool(serve_detail::size_kv_pool(timer, request.engine, request.kv_blocks)) {
    const ParallelLayout& l = timer.layout();
    replica_gpus = l.tp * l.pp * l.cp;
    replicas = replica_count(t, request, replica_gpus);
  }

  ServeResult run(const ServeRequest& r);
  void describe(ServeResult& out) const;
  void bounding_link(const serve_detail::RunTrace& trace, ServeResult& out);

  const Topology& topology;
  ServeRequest request;
  IterationTimer timer;
  serve_detail::IterationCache cache;
  KvPool pool;
  int replica_gpus = 1;
  int replicas = 1;
};

void ServeSimulator::Impl::describe(ServeResult& out) const {
  const EngineModel& e = request.engine;
  out.model = request.plan.model.name;
  out.topology = topology.name();
  out.gpu_model = topology.gpu_model(topology.gpus().front()).key;
  out.engine = e.name;
  out.engine_release = e.release;
  out.replicas = replicas;
  out.gpus = replicas * replica_gpus;
  out.layout = timer.layout();
  out.kv.blocks = pool.blocks;
  out.kv.block_size_tokens = pool.block_size_tokens;
  out.kv.bytes_per_token = pool.bytes_per_token;
  out.assumptions.push_back(fmt::format(
      "engine {} ({}): {:.2f} ms host time per iteration, {}, {} all-reduce; "
      "max {} sequences and {} tokens per iteration, chunked prefill {}, blocks of {} tokens, "
      "preemption {}{}",
      e.name, e.release, e.overhead_s(replica_gpus) * 1e3, describe_launch(e), to_string(e.allreduce),
      e.max_num_seqs, e.max_num_batched_tokens, e.chunked_prefill ? "on" : "off",
      e.block_size_tokens, to_string(e.preemption),
      e.continuous_batching ? "" : "; static batches (a new batch when the last completes)"));
  out.assumptions.push_back(fmt::format(
      "KV pool per replica: {} blocks = {} per GPU ({:g} x {} {}{}, less weights {}, "
      "activations {}, workspace {}); {} per token per GPU",
      pool.blocks, format_size(double(pool.blocks) * pool.block_size_tokens * pool.bytes_per_token),
      e.gpu_memory_utilization,
      e.memory_fraction_of_free ? "what is free of the GPU's" : "the GPU's",
      format_size(pool.memory.capacity), request.kv_blocks ? ", overridden by kv_blocks" : "",
      format_size(pool.memory.weights), format_size(pool.memory.activations),
      format_size(pool.memory.workspace), format_size(pool.bytes_per_token)));
  if (replicas > 1) {
    out.assumptions.push_back(fmt::format("{} identical replicas, requests split {}", replicas,
                                          to_string(request.routing)));
  }
  out.assumptions.push_back("iteration times from the step model for each batch shape, tokens to "
                            "0.4 % and attention work to 0.8 % (docs/serving.md#iteration-cache)");
}

void ServeSimulator::Impl::bounding_link(const serve_detail::RunTrace& trace, ServeResult& out) {
  if (trace.iterations == 0) return;
  const PlanResult p = timer.plan(serve_detail::typical_batch(trace));
  const PlanComm* worst = nullptr;
  for (const PlanComm& c : p.comms) {
    if (!worst || c.exposed_s > worst->exposed_s) worst = &c;
  }
  if (worst && worst->exposed_s > 0) {
    out.bounding_link = worst->bottleneck;
    out.allreduce = worst->implementation;
  }
}

ServeResult ServeSimulator::Impl::run(const ServeRequest& r) {
  const auto started = std::chrono::steady_clock::now();
  check_serve_workload(r);
  ServeResult out;
  describe(out);
  std::vector<serve_detail::Sequence> sequences = serve_detail::make_sequences(r, r.rate_per_s, pool);
  const long misses_before = cache.misses();
  const serve_detail::RunTrace trace = serve_detail::run_events(std::move(sequences), r, replicas, pool, cache);
  out.rate_requests_per_s = r.rate_per_s.value_or(0);
  if (!r.trace.empty() && r.trace.back().arrival_s > 0) {
    out.rate_requests_per_s = double(r.trace.size()) / r.trace.back().arrival_s;
  }
  out.concurrency = r.concurrency;
  serve_detail::summarise_run(trace, r, out);
  bounding_link(trace, out);
  out.distinct_iterations = cache.misses() - misses_before;
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

ServeSimulator::ServeSimulator(const Topology& topology, ServeRequest request) {
  check_serve_workload(request);
  impl_ = std::make_unique<Impl>(topology, std::move(request));
}

ServeSimulator::~ServeSimulator() = default;
ServeSimulator::ServeSimulator(ServeSimulator&&) noexcept = default;

ServeResult ServeSimulator::run() { return impl_->run(impl_->request); }

ServeResult ServeSimulator::run_at_rate(double rate_per_s) {
  ServeRequest r = impl_->request;
  r.rate_per_s = rate_per_s;
  r.concurrency.reset();
  r.trace.clear();
  return impl_->run(r);
}

const ServeRequest& ServeSimulator::request() const { return impl_->request; }

ServeResult simulate_serving(const Topology& topology, const ServeRequest& request) {
  return ServeSimulator(topology, request).run();
}

}  // namespace linksim
