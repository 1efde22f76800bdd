// SPDX-License-Identifier: Apache-2.0
// The pieces of one serving run shared by its stages: the KV pool's size, the requests as
// generated, and what the event loop leaves for the summary. Internal to src/serve/.
#pragma once

#include <vector>

#include "linksim/serve.hpp"
#include "serve/iteration_cache.hpp"
#include "serve/latency_stats.hpp"
#include "serve/replica.hpp"

namespace linksim::serve_detail {

/// The KV-cache pool of one replica (docs/serving.md#kv-pool).
struct KvPool {
  long blocks = 0;
  int block_size_tokens = 0;
  double bytes_per_token = 0;  ///< per GPU
  double pool_bytes = 0;       ///< per GPU
  MemoryBreakdown memory;      ///< per GPU without the KV cache
};

/// Sizes the pool from the memory the engine may use, less weights, activations of a full
/// token budget and workspace. Throws ConfigError when nothing is left for one block.
KvPool size_kv_pool(const IterationTimer& timer, const EngineModel& engine,
                    const std::optional<long>& blocks_override);

/// The requests of a run, arrival times filled for open-loop and trace workloads (closed
/// loop: filled as clients send). Throws ConfigError for a request the pool cannot hold.
std::vector<Sequence> make_sequences(const ServeRequest& request, const std::optional<double>& rate,
                                     const KvPool& pool);

/// What the event loop measured besides the sequences' own times.
struct RunTrace {
  std::vector<Sequence> sequences;
  GapHistogram gaps;
  std::vector<ServeSample> samples;  ///< one per event
  double end_s = 0;
  double running_area = 0;    ///< integral of running sequences over time
  double system_area = 0;     ///< integral of queued + running requests over time
  double kv_used_area = 0;    ///< integral of blocks in use over time (all replicas)
  long iterations = 0;
  double tokens = 0;          ///< processed in all iterations
  double step_s = 0, comm_s = 0, engine_s = 0;  ///< summed over iterations
  IterationBatch batch_sum;   ///< summed over iterations (for a typical batch)
  long preemptions = 0;
};

/// Runs the event loop of `replicas` replicas over `sequences`.
RunTrace run_events(std::vector<Sequence> sequences, const ServeRequest& request, int replicas,
                    const KvPool& pool, IterationCache& cache);

}  // namespace linksim::serve_detail
