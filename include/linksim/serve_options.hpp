// SPDX-License-Identifier: Apache-2.0
// The serving options as a front end receives them (`linksim serve`'s flags, linksim.serve()'s
// keywords: text and numbers), checked and read into a ServeRequest (serve.hpp). One parser
// for both front ends: a message names the option as its front end spells it ("--input-len"
// on the command line, "input_len" in Python); the rest of its text is the same.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "linksim/engine.hpp"
#include "linksim/plan.hpp"
#include "linksim/serve.hpp"

namespace linksim {

/// How messages spell an option: the CLI's flags or Python's keywords.
enum class OptionSpelling { kFlag, kKeyword };

/// "input-len" as the front end spells it: "--input-len" (kFlag) or "input_len" (kKeyword).
std::string spell_option(std::string_view dashed_name, OptionSpelling spelling);

/// The serving engine `name` from the catalog (engine.hpp) with an overhead (a duration with a
/// unit, "2ms": the whole host time per iteration) and an all-reduce (nccl | custom) applied.
/// Throws ConfigError naming engine, engine-overhead or allreduce.
EngineModel serving_engine_option(const std::string& name, const std::optional<std::string>& overhead,
                                  const std::optional<std::string>& allreduce,
                                  OptionSpelling spelling);

/// "ttft=500ms,tpot=50ms[,pct=99]". Throws ConfigError naming slo.
ServeSlo parse_serve_slo(const std::string& text, OptionSpelling spelling);

/// A length option (`dashed_name` "input-len" or "output-len"): a number of tokens or
/// uniform:A:B, normal:MEAN:SD, lognormal:MU:SIGMA, within max_model_len tokens.
LengthDistribution parse_serve_length(const std::string& text, std::string_view dashed_name,
                                      int max_model_len, OptionSpelling spelling);

/// Poisson rates FROM:TO:STEP, requests/s.
struct RateSweep {
  double from = 0, to = 0, step = 0;
};
/// "FROM:TO:STEP" with 0 < FROM <= TO, STEP > 0, at most 10001 rates. Throws ConfigError
/// naming rate-sweep.
RateSweep parse_rate_sweep(const std::string& text, OptionSpelling spelling);

/// The serving options, unchecked, as given (docs/cli.md#linksim-serve); nullopt = not given.
struct ServeOptions {
  std::optional<double> rate;
  std::optional<int> concurrency, requests, max_model_len, max_num_seqs, max_num_batched_tokens,
      block_size;
  std::optional<long> kv_blocks;
  /// trace: the path of a CSV trace (read by serve_request_from)
  std::optional<std::string> input_len, output_len, trace, slo, rate_sweep, engine_overhead,
      allreduce, chunked_prefill, preemption;
  std::optional<std::uint64_t> seed;
  std::string engine = "vllm";
  std::string routing = "round-robin";
  bool max_rate = false;
  bool keep_records = false;  ///< ServeRequest::keep_records
};

/// The request the options describe on `plan` (model, layout and machine, already checked).
/// Reads the trace file. Throws ConfigError naming the option, or file:line:column in the
/// trace.
ServeRequest serve_request_from(const ServeOptions& options, PlanRequest plan, OptionSpelling spelling);

/// Whether the options give a workload of their own (rate, concurrency or trace), run as
/// ServeSimulator::run(); without one only the sweep and the max rate run.
bool has_own_workload(const ServeOptions& options);

}  // namespace linksim
