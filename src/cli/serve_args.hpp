// SPDX-License-Identifier: Apache-2.0
// The flags of `serve`: plan's machine, layout and NCCL groups, the workload, the engine and
// its knobs, the SLO and the outputs, parsed into a ServeRequest.
#pragma once

#include <optional>
#include <string>

#include "cli/engine_flags.hpp"
#include "cli/plan_args.hpp"
#include "linksim/serve.hpp"
#include "linksim/serve_options.hpp"

namespace CLI {
class App;
}

namespace linksim::cli {

struct ServeArgs {
  PlanArgs plan;  ///< the machine, layout and NCCL flags of `plan`
  std::optional<double> rate;
  std::optional<int> concurrency, requests, max_model_len, max_num_seqs, max_num_batched_tokens,
      block_size;
  std::optional<long> kv_blocks;
  std::optional<std::string> input_len, output_len, trace, slo, rate_sweep, engine_overhead,
      allreduce, requests_csv, chunked_prefill, preemption, speculative_model, lora_modules;
  std::optional<std::uint64_t> seed;
  std::string engine = "vllm";
  std::string routing = "round-robin";
  bool max_rate = false, prefix_caching = false, enable_lora = false;
};

/// Every flag of `serve`. REQUIRES: `a` outlives the parse.
void add_serve_options(CLI::App& command, ServeArgs& a);

/// The request the flags describe (the trace read from its file): plan's flags checked here,
/// the serving options by serve_request_from (linksim/serve_options.hpp). Throws ConfigError
/// naming the flag, or file:line:column for the trace.
ServeRequest to_serve_request(const ServeArgs& a);

/// The serving options of the flags (the library checks them: serve_request_from).
ServeOptions serve_options_of(const ServeArgs& a);

}  // namespace linksim::cli
