// SPDX-License-Identifier: Apache-2.0
// The serving options read into a ServeRequest (include/linksim/serve_options.hpp): the checks
// of `linksim serve`'s flags and linksim.serve()'s keywords, with the option spelled as the
// front end spells it.
#include "linksim/serve_options.hpp"

#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <vector>

#include "linksim/engine_release.hpp"
#include "linksim/error.hpp"
#include "linksim/input_file.hpp"
#include "linksim/units.hpp"

namespace linksim {
namespace {

std::optional<double> serve_option_number(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::vector<std::string_view> serve_option_parts(std::string_view text, char separator) {
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

/// An option with its value as a usage hint: "--rate R" on the command line, "rate=R" in Python.
std::string spell_option_with_value(std::string_view dashed_name, std::string_view value_hint,
                                    OptionSpelling spelling) {
  return spelling == OptionSpelling::kFlag
             ? fmt::format("{} {}", spell_option(dashed_name, spelling), value_hint)
             : fmt::format("{}={}", spell_option(dashed_name, spelling), value_hint);
}

void apply_serve_scheduler_options(const ServeOptions& o, EngineModel& e, OptionSpelling spelling) {
  auto at_least_one = [spelling](const std::optional<int>& given, std::string_view dashed_name) {
    if (given && *given < 1) {
      throw ConfigError(fmt::format("{}: expected a positive integer, got {}",
                                    spell_option(dashed_name, spelling), *given));
    }
    return given.has_value();
  };
  if (at_least_one(o.max_num_seqs, "max-num-seqs")) e.max_num_seqs = *o.max_num_seqs;
  if (at_least_one(o.max_num_batched_tokens, "max-num-batched-tokens")) {
    e.max_num_batched_tokens = *o.max_num_batched_tokens;
  }
  if (at_least_one(o.block_size, "block-size")) e.block_size_tokens = *o.block_size;
  if (o.chunked_prefill) {
    if (*o.chunked_prefill != "on" && *o.chunked_prefill != "off") {
      throw ConfigError(fmt::format("{}: expected one of on, off, got \"{}\"",
                                    spell_option("chunked-prefill", spelling), *o.chunked_prefill));
    }
    e.chunked_prefill = *o.chunked_prefill == "on";
  }
  if (o.preemption) {
    if (*o.preemption == "recompute") e.preemption = PreemptionMode::kRecompute;
    else if (*o.preemption == "swap") e.preemption = PreemptionMode::kSwap;
    else if (*o.preemption == "none") e.preemption = PreemptionMode::kNone;
    else {
      throw ConfigError(fmt::format("{}: expected one of recompute, swap, none, got \"{}\"",
                                    spell_option("preemption", spelling), *o.preemption));
    }
  }
}

}  // namespace

std::string spell_option(std::string_view dashed_name, OptionSpelling spelling) {
  std::string spelled(dashed_name);
  if (spelling == OptionSpelling::kFlag) return "--" + spelled;
  for (char& c : spelled) {
    if (c == '-') c = '_';
  }
  return spelled;
}

EngineModel serving_engine_option(const std::string& name, const std::optional<std::string>& overhead,
                                  const std::optional<std::string>& allreduce,
                                  OptionSpelling spelling) {
  std::optional<EngineModel> engine = find_engine_spec(name);
  if (!engine) {
    throw ConfigError(fmt::format("{}: expected {}, got \"{}\"", spell_option("engine", spelling),
                                  engine_spec_expectation(name), name));
  }
  if (overhead) {
    const std::optional<double> s = parse_duration_s(*overhead);
    if (!s) {
      throw ConfigError(fmt::format("{}: expected a duration such as \"2 ms\" or \"500 us\", got \"{}\"",
                                    spell_option("engine-overhead", spelling), *overhead));
    }
    engine->iteration_overhead_s = *s;
    engine->multi_gpu_overhead_s = 0;  // the value given is the whole host time
  }
  if (allreduce) {
    if (*allreduce == "nccl") {
      engine->allreduce = AllReduceImpl::kNccl;
    } else if (*allreduce == "custom") {
      // The engine's kernels with vLLM's limits when the engine has none of its own.
      const EngineModel vllm = *find_engine("vllm");
      if (engine->custom_allreduce_max_bytes <= 0) {
        engine->custom_allreduce_max_bytes = vllm.custom_allreduce_max_bytes;
        engine->one_shot_max_bytes_4 = vllm.one_shot_max_bytes_4;
        engine->one_shot_max_bytes_8 = vllm.one_shot_max_bytes_8;
      }
      engine->allreduce = AllReduceImpl::kCustom;
    } else {
      throw ConfigError(fmt::format("{}: expected one of nccl, custom, got \"{}\"",
                                    spell_option("allreduce", spelling), *allreduce));
    }
  }
  return *engine;
}

ServeSlo parse_serve_slo(const std::string& text, OptionSpelling spelling) {
  const std::string slo_name = spell_option("slo", spelling);
  ServeSlo slo;
  for (std::string_view part : serve_option_parts(text, ',')) {
    const size_t eq = part.find('=');
    const std::string_view key = part.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1);
    if (key == "ttft" || key == "tpot") {
      const std::optional<double> s = parse_duration_s(value);
      if (!s || *s <= 0) {
        throw ConfigError(fmt::format("{}: expected {} as a duration with a unit such as 500ms, "
                                      "got \"{}\"",
                                      slo_name, key, value));
      }
      (key == "ttft" ? slo.ttft_s : slo.tpot_s) = *s;
    } else if (key == "pct") {
      const std::optional<double> p = serve_option_number(value);
      if (!p || !(*p > 0 && *p <= 100)) {
        throw ConfigError(fmt::format("{}: expected pct as a percentage in (0, 100], got \"{}\"",
                                      slo_name, value));
      }
      slo.percentile = *p;
    } else {
      throw ConfigError(fmt::format("{}: expected ttft=DURATION, tpot=DURATION or pct=P, got \"{}\"",
                                    slo_name, part));
    }
  }
  if (!slo.ttft_s && !slo.tpot_s) {
    throw ConfigError(fmt::format("{}: expected ttft and/or tpot, got \"{}\"", slo_name, text));
  }
  return slo;
}

LengthDistribution parse_serve_length(const std::string& text, std::string_view dashed_name,
                                      int max_model_len, OptionSpelling spelling) {
  using Kind = LengthDistribution::Kind;
  const std::string flag = spell_option(dashed_name, spelling);
  const std::string limit = spell_option("max-model-len", spelling);
  const std::string forms = "a number of tokens or uniform:A:B, normal:MEAN:SD, lognormal:MU:SIGMA";
  const std::optional<LengthDistribution> parsed = parse_length_distribution(text);
  if (!parsed) throw ConfigError(fmt::format("{}: expected {}, got \"{}\"", flag, forms, text));
  const LengthDistribution d = *parsed;
  if (d.kind == Kind::kFixed) {
    if (d.a < 1 || d.a > max_model_len || d.a != std::floor(d.a)) {
      throw ConfigError(fmt::format("{}: expected a length from 1 to {} tokens ({}), got \"{}\"",
                                    flag, max_model_len, limit, text));
    }
    return d;
  }
  if (d.kind == Kind::kUniform && (d.a < 1 || d.b < d.a || d.b > max_model_len)) {
    throw ConfigError(fmt::format("{}: expected uniform:A:B with 1 <= A <= B <= {} ({}), got \"{}\"",
                                  flag, max_model_len, limit, text));
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

RateSweep parse_rate_sweep(const std::string& text, OptionSpelling spelling) {
  const std::string flag = spell_option("rate-sweep", spelling);
  const std::vector<std::string_view> parts = serve_option_parts(text, ':');
  RateSweep s;
  std::optional<double> v[3];
  if (parts.size() == 3) {
    for (int i = 0; i < 3; ++i) v[i] = serve_option_number(parts[size_t(i)]);
  }
  if (parts.size() != 3 || !v[0] || !v[1] || !v[2] || !(*v[0] > 0) || *v[1] < *v[0] || !(*v[2] > 0)) {
    throw ConfigError(fmt::format(
        "{}: expected FROM:TO:STEP in requests/s with 0 < FROM <= TO and STEP > 0, got \"{}\"", flag,
        text));
  }
  s.from = *v[0];
  s.to = *v[1];
  s.step = *v[2];
  if ((s.to - s.from) / s.step > 10000) {
    throw ConfigError(fmt::format("{}: expected at most 10001 rates, got \"{}\"", flag, text));
  }
  return s;
}

bool has_own_workload(const ServeOptions& options) {
  return options.rate || options.concurrency || options.trace;
}

ServeRequest serve_request_from(const ServeOptions& o, PlanRequest plan, OptionSpelling spelling) {
  auto name = [spelling](std::string_view dashed_name) { return spell_option(dashed_name, spelling); };
  ServeRequest r;
  r.plan = std::move(plan);
  r.engine = serving_engine_option(o.engine, o.engine_overhead, o.allreduce, spelling);
  apply_serve_scheduler_options(o, r.engine, spelling);
  if (o.max_model_len) {
    if (*o.max_model_len < 2) {
      throw ConfigError(fmt::format("{}: expected at least 2 tokens, got {}", name("max-model-len"),
                                    *o.max_model_len));
    }
    r.max_model_len = *o.max_model_len;
  }
  const int sources = (o.rate ? 1 : 0) + (o.concurrency ? 1 : 0) + (o.trace ? 1 : 0);
  if (sources > 1) {
    throw ConfigError(fmt::format("{}, {} and {}: expected one of them, got more", name("rate"),
                                  name("concurrency"), name("trace")));
  }
  if (sources == 0 && !o.rate_sweep && !o.max_rate) {
    throw ConfigError(fmt::format("expected a workload: {}, {} or {} (or {}, {})",
                                  spell_option_with_value("rate", "R", spelling),
                                  spell_option_with_value("concurrency", "C", spelling),
                                  spell_option_with_value("trace", "FILE", spelling), name("rate-sweep"),
                                  name("max-rate")));
  }
  if (o.rate) {
    if (!(*o.rate > 0)) {
      throw ConfigError(fmt::format("{}: expected requests/s > 0, got {:g}", name("rate"), *o.rate));
    }
    r.rate_per_s = *o.rate;
  }
  if (o.concurrency) {
    if (*o.concurrency < 1) {
      throw ConfigError(fmt::format("{}: expected at least 1 client, got {}", name("concurrency"),
                                    *o.concurrency));
    }
    r.concurrency = *o.concurrency;
  }
  if (o.requests) {
    if (*o.requests < 1) {
      throw ConfigError(fmt::format("{}: expected at least 1, got {}", name("requests"), *o.requests));
    }
    r.requests = *o.requests;
  }
  r.input = parse_serve_length(o.input_len.value_or("512"), "input-len", r.max_model_len - 1, spelling);
  r.output = parse_serve_length(o.output_len.value_or("128"), "output-len", r.max_model_len - 1, spelling);
  using Kind = LengthDistribution::Kind;
  if (r.input.kind == Kind::kFixed && r.output.kind == Kind::kFixed && r.input.a + r.output.a > r.max_model_len) {
    throw ConfigError(fmt::format("{} + {}: expected at most {} tokens ({}), got {:g}", name("input-len"),
                                  name("output-len"), r.max_model_len, name("max-model-len"),
                                  r.input.a + r.output.a));
  }
  if (o.trace) {
    r.trace = parse_trace_csv(read_input_file(*o.trace), *o.trace);
    r.trace_file = *o.trace;
  }
  if (o.seed) r.seed = *o.seed;
  if (o.slo) r.slo = parse_serve_slo(*o.slo, spelling);
  if (o.max_rate && !r.slo) {
    throw ConfigError(fmt::format("{}: expected an {} to meet, got none", name("max-rate"), name("slo")));
  }
  if (o.routing == "round-robin") r.routing = ReplicaRouting::kRoundRobin;
  else if (o.routing == "shortest-queue") r.routing = ReplicaRouting::kShortestQueue;
  else {
    throw ConfigError(fmt::format("{}: expected one of round-robin, shortest-queue, got \"{}\"",
                                  name("routing"), o.routing));
  }
  r.kv_blocks = o.kv_blocks;
  if (r.kv_blocks && *r.kv_blocks < 1) {
    throw ConfigError(fmt::format("{}: expected a positive integer, got {}", name("kv-blocks"), *r.kv_blocks));
  }
  r.keep_records = o.keep_records;
  // A sweep or a max rate alone: Poisson at rates of their own.
  if (sources == 0) r.rate_per_s = o.rate_sweep ? parse_rate_sweep(*o.rate_sweep, spelling).from : 1.0;
  return r;
}

}  // namespace linksim
