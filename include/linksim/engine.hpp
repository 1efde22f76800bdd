// SPDX-License-Identifier: Apache-2.0
// Serving engines as linksim models them: the CPU time each iteration spends outside the GPU
// kernels, how kernels are launched, which all-reduce tensor parallelism uses, and the
// scheduler's defaults (docs/serving.md#engines, every value with its source and release).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linksim {

/// How an engine launches the kernels of one iteration.
enum class LaunchMode {
  kCudaGraphs,  ///< the step is replayed from a captured CUDA graph (short launch floor)
  kEager,       ///< every kernel launched by the host, one by one
};

/// The all-reduce a tensor-parallel group runs.
enum class AllReduceImpl {
  kNccl,    ///< NCCL's AllReduce (the collective engine's ring/tree/NVLS choice)
  kCustom,  ///< the engine's one-shot / two-shot kernels over NVLink peer memory
};

/// What the scheduler does when a running sequence needs a KV block and none is free.
enum class PreemptionMode {
  kRecompute,  ///< the sequence is dropped and prefilled again later (its KV freed)
  kSwap,       ///< its KV blocks move to host memory and come back when blocks free up
  kNone,       ///< admission reserves prompt + output blocks, so no preemption happens
};

std::string_view to_string(LaunchMode mode);        ///< "cuda-graphs", "eager"
std::string_view to_string(AllReduceImpl impl);     ///< "nccl", "custom"
std::string_view to_string(PreemptionMode mode);    ///< "recompute", "swap", "none"

/// One engine's mechanisms and scheduler defaults. Plain aggregate; the catalog's entries
/// cite their source in docs/serving.md.
struct EngineModel {
  std::string name;                  ///< "vllm", "sglang", "trtllm", "lmdeploy", "hf", "llama.cpp"
  std::string release;               ///< the release the values hold for, "vLLM 0.10"
  double iteration_overhead_s = 0;   ///< host time per iteration not hidden behind the GPU
  /// more host time per iteration when the replica spans several GPUs (the step's inputs
  /// broadcast to the tensor/pipeline-parallel workers, their outputs gathered)
  double multi_gpu_overhead_s = 0;
  /// The host time of one iteration of a replica of `gpus` GPUs, seconds.
  double overhead_s(int gpus) const {
    return iteration_overhead_s + (gpus > 1 ? multi_gpu_overhead_s : 0);
  }
  LaunchMode launch = LaunchMode::kCudaGraphs;
  /// CUDA graphs: the largest iteration (tokens) replayed from a captured graph; larger ones
  /// launch eagerly. 0 = every iteration.
  int cuda_graph_max_tokens = 0;
  /// CUDA graphs: whether iterations with prompt tokens are captured too (vLLM V1's piecewise
  /// graphs) or only decode-only ones.
  bool cuda_graph_prefill = true;
  AllReduceImpl allreduce = AllReduceImpl::kNccl;
  /// Custom all-reduce: the largest message it takes (bytes); larger ones go to NCCL.
  double custom_allreduce_max_bytes = 0;
  /// Custom all-reduce: below this size the one-shot kernel runs, else the two-shot, for
  /// groups of up to 4 and of up to 8 GPUs (bytes).
  double one_shot_max_bytes_4 = 0;
  double one_shot_max_bytes_8 = 0;
  /// Scheduler defaults.
  int max_num_seqs = 256;            ///< running sequences at most
  int max_num_batched_tokens = 8192; ///< tokens (decode + prefill) per iteration at most
  bool chunked_prefill = true;       ///< long prompts split over iterations
  int block_size_tokens = 16;        ///< KV-cache block (page) size, tokens
  PreemptionMode preemption = PreemptionMode::kRecompute;
  double gpu_memory_utilization = 0.9;  ///< fraction of GPU memory the engine may use
  /// true: gpu_memory_utilization is a fraction of the memory left after weights,
  /// activations and workspace (TensorRT-LLM, LMDeploy), not of the whole GPU (vLLM, SGLang)
  bool memory_fraction_of_free = false;
  bool continuous_batching = true;   ///< false: a batch runs to completion before the next starts
  /// Eager launches: the host time to enqueue one kernel (an engine without CUDA graphs waits
  /// on its host whenever a kernel is shorter); 0 = the planner's eager launch floor.
  double kernel_launch_host_s = 0;
  bool fused_gate_up = true;         ///< SwiGLU's gate and up projections as one GEMM
  /// Decode attention reads each KV head once for the query heads sharing it (GQA); false: once
  /// per query head, the re-reads served from L2 where the GPU's L2 bandwidth is known.
  bool gqa_shared_kv_reads = true;
};

/// The engines known to linksim, in a stable order.
const std::vector<EngineModel>& engine_catalog();
/// "vllm, sglang, trtllm, lmdeploy, hf, llama.cpp"
std::string engine_names();
/// The engine called `name`; nullopt for anything else.
std::optional<EngineModel> find_engine(std::string_view name);

/// Whether an iteration of `tokens` tokens, `with_prefill` prompt tokens among them, replays a
/// CUDA graph under `engine` (else its kernels launch one by one).
bool uses_cuda_graph(const EngineModel& engine, double tokens, bool with_prefill);

/// "CUDA graphs up to 512 tokens", "CUDA graphs for decode up to 160 tokens", "eager launches"
std::string describe_launch(const EngineModel& engine);

/// The custom all-reduce's time for one call of `bytes` over `gpus` GPUs that reach each
/// other over NVLink at `pair_bw_Bps` (per direction) with one-way `latency_s` (seconds).
/// One-shot: every GPU reads the whole message from each peer; two-shot: reduce-scatter
/// then all-gather (docs/serving.md#custom-all-reduce).
double custom_allreduce_time_s(const EngineModel& engine, int gpus, double bytes,
                               double pair_bw_Bps, double latency_s);

}  // namespace linksim
