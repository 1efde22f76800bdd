// SPDX-License-Identifier: Apache-2.0
// plan_request_from (plan_keywords.hpp): the checks of `linksim plan`'s flags
// (src/cli/plan_args.cpp), with the keywords' names in the messages.
#include "python/plan_keywords.hpp"

#include <fmt/core.h>

#include "linksim/error.hpp"
#include "linksim/model.hpp"
#include "linksim/serve_options.hpp"
#include "python/comm_keywords.hpp"

namespace linksim::python {
namespace {

std::string plan_choice(const std::string& text, const char* key,
                        const std::vector<std::string>& choices) {
  std::string listed;
  for (const std::string& c : choices) {
    if (text == c) return text;
    listed += (listed.empty() ? "" : ", ") + c;
  }
  throw ConfigError(fmt::format("{}: expected one of {}, got \"{}\"", key, listed, text));
}

ModelSpec plan_model(const KeywordOptions& options) {
  const std::optional<std::string> model = options.text_option("model");
  const std::optional<std::string> arch = options.text_option("arch");
  if (model && arch) throw ConfigError("model and arch: expected one of them, got both");
  if (model) return ModelCatalog::builtin().get(*model, "model");
  if (arch) return parse_arch(*arch, "arch");
  throw ConfigError("expected a model: model=\"NAME\" or arch={...}");
}

PlanMode plan_mode(const KeywordOptions& options) {
  const std::optional<std::string> mode = options.text_option("mode");
  if (!mode) throw ConfigError("mode: expected one of train, prefill, decode; none given");
  const std::string text = plan_choice(*mode, "mode", {"train", "prefill", "decode"});
  return text == "train" ? PlanMode::kTrain : text == "prefill" ? PlanMode::kPrefill
                                                                : PlanMode::kDecode;
}

std::optional<double> plan_fraction(const KeywordOptions& options, const char* key) {
  const std::optional<double> v = options.real_option(key);
  if (v && !(*v > 0 && *v <= 1)) {
    throw ConfigError(fmt::format("{}: expected a fraction in (0, 1], got {:g}", key, *v));
  }
  return v;
}

/// framework=, compile=, zero= (0..3, "fsdp", "hsdp") and shard_group=, as the CLI's
/// --framework, --compile, --zero and --shard-group.
void apply_training_stack(const KeywordOptions& options, PlanRequest& r) {
  const std::string framework = options.text_option("framework").value_or("megatron");
  const std::optional<TrainFramework> parsed = parse_train_framework(framework);
  if (!parsed) {
    throw ConfigError(fmt::format("framework: expected one of megatron, nemo, torchtitan, fsdp, "
                                  "deepspeed, llm-foundry, got \"{}\"",
                                  framework));
  }
  r.framework = *parsed;
  r.compile = options.switch_option("compile");
  bool hsdp = false;
  if (options.has("zero")) {
    std::optional<int> stage;
    try {
      stage = options.int_option("zero");
    } catch (const ConfigError&) {
      const std::string text = options.text_option("zero").value_or("");
      if (text != "fsdp" && text != "hsdp") {
        throw ConfigError(fmt::format("zero: expected 0, 1, 2, 3, \"fsdp\" or \"hsdp\", got \"{}\"", text));
      }
      hsdp = text == "hsdp";
      stage = 3;
    }
    if (*stage < 0 || *stage > 3) {
      throw ConfigError(fmt::format("zero: expected 0, 1, 2, 3, \"fsdp\" or \"hsdp\", got {}", *stage));
    }
    r.zero = stage;
  }
  if (const std::optional<int> group = options.positive_int_option("shard_group")) {
    if (!hsdp) throw ConfigError("shard_group: applies to zero=\"hsdp\" only");
    r.shard_group = *group;
  } else if (hsdp) {
    r.shard_group = PlanRequest::kShardGroupPerServer;
  }
}

/// engine= (with engine_overhead= and allreduce=) for prefill and decode, as the CLI's --engine:
/// "none" (the default) leaves the kernels and NCCL alone.
void apply_serving_engine(const KeywordOptions& options, PlanRequest& r) {
  const std::optional<std::string> engine = options.text_option("engine");
  const std::optional<std::string> overhead = options.text_option("engine_overhead");
  const std::optional<std::string> allreduce = options.text_option("allreduce");
  if (engine && *engine != "none") {
    if (r.mode == PlanMode::kTrain) {
      throw ConfigError("engine: expected mode=\"prefill\" or \"decode\", got mode=\"train\"");
    }
    r.engine = serving_engine_option(*engine, overhead, allreduce, OptionSpelling::kKeyword);
  } else if (overhead || allreduce) {
    throw ConfigError(fmt::format("{}: expected an engine to apply to, got engine={}",
                                  overhead ? "engine_overhead" : "allreduce",
                                  engine.value_or("none")));
  }
}

}  // namespace

std::vector<std::string> plan_keyword_names() {
  std::vector<std::string> names = {
      "model",         "arch",     "mode",         "tp",          "pp",
      "dp",            "cp",       "ep",           "etp",         "vpp",
      "sp",            "zero",     "micro_batch",  "global_batch", "seq",
      "batch",         "kv_len",   "prefill_chunk", "dtype",      "weight_dtype",
      "recompute",     "tp_overlap", "gemm_efficiency", "hbm_efficiency", "baseline",
      "framework",     "compile",  "shard_group",  "gpus",        "per_node",
      "sim",           "engine",   "engine_overhead", "allreduce"};
  for (std::string& name : comm_keyword_names()) names.push_back(std::move(name));
  return names;
}

PlanRequest plan_request_from(const KeywordOptions& options) {
  options.check_known();
  PlanRequest r;
  r.model = plan_model(options);
  r.mode = plan_mode(options);
  r.tp = options.positive_int_option("tp");
  r.pp = options.positive_int_option("pp");
  r.dp = options.positive_int_option("dp");
  r.cp = options.positive_int_option("cp");
  r.ep = options.positive_int_option("ep");
  r.etp = options.positive_int_option("etp");
  r.vpp = options.positive_int_option("vpp");
  r.sp = options.switch_option("sp").value_or(false);
  apply_training_stack(options, r);
  r.micro_batch = options.positive_int_option("micro_batch").value_or(r.micro_batch);
  r.global_batch = options.positive_int_option("global_batch");
  r.seq = options.positive_int_option("seq").value_or(r.seq);
  r.batch = options.positive_int_option("batch").value_or(r.batch);
  r.kv_len = options.positive_int_option("kv_len").value_or(r.kv_len);
  r.prefill_chunk = options.positive_int_option("prefill_chunk").value_or(r.prefill_chunk);
  r.dtype = plan_choice(options.text_option("dtype").value_or("bf16"), "dtype",
                        {"bf16", "fp16", "fp8"});
  if (const auto weights = options.text_option("weight_dtype")) {
    r.weight_dtype = plan_choice(*weights, "weight_dtype", {"int4", "int8", "fp8", "bf16", "fp16"});
  }
  const std::string recompute = plan_choice(options.text_option("recompute").value_or("selective"),
                                            "recompute", {"none", "selective", "full"});
  r.recompute = recompute == "none" ? Recompute::kNone
                : recompute == "full" ? Recompute::kFull
                                      : Recompute::kSelective;
  r.tp_overlap_async = plan_choice(options.text_option("tp_overlap").value_or("none"),
                                   "tp_overlap", {"none", "async"}) == "async";
  r.gpus = options.gpu_selection();
  r.gemm_efficiency = plan_fraction(options, "gemm_efficiency");
  r.hbm_efficiency = plan_fraction(options, "hbm_efficiency");
  r.comm = comm_options_from(options);
  const std::string sim = options.text_option("sim").value_or("analytic");
  const std::optional<SimMode> mode = parse_sim_mode(sim);
  if (!mode) throw ConfigError(fmt::format("sim: expected one of analytic, flow, got \"{}\"", sim));
  r.sim_mode = *mode;
  r.baseline_gpus = options.positive_int_option("baseline");
  apply_serving_engine(options, r);
  return r;
}

}  // namespace linksim::python
