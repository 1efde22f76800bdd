// SPDX-License-Identifier: Apache-2.0
// The serving engines' catalog: overheads, launch mode, all-reduce and scheduler defaults,
// each value sourced in docs/serving.md#engines.
#include "linksim/engine.hpp"

#include <algorithm>

#include <fmt/core.h>

#include "common/text.hpp"

namespace linksim {
namespace {

constexpr double kEngineKiB = 1024, kEngineMiB = 1024 * 1024;
// vLLM's custom all-reduce (csrc/custom_all_reduce.cuh, CustomAllreduce::allreduce; max_size
// in vllm/distributed/device_communicators/custom_all_reduce.py): 8 MiB at most; the one-stage
// kernel below 512 KiB on up to 4 GPUs and below 256 KiB on up to 8, else the two-stage one.
constexpr double kVllmCustomMaxBytes = 8 * kEngineMiB;
constexpr double kVllmOneShot4Bytes = 512 * kEngineKiB;
constexpr double kVllmOneShot8Bytes = 256 * kEngineKiB;
// A one-shot or two-shot kernel's barrier over peer-memory flags, per stage (seconds): the
// small-message latency vLLM's PR #2192 reports for its kernels (docs/serving.md).
constexpr double kCustomStageLatency_s = 4e-6;

std::vector<EngineModel> make_engine_catalog() {
  std::vector<EngineModel> out;
  EngineModel vllm;
  vllm.name = "vllm";
  vllm.release = "vLLM 0.7-0.10";
  // Fitted to vLLM issue #16300 (vLLM 0.7.2, QwQ-32B, A100, batch 1): TPOT 19.55 ms at TP=4
  // and 15.75 ms at TP=8 against the step model's kernels and all-reduces (docs/serving.md).
  vllm.iteration_overhead_s = 3e-3;
  vllm.multi_gpu_overhead_s = 6.5e-3;
  vllm.launch = LaunchMode::kCudaGraphs;
  // V1 captures piecewise graphs (attention outside) for batches up to 512 tokens
  // (CompilationConfig cudagraph_capture_sizes, vllm/config/compilation.py).
  vllm.cuda_graph_max_tokens = 512;
  vllm.cuda_graph_prefill = true;
  vllm.allreduce = AllReduceImpl::kCustom;
  vllm.custom_allreduce_max_bytes = kVllmCustomMaxBytes;
  vllm.one_shot_max_bytes_4 = kVllmOneShot4Bytes;
  vllm.one_shot_max_bytes_8 = kVllmOneShot8Bytes;
  vllm.max_num_seqs = 1024;
  vllm.max_num_batched_tokens = 8192;
  vllm.chunked_prefill = true;
  vllm.block_size_tokens = 16;
  vllm.preemption = PreemptionMode::kRecompute;
  vllm.gpu_memory_utilization = 0.9;
  out.push_back(vllm);

  EngineModel sglang = vllm;
  sglang.name = "sglang";
  sglang.release = "SGLang 0.4";
  sglang.iteration_overhead_s = 1e-3;  // the overlap scheduler hides most host work
  sglang.multi_gpu_overhead_s = 0.5e-3;
  sglang.max_num_seqs = 1024;
  sglang.max_num_batched_tokens = 8192;  // chunked_prefill_size
  sglang.block_size_tokens = 1;          // page_size 1 (token-level radix cache)
  sglang.gpu_memory_utilization = 0.88;  // mem_fraction_static
  // Decode batches up to cuda_graph_max_bs (160 on large GPUs, server_args.py); extend
  // (prefill) batches run eagerly.
  sglang.cuda_graph_max_tokens = 160;
  sglang.cuda_graph_prefill = false;
  out.push_back(sglang);

  EngineModel trtllm = vllm;
  trtllm.name = "trtllm";
  trtllm.release = "TensorRT-LLM 0.15-0.20";
  trtllm.iteration_overhead_s = 0.5e-3;  // C++ in-flight batching runtime
  trtllm.multi_gpu_overhead_s = 0.2e-3;
  trtllm.max_num_seqs = 2048;            // max_batch_size
  trtllm.max_num_batched_tokens = 8192;  // max_num_tokens
  trtllm.chunked_prefill = false;        // enable_chunked_context off by default
  trtllm.block_size_tokens = 32;         // tokens_per_block
  trtllm.preemption = PreemptionMode::kNone;  // GUARANTEED_NO_EVICT capacity scheduler
  trtllm.gpu_memory_utilization = 0.9;   // kv_cache_free_gpu_mem_fraction of what is left
  trtllm.memory_fraction_of_free = true;
  trtllm.cuda_graph_max_tokens = 0;  // compiled engine: the whole step is one plan, any size
  out.push_back(trtllm);

  EngineModel lmdeploy = vllm;
  lmdeploy.name = "lmdeploy";
  lmdeploy.release = "LMDeploy 0.6 (TurboMind)";
  lmdeploy.iteration_overhead_s = 0.5e-3;
  lmdeploy.multi_gpu_overhead_s = 0.2e-3;
  lmdeploy.max_num_seqs = 256;            // max_batch_size
  lmdeploy.max_num_batched_tokens = 8192; // max_prefill_token_num
  lmdeploy.block_size_tokens = 64;        // cache_block_seq_len
  lmdeploy.gpu_memory_utilization = 0.8;  // cache_max_entry_count
  lmdeploy.memory_fraction_of_free = true;
  out.push_back(lmdeploy);

  EngineModel hf;
  hf.name = "hf";
  hf.release = "Hugging Face transformers 4.4x generate()";
  hf.iteration_overhead_s = 8e-3;  // Python generate loop: logits processors, stopping criteria
  hf.launch = LaunchMode::kEager;
  hf.allreduce = AllReduceImpl::kNccl;
  hf.max_num_seqs = 32;
  hf.max_num_batched_tokens = 65536;  // the prompts of one static batch, at most
  hf.chunked_prefill = false;
  hf.block_size_tokens = 16;
  hf.preemption = PreemptionMode::kNone;
  hf.gpu_memory_utilization = 0.9;
  hf.continuous_batching = false;
  out.push_back(hf);

  EngineModel llamacpp = hf;
  llamacpp.name = "llama.cpp";
  llamacpp.release = "llama.cpp server b4000-b6000";
  llamacpp.iteration_overhead_s = 1e-3;
  llamacpp.multi_gpu_overhead_s = 0;
  llamacpp.launch = LaunchMode::kCudaGraphs;
  llamacpp.cuda_graph_max_tokens = 1;  // ggml-cuda captures single-token decode steps only
  llamacpp.cuda_graph_prefill = false;
  llamacpp.max_num_seqs = 4;               // --parallel
  llamacpp.max_num_batched_tokens = 2048;  // --batch-size
  llamacpp.chunked_prefill = true;         // prompts processed n_batch tokens at a time
  llamacpp.block_size_tokens = 1;
  llamacpp.continuous_batching = true;
  out.push_back(llamacpp);
  return out;
}

}  // namespace

std::string_view to_string(LaunchMode mode) {
  return mode == LaunchMode::kCudaGraphs ? "cuda-graphs" : "eager";
}

std::string_view to_string(AllReduceImpl impl) {
  return impl == AllReduceImpl::kCustom ? "custom" : "nccl";
}

std::string_view to_string(PreemptionMode mode) {
  switch (mode) {
    case PreemptionMode::kRecompute: return "recompute";
    case PreemptionMode::kSwap: return "swap";
    case PreemptionMode::kNone: return "none";
  }
  return "unknown";
}

const std::vector<EngineModel>& engine_catalog() {
  static const std::vector<EngineModel> catalog = make_engine_catalog();
  return catalog;
}

std::string engine_names() {
  std::vector<std::string> names;
  for (const EngineModel& e : engine_catalog()) names.push_back(e.name);
  return text::join(names, ", ");
}

std::optional<EngineModel> find_engine(std::string_view name) {
  for (const EngineModel& e : engine_catalog()) {
    if (e.name == name) return e;
  }
  return std::nullopt;
}

bool uses_cuda_graph(const EngineModel& engine, double tokens, bool with_prefill) {
  if (engine.launch != LaunchMode::kCudaGraphs) return false;
  if (with_prefill && !engine.cuda_graph_prefill) return false;
  return engine.cuda_graph_max_tokens <= 0 || tokens <= engine.cuda_graph_max_tokens;
}

std::string describe_launch(const EngineModel& engine) {
  if (engine.launch != LaunchMode::kCudaGraphs) {
    if (engine.kernel_launch_host_s <= 0) return "eager launches";
    return fmt::format("eager launches ({:g} us host time per kernel)", engine.kernel_launch_host_s * 1e6);
  }
  std::string text = engine.cuda_graph_prefill ? "CUDA graphs" : "CUDA graphs for decode";
  if (engine.cuda_graph_max_tokens > 0) text += " up to " + std::to_string(engine.cuda_graph_max_tokens) + " tokens";
  return engine.cuda_graph_max_tokens > 0 || !engine.cuda_graph_prefill ? text + ", eager otherwise" : text;
}

double custom_allreduce_time_s(const EngineModel& engine, int gpus, double bytes,
                               double pair_bw_Bps, double latency_s) {
  const double n = gpus;
  const double one_shot_max = gpus <= 4 ? engine.one_shot_max_bytes_4 : engine.one_shot_max_bytes_8;
  if (gpus == 2 || bytes < one_shot_max) {
    // Each GPU reads the whole message from every peer at once over its NVLinks.
    return kCustomStageLatency_s + latency_s + (n - 1) * bytes / pair_bw_Bps;
  }
  // Reduce-scatter of 1/n shards, then all-gather: 2 (n - 1) / n of the message each way.
  return 2 * (kCustomStageLatency_s + latency_s) + 2 * (n - 1) / n * bytes / pair_bw_Bps;
}

}  // namespace linksim
