// SPDX-License-Identifier: Apache-2.0
#include "cli/engine_flags.hpp"

#include <fmt/core.h>

#include "linksim/error.hpp"
#include "linksim/units.hpp"

namespace linksim::cli {

EngineModel engine_arg(const std::string& name, const std::optional<std::string>& overhead,
                       const std::optional<std::string>& allreduce) {
  std::optional<EngineModel> engine = find_engine(name);
  if (!engine) {
    throw ConfigError(
        fmt::format("--engine: expected one of {}, got \"{}\"", engine_names(), name));
  }
  if (overhead) {
    const std::optional<double> s = parse_duration_s(*overhead);
    if (!s) {
      throw ConfigError(fmt::format("--engine-overhead: expected a duration such as \"2 ms\" or "
                                    "\"500 us\", got \"{}\"",
                                    *overhead));
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
      throw ConfigError(
          fmt::format("--allreduce: expected one of nccl, custom, got \"{}\"", *allreduce));
    }
  }
  return *engine;
}

}  // namespace linksim::cli
