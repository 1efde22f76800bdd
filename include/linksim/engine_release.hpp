// SPDX-License-Identifier: Apache-2.0
// Engine releases: what an older release of a serving engine did differently from the engine
// model's current defaults (include/linksim/engine.hpp), so a published measurement is planned
// with the mechanisms of the release it ran on. `--engine NAME@RELEASE` picks one
// (docs/serving.md#releases lists every row with its public source).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/engine.hpp"

namespace linksim {

/// One release of one engine and its mechanisms. Plain aggregate.
struct EngineRelease {
  std::string engine;    ///< the engine it belongs to: "trtllm"
  std::string version;   ///< as the user writes it after '@': "0.6.1"
  std::string label;     ///< "TensorRT-LLM 0.6.1"
  /// Host time to enqueue one kernel when no CUDA graph replays the step, seconds: the GPU waits
  /// for the host whenever a kernel is shorter than this. 0 = the release captures CUDA graphs.
  double kernel_launch_host_s = 0;
  AllReduceImpl allreduce = AllReduceImpl::kNccl;
  bool fused_gate_up = true;       ///< SwiGLU's gate and up projections run as one GEMM
  bool inflight_batching = true;   ///< continuous (in-flight) batching, else static batches
  /// Decode attention reads each KV head once for all the query heads sharing it (GQA); false:
  /// one thread block per sequence and query head, each reading its KV head again.
  bool gqa_shared_kv_reads = true;
};

/// The releases known to linksim, in a stable order.
const std::vector<EngineRelease>& engine_releases();

/// The releases of `engine`, "0.5.0, 0.6.1"; empty when it has none.
std::string engine_release_versions(std::string_view engine);

/// `engine` with `release`'s mechanisms applied (and its name written NAME@VERSION).
EngineModel apply_release(EngineModel engine, const EngineRelease& release);

/// "vllm" or "trtllm@0.6.1": the catalog engine, with the release applied when one is named;
/// nullopt for an unknown engine or release (engine_spec_expectation says what was expected).
std::optional<EngineModel> find_engine_spec(std::string_view spec);

/// What a bad `spec` should have been, for an error message: the engine names, or for a known
/// engine with an unknown release "trtllm@RELEASE with RELEASE one of 0.5.0, 0.6.1".
std::string engine_spec_expectation(std::string_view spec);

}  // namespace linksim
