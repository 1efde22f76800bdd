// SPDX-License-Identifier: Apache-2.0
// The published LLM runs of data/validation/llm/cases.yaml, read into planner requests, and
// each published figure turned into the step time it implies, using the source's own FLOP
// convention (data/validation/llm/README.md) so predictions are compared as times, never as
// percentages counted two different ways.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/catalog.hpp"
#include "linksim/plan.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim::testing {

/// How a source counted the FLOPs behind a TFLOP/s or MFU figure (README.md beside
/// cases.yaml has the formulas and their sources).
enum class FlopsConvention {
  kMegatron2021Hfu,      ///< Narayanan et al. 2021: 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h))
  kMegatronMfu2022,      ///< Korthikanti et al. 2022: 72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h))
  kMegatronCorePre2025,  ///< Megatron-LM's num_floating_point_operations before March 2025
  kNemoLlama2,           ///< NeMo's flops_formulas.llama2
  kPalm6N12lhst,         ///< (6·N_non-embedding + 12·l·h·s) per token (PaLM appendix B)
  kLlama3Paper,          ///< not published; read as model FLOPs in PaLM's definition
};

/// The convention named by the first word of a `flops_convention` value
/// ("llama3_paper (not given; ...)" -> kLlama3Paper); nullopt when unknown.
std::optional<FlopsConvention> parse_flops_convention(std::string_view text);

/// Training FLOPs of one optimizer step of `global_batch` sequences of `seq` tokens, as the
/// convention counts them.
double convention_flops_per_step(FlopsConvention convention, const ModelSpec& model,
                                 double global_batch, double seq);

/// `static: {isl, osl, batch}`: one static batch run end to end, prefill of `batch` prompts of
/// `isl` tokens then `osl` decode steps with the context growing from isl to isl + osl.
struct StaticBatch {
  int isl = 0;
  int osl = 0;
  int batch = 0;
};

/// One published run.
struct LlmCase {
  std::string id;
  std::string source;               ///< public URL
  PlanRequest request;              ///< model, mode, layout, batch, precision, GPU selection
  std::string topology_file;        ///< <topologies_dir>/<topo>.yaml
  ParamOverrides sets;              ///< the case's `set:` as --set name=value pairs
  int gpus = 0;                     ///< GPUs the run used
  std::string metric;               ///< mfu | tflops_per_gpu | tokens_per_s_per_gpu |
                                    ///< tokens_per_s | step_time_s | tpot_ms
  double value = 0;                 ///< as published
  std::optional<FlopsConvention> convention;
  std::optional<StaticBatch> static_batch;
  /// Where the request can only approximate the run ("hsdp: sharded over all dp ranks").
  std::vector<std::string> approximations;
  std::vector<std::string> inferred;  ///< what the source does not state
  std::string caveat;
};

/// Reads every case of `cases_path`; topology files are looked up in `topologies_dir`.
/// Throws ConfigError naming the file, line and field for a case it cannot read.
std::vector<LlmCase> load_llm_cases(const std::string& cases_path,
                                    const std::string& topologies_dir);

/// The dense tensor FLOP/s of `gpu` for a compute dtype: fp8 -> fp8_flops, else bf16_flops.
double dense_peak_flops(const GpuModel& gpu, std::string_view dtype);

/// The step time, seconds, that the published figure implies: train one optimizer step,
/// prefill the time to first token, decode the time per output token, and for a static batch
/// the whole run (prefill + osl decode steps). `peak_flops_per_gpu` is used only by `mfu`.
/// tokens_per_s counts the tokens of one step: train global_batch·seq, prefill batch·seq,
/// decode batch, static batch·osl (output tokens).
double published_step_time_s(const LlmCase& c, double peak_flops_per_gpu = 0);

}  // namespace linksim::testing
