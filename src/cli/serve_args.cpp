// SPDX-License-Identifier: Apache-2.0
// The flags of `serve` (docs/cli.md#linksim-serve): the workload, the engine and its knobs,
// the SLO, the outputs, and plan's machine, layout and NCCL groups.
#include "cli/serve_args.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "linksim/error.hpp"

namespace linksim::cli {
namespace {

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

}  // namespace

ServeOptions serve_options_of(const ServeArgs& a) {
  ServeOptions o;
  o.rate = a.rate;
  o.concurrency = a.concurrency;
  o.requests = a.requests;
  o.max_model_len = a.max_model_len;
  o.max_num_seqs = a.max_num_seqs;
  o.max_num_batched_tokens = a.max_num_batched_tokens;
  o.block_size = a.block_size;
  o.kv_blocks = a.kv_blocks;
  o.input_len = a.input_len;
  o.output_len = a.output_len;
  o.trace = a.trace;
  o.slo = a.slo;
  o.rate_sweep = a.rate_sweep;
  o.engine_overhead = a.engine_overhead;
  o.allreduce = a.allreduce;
  o.chunked_prefill = a.chunked_prefill;
  o.preemption = a.preemption;
  o.seed = a.seed;
  o.engine = a.engine;
  o.routing = a.routing;
  o.max_rate = a.max_rate;
  o.keep_records = a.requests_csv.has_value();
  return o;
}

ServeRequest to_serve_request(const ServeArgs& a) {
  refuse_plan_only_flags(a.plan);
  refuse_unmodelled(a);
  PlanArgs plan_flags = a.plan;
  plan_flags.mode = "decode";
  return serve_request_from(serve_options_of(a), to_request(plan_flags), OptionSpelling::kFlag);
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
  c.add_option("--engine", a.engine, "Serving engine: " + engine_names() + ", or NAME@RELEASE such as trtllm@0.6.1 (default vllm)");
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
