// SPDX-License-Identifier: Apache-2.0
// Flags shared by `plan` and `explain plan`.
#include "cli/plan_args.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include "cli/cli_common.hpp"
#include "cli/engine_flags.hpp"
#include "common/text.hpp"
#include "linksim/error.hpp"
#include "linksim/model.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim::cli {
namespace {

std::optional<int> positive(const std::optional<int>& value, const char* flag) {
  if (value && *value < 1) {
    throw ConfigError(fmt::format("{}: expected a positive integer, got {}", flag, *value));
  }
  return value;
}

int positive_or(const std::optional<int>& value, const char* flag, int fallback) {
  return positive(value, flag).value_or(fallback);
}

std::optional<double> fraction(const std::optional<double>& value, const char* flag) {
  if (value && !(*value > 0 && *value <= 1)) {
    throw ConfigError(fmt::format("{}: expected a fraction in (0, 1], got {:g}", flag, *value));
  }
  return value;
}

PlanMode mode_arg(const std::optional<std::string>& text) {
  if (!text) throw ConfigError("--mode: expected one of train, prefill, decode; none given");
  if (*text == "train") return PlanMode::kTrain;
  if (*text == "prefill") return PlanMode::kPrefill;
  if (*text == "decode") return PlanMode::kDecode;
  throw ConfigError(
      fmt::format("--mode: expected one of train, prefill, decode, got \"{}\"", *text));
}

Recompute recompute_arg(const std::string& text) {
  if (text == "none") return Recompute::kNone;
  if (text == "selective") return Recompute::kSelective;
  if (text == "full") return Recompute::kFull;
  throw ConfigError(
      fmt::format("--recompute: expected one of none, selective, full, got \"{}\"", text));
}

std::string choice_arg(const std::string& text, const char* flag,
                       const std::vector<std::string>& choices, const char* listed) {
  for (const std::string& c : choices) {
    if (text == c) return text;
  }
  throw ConfigError(fmt::format("{}: expected one of {}, got \"{}\"", flag, listed, text));
}

ModelSpec model_arg(const PlanArgs& a) {
  if (a.model && a.arch) {
    throw ConfigError("--model and --arch: expected one of them, got both");
  }
  if (a.model) return ModelCatalog::builtin().get(*a.model, "--model");
  if (a.arch) return parse_arch(*a.arch, "--arch");
  throw ConfigError("expected a model: --model NAME or --arch SPEC");
}

}  // namespace

PlanRequest to_request(const PlanArgs& a) {
  PlanRequest r;
  r.model = model_arg(a);
  r.mode = mode_arg(a.mode);
  r.tp = positive(a.tp, "--tp");
  r.pp = positive(a.pp, "--pp");
  r.dp = positive(a.dp, "--dp");
  r.cp = positive(a.cp, "--cp");
  r.ep = positive(a.ep, "--ep");
  r.etp = positive(a.etp, "--etp");
  r.vpp = positive(a.vpp, "--vpp");
  r.sp = a.sp;
  apply_stack_args(a.stack, a.zero, r);
  r.micro_batch = positive_or(a.micro_batch, "--micro-batch", r.micro_batch);
  r.global_batch = positive(a.global_batch, "--global-batch");
  r.seq = positive_or(a.seq, "--seq", r.seq);
  r.batch = positive_or(a.batch, "--batch", r.batch);
  r.kv_len = positive_or(a.kv_len, "--kv-len", r.kv_len);
  r.prefill_chunk = positive_or(a.prefill_chunk, "--prefill-chunk", r.prefill_chunk);
  r.dtype = choice_arg(a.dtype, "--dtype", {"bf16", "fp16", "fp8"}, "bf16, fp16, fp8");
  if (a.weight_dtype) {
    r.weight_dtype =
        choice_arg(*a.weight_dtype, "--weight-dtype", {"int4", "int8", "fp8", "bf16", "fp16"},
                   "int4, int8, fp8, bf16, fp16");
  }
  r.recompute = recompute_arg(a.recompute);
  r.tp_overlap_async =
      choice_arg(a.tp_overlap, "--tp-overlap", {"none", "async"}, "none, async") == "async";
  r.gpus = a.gpus;
  r.gemm_efficiency = fraction(a.gemm_efficiency, "--gemm-efficiency");
  r.hbm_efficiency = fraction(a.hbm_efficiency, "--hbm-efficiency");
  r.comm = comm_options(a, a.calibration);
  const std::optional<SimMode> sim = parse_sim_mode(a.sim);
  if (!sim) {
    throw ConfigError(fmt::format("--sim: expected one of {}, got \"{}\"",
                                  text::join(sim_mode_choices(), ", "), a.sim));
  }
  r.sim_mode = *sim;
  r.baseline_gpus = positive(a.baseline, "--baseline");
  if (a.engine && *a.engine != "none") {
    if (r.mode == PlanMode::kTrain) {
      throw ConfigError(fmt::format("--engine: expected --mode prefill or decode, got --mode train"));
    }
    r.engine = engine_arg(*a.engine, a.engine_overhead, a.allreduce);
  } else if (a.engine_overhead || a.allreduce) {
    throw ConfigError(fmt::format("{}: expected an --engine to apply to, got --engine {}",
                                  a.engine_overhead ? "--engine-overhead" : "--allreduce",
                                  a.engine.value_or("none")));
  }
  return r;
}

Topology topology_arg(const PlanArgs& a) { return load_machine(a, single_topo(a)); }

void add_plan_options(CLI::App& c, PlanArgs& a) {
  add_machine_flags(c, a, TopoCount::kOne);
  add_layout_options(c, a);
  add_comm_flags(c, a);
  c.add_option("--sim", a.sim,
               choice_list(sim_mode_choices()) + ": analytic (closed form, default) or flow "
                                                 "(simulated), as coll --sim");
  c.add_flag("--json", a.json, "Print JSON (docs/cli.md#linksim-plan)");
  c.add_option("--engine", a.engine,
               "Prefill, decode: serving engine none | " + engine_names() +
                   ", or NAME@RELEASE such as trtllm@0.6.1 (default none: kernels and NCCL alone)");
  c.add_option("--engine-overhead", a.engine_overhead, "With --engine: host time per iteration, e.g. 2ms");
  c.add_option("--allreduce", a.allreduce, "With --engine: tensor-parallel all-reduce nccl | custom");
}

void add_layout_options(CLI::App& c, PlanArgs& a) {
  c.add_option("--model", a.model, "Catalog model, e.g. llama3.1-70b (case-insensitive)");
  c.add_option("--arch", a.arch,
               "Inline architecture: layers=80,hidden=8192,heads=64,kv_heads=8,ffn=28672,"
               "ffn_type=swiglu,vocab=128256[,experts=8,topk=2,moe_ffn=14336,head_dim=128]");
  c.add_option("--mode", a.mode, "train | prefill | decode");
  c.add_option("--tp", a.tp, "Tensor-parallel degree (default 1)");
  c.add_option("--pp", a.pp, "Pipeline-parallel degree (default 1)");
  c.add_option("--dp", a.dp, "Data-parallel degree (default: the GPUs left)");
  c.add_option("--cp", a.cp, "Context-parallel degree (default 1)");
  c.add_option("--ep", a.ep, "Expert-parallel degree (default 1)");
  c.add_option("--etp", a.etp, "Expert tensor-parallel degree (default 1)");
  c.add_flag("--sp", a.sp, "Sequence parallelism with TP (Megatron)");
  c.add_option("--zero", a.zero,
               "ZeRO stage 0..3, fsdp (= 3) or hsdp (3 inside --shard-group ranks; default 1 "
               "when dp > 1, else 0)");
  add_stack_options(c, a.stack);
  c.add_option("--vpp", a.vpp, "Virtual pipeline stages per GPU: interleaved 1F1B (default 1)");
  c.add_option("--micro-batch", a.micro_batch, "Sequences per micro-batch (train; default 1)");
  c.add_option("--global-batch", a.global_batch,
               "Sequences per optimizer step (train; default micro-batch x dp)");
  c.add_option("--seq", a.seq, "Tokens per sequence (train, prefill; default 2048)");
  c.add_option("--batch", a.batch, "Sequences (prefill, decode; default 1)");
  c.add_option("--kv-len", a.kv_len, "Context tokens per sequence (decode; default 2048)");
  c.add_option("--prefill-chunk", a.prefill_chunk,
               "Prefill with PP > 1: tokens per chunk pipelined through the stages (default: the whole prompt)");
  c.add_option("--dtype", a.dtype, "Compute precision: bf16 | fp16 | fp8 (default bf16)");
  c.add_option("--weight-dtype", a.weight_dtype,
               "Stored weights: int4 | int8 | fp8 | bf16 | fp16 (default: --dtype)");
  c.add_option("--recompute", a.recompute, "none | selective | full (default selective)");
  c.add_option("--tp-overlap", a.tp_overlap, "none | async (default none)");
  c.add_option("--gemm-efficiency", a.gemm_efficiency,
               "Achieved fraction of dense tensor peak for large GEMMs (default per GPU)");
  c.add_option("--hbm-efficiency", a.hbm_efficiency,
               "Achieved fraction of HBM bandwidth (default per GPU)");
  c.add_option("--baseline", a.baseline,
               "Compare against the best fitting layout on N GPUs (default: 1 GPU, or the "
               "smallest that fits)");
  c.add_flag("--search", a.search, "Rank every valid layout for the GPUs selected");
  c.add_flag("--sensitivity", a.sensitivity,
             "Step time with each link class, and the GPU's FLOP/s, twice as fast");
}

}  // namespace linksim::cli
