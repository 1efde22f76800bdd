// SPDX-License-Identifier: Apache-2.0
// Turning a run's event trace into its ServeResult. Internal to src/serve/.
#pragma once

#include "serve/run_state.hpp"

namespace linksim::serve_detail {

/// Fills the latency, throughput, SLO, KV and timeline fields of `out` (whose gpus, replicas
/// and kv.blocks are already set).
void summarise_run(const RunTrace& trace, const ServeRequest& request, ServeResult& out);

/// The mean iteration of a run, for the communication table of a typical batch.
IterationBatch typical_batch(const RunTrace& trace);

}  // namespace linksim::serve_detail
