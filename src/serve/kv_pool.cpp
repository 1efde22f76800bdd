// SPDX-License-Identifier: Apache-2.0
// The KV-cache pool of a replica from the plan's memory model (docs/serving.md#kv-pool).
#include <cmath>
#include <fmt/core.h>

#include "linksim/error.hpp"
#include "linksim/units.hpp"
#include "serve/run_state.hpp"

namespace linksim::serve_detail {

KvPool size_kv_pool(const IterationTimer& timer, const EngineModel& engine,
                    const std::optional<long>& blocks_override) {
  KvPool pool;
  pool.block_size_tokens = std::max(1, engine.block_size_tokens);
  pool.bytes_per_token = timer.kv_bytes_per_token();
  pool.memory = timer.memory_without_kv(engine.max_num_batched_tokens);
  const double capacity = pool.memory.capacity;
  // vLLM and SGLang budget a fraction of the whole GPU; TensorRT-LLM and LMDeploy a fraction
  // of what is free once the model is loaded.
  pool.pool_bytes = engine.memory_fraction_of_free
                        ? (capacity - pool.memory.total) * engine.gpu_memory_utilization
                        : capacity * engine.gpu_memory_utilization - pool.memory.total;
  const double block_bytes = pool.bytes_per_token * pool.block_size_tokens;
  pool.blocks = block_bytes > 0 ? long(std::floor(std::max(0.0, pool.pool_bytes) / block_bytes)) : 0;
  if (blocks_override) {
    if (*blocks_override < 1) {
      throw ConfigError(fmt::format("kv_blocks: expected at least 1 block, got {}", *blocks_override));
    }
    pool.blocks = *blocks_override;
    return pool;
  }
  if (pool.blocks < 1) {
    const double usable = engine.memory_fraction_of_free ? capacity : capacity * engine.gpu_memory_utilization;
    throw ConfigError(fmt::format(
        "no memory left for the KV cache: weights {}, activations {} and workspace {} take {} "
        "of the {} {} may use per GPU ({:g} of {}{})",
        format_size(pool.memory.weights), format_size(pool.memory.activations),
        format_size(pool.memory.workspace), format_size(pool.memory.total), format_size(usable),
        engine.name, engine.gpu_memory_utilization, format_size(capacity),
        engine.memory_fraction_of_free ? " once loaded" : ""));
  }
  return pool;
}

}  // namespace linksim::serve_detail
