// SPDX-License-Identifier: Apache-2.0
// The engine releases' table: what each release did differently from the engine model's
// current defaults, every row sourced in docs/serving.md#releases.
#include "linksim/engine_release.hpp"

#include "common/text.hpp"

namespace linksim {
namespace {

// Host time to enqueue one kernel without a CUDA graph (seconds): eager PyTorch and the
// TensorRT runtime before CUDA-graph support both issue one launch per layer op from the host
// (docs/serving.md#releases gives the sources and the estimate).
constexpr double kEagerKernelHost_s = 15e-6;

std::vector<EngineRelease> make_releases() {
  std::vector<EngineRelease> out;
  // TensorRT-LLM 0.5.0 and 0.6.1 as docs/source/performance.md (v0.6.1) benchmarked them:
  // gptSessionBenchmark (static batches, no CUDA graphs), engines built without
  // --use_custom_all_reduce (NCCL plugin) and without --use_fused_mlp (gate and up GEMMs
  // apart), decode attention by the masked-MHA kernel with one thread block per sequence and
  // query head (XQA, sharing a KV head among its query heads, arrived in 0.7).
  EngineRelease trt05;
  trt05.engine = "trtllm";
  trt05.version = "0.5.0";
  trt05.label = "TensorRT-LLM 0.5.0";
  trt05.kernel_launch_host_s = kEagerKernelHost_s;
  trt05.allreduce = AllReduceImpl::kNccl;
  trt05.fused_gate_up = false;
  trt05.inflight_batching = false;
  trt05.gqa_shared_kv_reads = false;
  out.push_back(trt05);
  EngineRelease trt061 = trt05;
  trt061.version = "0.6.1";
  trt061.label = "TensorRT-LLM 0.6.1";
  out.push_back(trt061);
  // vLLM 0.7.2 (the release of vLLM issue #16300's series): the engine model's vllm values
  // hold for it (CUDA graphs, custom all-reduce, merged gate/up, continuous batching,
  // FlashAttention decode sharing KV heads).
  EngineRelease vllm072;
  vllm072.engine = "vllm";
  vllm072.version = "0.7.2";
  vllm072.label = "vLLM 0.7.2";
  vllm072.allreduce = AllReduceImpl::kCustom;
  out.push_back(vllm072);
  return out;
}

}  // namespace

const std::vector<EngineRelease>& engine_releases() {
  static const std::vector<EngineRelease> releases = make_releases();
  return releases;
}

std::string engine_release_versions(std::string_view engine) {
  std::vector<std::string> versions;
  for (const EngineRelease& r : engine_releases()) {
    if (r.engine == engine) versions.push_back(r.version);
  }
  return text::join(versions, ", ");
}

EngineModel apply_release(EngineModel engine, const EngineRelease& release) {
  engine.name = release.engine + "@" + release.version;
  engine.release = release.label;
  if (release.kernel_launch_host_s > 0) {
    engine.launch = LaunchMode::kEager;
    engine.kernel_launch_host_s = release.kernel_launch_host_s;
  }
  engine.allreduce = release.allreduce;
  engine.fused_gate_up = release.fused_gate_up;
  engine.continuous_batching = release.inflight_batching;
  if (!release.inflight_batching) engine.chunked_prefill = false;
  engine.gqa_shared_kv_reads = release.gqa_shared_kv_reads;
  return engine;
}

std::optional<EngineModel> find_engine_spec(std::string_view spec) {
  const size_t at = spec.find('@');
  const std::optional<EngineModel> engine = find_engine(spec.substr(0, at));
  if (!engine || at == std::string_view::npos) return engine;
  const std::string_view version = spec.substr(at + 1);
  for (const EngineRelease& r : engine_releases()) {
    if (r.engine == engine->name && r.version == version) return apply_release(*engine, r);
  }
  return std::nullopt;
}

std::string engine_spec_expectation(std::string_view spec) {
  const size_t at = spec.find('@');
  const std::string_view name = spec.substr(0, at);
  if (at == std::string_view::npos || !find_engine(name)) return "one of " + engine_names();
  const std::string versions = engine_release_versions(name);
  if (versions.empty()) return std::string(name) + " with no release (it has none in the table)";
  return std::string(name) + "@RELEASE with RELEASE one of " + versions;
}

}  // namespace linksim
