// SPDX-License-Identifier: Apache-2.0
// The flags of `serve` (docs/cli.md#linksim-serve): the workload, the engine and its knobs,
// the SLO, the outputs, and plan's machine, layout and NCCL groups.
#include "cli/serve_args.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <fmt/core.h>

#include "common/text.hpp"
#include "linksim/error.hpp"
#include "linksim/input_file.hpp"
#include "linksim/units.hpp"

namespace linksim::cli {
namespace {

std::optional<double> serve_flag_number(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::vector<std::string_view> serve_flag_parts(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string_view::npos ? text.npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return parts;
}

void refuse_plan_flag(bool given, const char* flag, const char* why) {
  if (given) throw ConfigError(fmt::format("{}: {}", flag, why));
}

/// Plan's flags that mean nothing for serving.
void refuse_plan_only_flags(const PlanArgs& p) {
  constexpr const char* kBatches =
      "serve sizes its own batches (--max-num-seqs, --max-num-batched-tokens, --input-len)";
  refuse_plan_flag(p.mode.has_value(), "--mode",
                   "serve runs prefill and decode together; expected no --mode");
  refuse_plan_flag(p.batch.has_value(), "--batch", kBatches);
  refuse_plan_flag(p.seq.has_value(), "--seq", kBatches);
  refuse_plan_flag(p.kv_len.has_value(), "--kv-len", kBatches);
  refuse_plan_flag(p.micro_batch.has_value() || p.global_batch.has_value(), "--micro-batch",
                   "training only");
  refuse_plan_flag(p.search || p.sensitivity || p.baseline.has_value(), "--search",
                   "plan only (--search, --sensitivity, --baseline)");
  refuse_plan_flag(p.engine.has_value(), "--engine", "given twice");
}

/// Options that need mechanisms linksim does not model (docs/serving.md#not-modelled).
void refuse_unmodelled(const ServeArgs& a) {
  refuse_plan_flag(a.speculative_model.has_value(), "--speculative-model",
                   "speculative decoding is not modelled (docs/serving.md#not-modelled)");
  refuse_plan_flag(a.prefix_caching, "--enable-prefix-caching",
                   "prefix caching is not modelled (docs/serving.md#not-modelled)");
  refuse_plan_flag(a.enable_lora || a.lora_modules.has_value(), "--enable-lora",
                   "LoRA adapters are not modelled (docs/serving.md#not-modelled)");
}

void apply_scheduler_knobs(const ServeArgs& a, EngineModel& e) {
  auto at_least_one = [](const std::optional<int>& v, const char* flag) {
    if (v && *v < 1) throw ConfigError(fmt::format("{}: expected a positive integer, got {}", flag, *v));
    return v;
  };
  if (at_least_one(a.max_num_seqs, "--max-num-seqs")) e.max_num_seqs = *a.max_num_seqs;
  if (at_least_one(a.max_num_batched_tokens, "--max-num-batched-tokens")) {
    e.max_num_batched_tokens = *a.max_num_batched_tokens;
  }
  if (at_least_one(a.block_size, "--block-size")) e.block_size_tokens = *a.block_size;
  if (a.chunked_prefill) {
    if (*a.chunked_prefill != "on" && *a.chunked_prefill != "off") {
      throw ConfigError(fmt::format("--chunked-prefill: expected one of on, off, got \"{}\"", *a.chunked_prefill));
    }
    e.chunked_prefill = *a.chunked_prefill == "on";
  }
  if (a.preemption) {
    if (*a.preemption == "recompute") e.preemption = PreemptionMode::kRecompute;
    else if (*a.preemption == "swap") e.preemption = PreemptionMode::kSwap;
    else if (*a.preemption == "none") e.preemption = PreemptionMode::kNone;
    else {
      throw ConfigError(fmt::format("--preemption: expected one of recompute, swap, none, got \"{}\"",
                                    *a.preemption));
    }
  }
}

void check_serve_rate(double rate, const char* flag) {
  if (!(rate > 0)) throw ConfigError(fmt::format("{}: expected requests/s > 0, got {:g}", flag, rate));
}

}  // namespace

ServeSlo slo_arg(const std::string& text) {
  ServeSlo slo;
  for (std::string_view part : serve_flag_parts(text, ',')) {
    const size_t eq = part.find('=');
    const std::string_view key = part.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1);
    if (key == "ttft" || key == "tpot") {
      const std::optional<double> s = parse_duration_s(value);
      if (!s || *s <= 0) {
        throw ConfigError(fmt::format("--slo: expected {} as a duration with a unit such as 500ms, "
                                      "got \"{}\"",
                                      key, value));
      }
      (key == "ttft" ? slo.ttft_s : slo.tpot_s) = *s;
    } else if (key == "pct") {
      const std::optional<double> p = serve_flag_number(value);
      if (!p || !(*p > 0 && *p <= 100)) {
        throw ConfigError(fmt::format("--slo: expected pct as a percentage in (0, 100], got \"{}\"", value));
      }
      slo.percentile = *p;
    } else {
      throw ConfigError(fmt::format("--slo: expected ttft=DURATION, tpot=DURATION or pct=P, got \"{}\"", part));
    }
  }
  if (!slo.ttft_s && !slo.tpot_s) {
    throw ConfigError(fmt::format("--slo: expected ttft and/or tpot, got \"{}\"", text));
  }
  return slo;
}

LengthDistribution length_arg(const std::string& text, const char* flag, int max_model_len) {
  using Kind = LengthDistribution::Kind;
  const std::string forms = "a number of tokens or uniform:A:B, normal:MEAN:SD, lognormal:MU:SIGMA";
  const std::optional<LengthDistribution> parsed = parse_length_distribution(text);
  if (!parsed) throw ConfigError(fmt::format("{}: expected {}, got \"{}\"", flag, forms, text));
  const LengthDistribution d = *parsed;
  if (d.kind == Kind::kFixed) {
    if (d.a < 1 || d.a > max_model_len || d.a != std::floor(d.a)) {
      throw ConfigError(fmt::format("{}: expected a length from 1 to {} tokens (--max-model-len), got \"{}\"",
                                    flag, max_model_len, text));
    }
    return d;
  }
  if (d.kind == Kind::kUniform && (d.a < 1 || d.b < d.a || d.b > max_model_len)) {
    throw ConfigError(fmt::format("{}: expected uniform:A:B with 1 <= A <= B <= {} (--max-model-len), got \"{}\"",
                                  flag, max_model_len, text));
  }
  if (d.kind == Kind::kNormal && (d.a < 1 || d.a > max_model_len || d.b < 0)) {
    throw ConfigError(fmt::format("{}: expected normal:MEAN:SD with 1 <= MEAN <= {} and SD >= 0, got \"{}\"",
                                  flag, max_model_len, text));
  }
  if (d.kind == Kind::kLognormal && (d.b < 0 || std::exp(d.a) > max_model_len)) {
    throw ConfigError(fmt::format("{}: expected lognormal:MU:SIGMA with exp(MU) <= {} and SIGMA >= 0, got \"{}\"",
                                  flag, max_model_len, text));
  }
  return d;
}

RateSweep rate_sweep_arg(const std::string& text) {
  const std::vector<std::string_view> parts = serve_flag_parts(text, ':');
  RateSweep s;
  std::optional<double> v[3];
  if (parts.size() == 3) {
    for (int i = 0; i < 3; ++i) v[i] = serve_flag_number(parts[size_t(i)]);
  }
  if (parts.size() != 3 || !v[0] || !v[1] || !v[2] || !(*v[0] > 0) || *v[1] < *v[0] || !(*v[2] > 0)) {
    throw ConfigError(fmt::format(
        "--rate-sweep: expected FROM:TO:STEP in requests/s with 0 < FROM <= TO and STEP > 0, got \"{}\"",
        text));
  }
  s.from = *v[0];
  s.to = *v[1];
  s.step = *v[2];
  if ((s.to - s.from) / s.step > 10000) {
    throw ConfigError(fmt::format("--rate-sweep: expected at most 10001 rates, got \"{}\"", text));
  }
  return s;
}

ServeRequest to_serve_request(const ServeArgs& a) {
  refuse_plan_only_flags(a.plan);
  refuse_unmodelled(a);
  ServeRequest r;
  PlanArgs plan_flags = a.plan;
  plan_flags.mode = "decode";
  r.plan = to_request(plan_flags);
  r.engine = engine_arg(a.engine, a.engine_overhead, a.allreduce);
  apply_scheduler_knobs(a, r.engine);
  if (a.max_model_len) {
    if (*a.max_model_len < 2) {
      throw ConfigError(fmt::format("--max-model-len: expected at least 2 tokens, got {}", *a.max_model_len));
    }
    r.max_model_len = *a.max_model_len;
  }
  const int sources = (a.rate ? 1 : 0) + (a.concurrency ? 1 : 0) + (a.trace ? 1 : 0);
  if (sources > 1) {
    throw ConfigError("--rate, --concurrency and --trace: expected one of them, got more");
  }
  if (sources == 0 && !a.rate_sweep && !a.max_rate) {
    throw ConfigError("expected a workload: --rate R, --concurrency C or --trace FILE (or --rate-sweep, --max-rate)");
  }
  if (a.rate) {
    check_serve_rate(*a.rate, "--rate");
    r.rate_per_s = *a.rate;
  }
  if (a.concurrency) {
    if (*a.concurrency < 1) {
      throw ConfigError(fmt::format("--concurrency: expected at least 1 client, got {}", *a.concurrency));
    }
    r.concurrency = *a.concurrency;
  }
  if (a.requests) {
    if (*a.requests < 1) throw ConfigError(fmt::format("--requests: expected at least 1, got {}", *a.requests));
    r.requests = *a.requests;
  }
  r.input = length_arg(a.input_len.value_or("512"), "--input-len", r.max_model_len - 1);
  r.output = length_arg(a.output_len.value_or("128"), "--output-len", r.max_model_len - 1);
  using Kind = LengthDistribution::Kind;
  if (r.input.kind == Kind::kFixed && r.output.kind == Kind::kFixed && r.input.a + r.output.a > r.max_model_len) {
    throw ConfigError(fmt::format("--input-len + --output-len: expected at most {} tokens (--max-model-len), got {:g}",
                                  r.max_model_len, r.input.a + r.output.a));
  }
  if (a.trace) r.trace = parse_trace_csv(read_input_file(*a.trace), *a.trace);
  if (a.seed) r.seed = *a.seed;
  if (a.slo) r.slo = slo_arg(*a.slo);
  if (a.max_rate && !r.slo) throw ConfigError("--max-rate: expected an --slo to meet, got none");
  if (a.routing == "round-robin") r.routing = ReplicaRouting::kRoundRobin;
  else if (a.routing == "shortest-queue") r.routing = ReplicaRouting::kShortestQueue;
  else {
    throw ConfigError(fmt::format("--routing: expected one of round-robin, shortest-queue, got \"{}\"", a.routing));
  }
  r.kv_blocks = a.kv_blocks;
  if (r.kv_blocks && *r.kv_blocks < 1) {
    throw ConfigError(fmt::format("--kv-blocks: expected a positive integer, got {}", *r.kv_blocks));
  }
  r.keep_records = a.requests_csv.has_value();
  // --rate-sweep and --max-rate alone: Poisson at rates of their own.
  if (sources == 0) r.rate_per_s = a.rate_sweep ? rate_sweep_arg(*a.rate_sweep).from : 1.0;
  return r;
}

void add_serve_options(CLI::App& c, ServeArgs& a) {
  add_machine_flags(c, a.plan, TopoCount::kOne);
  add_layout_options(c, a.plan);
  add_comm_flags(c, a.plan);
  c.add_option("--sim", a.plan.sim, "analytic (default) or flow, as plan --sim");
  c.add_option("--rate", a.rate, "Poisson arrivals, requests/s over all replicas");
  c.add_option("--concurrency", a.concurrency, "Closed loop: clients each sending its next request on completion");
  c.add_option("--input-len", a.input_len,
               "Prompt tokens: N, uniform:A:B, normal:MEAN:SD or lognormal:MU:SIGMA (default 512)");
  c.add_option("--output-len", a.output_len, "Output tokens, as --input-len (default 128)");
  c.add_option("--trace", a.trace, "CSV trace: arrival_s, input_tokens, output_tokens per row");
  c.add_option("--requests", a.requests, "Requests simulated (default 1000)");
  c.add_option("--seed", a.seed, "Random seed of arrivals and lengths (default 1)");
  c.add_option("--slo", a.slo, "Latency objective: ttft=500ms,tpot=50ms[,pct=99]");
  c.add_option("--rate-sweep", a.rate_sweep, "Run at each rate FROM:TO:STEP (requests/s)");
  c.add_flag("--max-rate", a.max_rate, "The highest Poisson rate meeting --slo (bisection)");
  c.add_option("--engine", a.engine, "Serving engine: " + engine_names() + " (default vllm)");
  c.add_option("--engine-overhead", a.engine_overhead, "Host time per iteration, e.g. 2ms (default: the engine's)");
  c.add_option("--allreduce", a.allreduce, "Tensor-parallel all-reduce: nccl | custom (default: the engine's)");
  c.add_option("--max-num-seqs", a.max_num_seqs, "Running sequences at most (default: the engine's)");
  c.add_option("--max-num-batched-tokens", a.max_num_batched_tokens, "Tokens per iteration at most (default: the engine's)");
  c.add_option("--block-size", a.block_size, "KV-cache block size, tokens (default: the engine's)");
  c.add_option("--chunked-prefill", a.chunked_prefill, "on | off (default: the engine's)");
  c.add_option("--preemption", a.preemption, "recompute | swap | none (default: the engine's)");
  c.add_option("--kv-blocks", a.kv_blocks, "KV blocks per replica (default: from GPU memory)");
  c.add_option("--max-model-len", a.max_model_len, "Prompt + output tokens at most (default 131072)");
  c.add_option("--routing", a.routing, "Requests to DP replicas: round-robin | shortest-queue");
  c.add_option("--requests-csv", a.requests_csv, "Write one CSV row per request to FILE");
  c.add_flag("--json", a.plan.json, "Print JSON (docs/cli.md#linksim-serve)");
  c.add_option("--speculative-model", a.speculative_model, "Refused: speculative decoding is not modelled");
  c.add_flag("--enable-prefix-caching", a.prefix_caching, "Refused: prefix caching is not modelled");
  c.add_flag("--enable-lora", a.enable_lora, "Refused: LoRA is not modelled");
  c.add_option("--lora-modules", a.lora_modules, "Refused: LoRA is not modelled");
}

}  // namespace linksim::cli
