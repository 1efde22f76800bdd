// SPDX-License-Identifier: Apache-2.0
// The LLM planner: a model, a parallel layout and a machine in; step time, throughput, memory,
// the communication of every parallel group (timed by the collective engine on the GPUs that
// group really uses) and the interconnect's share out (docs/planner.md).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/engine.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/model.hpp"
#include "linksim/plan_memory.hpp"
#include "linksim/topology.hpp"

namespace linksim {

/// The training stack a step runs on (docs/planner.md#frameworks): what it fuses, how it
/// shards, reduces and overlaps, and which optimizer kernel it runs.
enum class TrainFramework { kMegatron, kNemo, kTorchtitan, kFsdp, kDeepspeed, kLlmFoundry };
/// "megatron", "nemo", "torchtitan", "fsdp", "deepspeed", "llm-foundry"
std::string_view to_string(TrainFramework framework);
/// The framework named `name`; nullopt for anything else.
std::optional<TrainFramework> parse_train_framework(std::string_view name);

/// The work of one serving-engine iteration under continuous batching: one new token for each
/// decoding sequence and a chunk of prompt for each prefilling one, run as one forward pass
/// (docs/serving.md#iteration). Sums are over the sequences of the batch.
struct IterationBatch {
  int decode_sequences = 0;            ///< sequences generating one token
  double decode_context_tokens = 0;    ///< keys their attention reads: sum of (context + 1)
  int prefill_sequences = 0;           ///< sequences with a prompt chunk in this iteration
  double prefill_tokens = 0;           ///< prompt tokens of all chunks
  /// Query-key pairs of the chunks' attention: for a chunk of c tokens after p cached ones,
  /// c p + c (c + 1) / 2 (causal inside the chunk).
  double prefill_attention_pairs = 0;
  double prefill_context_tokens = 0;   ///< keys the chunks read: sum of (p + c)
  double tokens() const { return decode_sequences + prefill_tokens; }
};

/// What the user asked for. Degrees left unset are filled as documented: dp fills the GPUs
/// left, the others default to 1.
struct PlanRequest {
  ModelSpec model;
  PlanMode mode = PlanMode::kTrain;
  std::optional<int> tp, pp, dp, cp, ep, etp, vpp;
  bool sp = false;
  std::optional<int> zero;          ///< default: 1 when dp > 1 (Megatron's distributed optimizer), else 0
  int micro_batch = 1;
  std::optional<int> global_batch;  ///< train; default: micro_batch x dp (one micro-batch per pipeline)
  int seq = 2048;                   ///< train and prefill: tokens per sequence
  int batch = 1;                    ///< prefill and decode: sequences
  int kv_len = 2048;                ///< decode: context tokens per sequence
  /// prefill with PP > 1: the prompt goes through the stages in chunks of this many tokens,
  /// so the stages work on different chunks at once (chunked prefill); 0 = the whole prompt
  /// passes every stage in turn.
  int prefill_chunk = 0;
  std::string dtype = "bf16";       ///< compute: bf16 | fp16 | fp8
  std::optional<std::string> weight_dtype;  ///< stored weights: int4 | int8 | fp8 | bf16 | fp16
  Recompute recompute = Recompute::kSelective;
  bool tp_overlap_async = false;    ///< --tp-overlap async: TP traffic hidden behind the GEMMs it feeds
  TrainFramework framework = TrainFramework::kMegatron;  ///< --framework (training)
  std::optional<bool> compile;      ///< --compile on|off: torch.compile; default: the framework's
  /// --zero hsdp: parameters sharded over groups of this many data-parallel ranks and
  /// replicated across them (HSDP); requires zero = 3. 0 = sharded over every DP x CP rank;
  /// kShardGroupPerServer = the DP x CP ranks of one server.
  int shard_group = 0;
  static constexpr int kShardGroupPerServer = -1;
  GpuSelection gpus;                ///< as `coll`: -g, --gpus, --per-node; empty = by the degrees
  std::optional<double> gemm_efficiency;  ///< override: the large-GEMM ceiling, fraction of dense tensor peak
  std::optional<double> hbm_efficiency;   ///< override: achieved fraction of HBM bandwidth
  CommOptions comm;                 ///< NCCL switches for every group
  SimMode sim_mode = SimMode::kAnalytic;
  double flops_scale = 1;           ///< multiplies the GPU's FLOP/s (sensitivity studies)
  double hbm_scale = 1;             ///< multiplies the GPU's memory bandwidth (sensitivity studies)
  bool compute_baseline = true;     ///< find the baseline and fill speedup / scaling efficiency
  /// prefill and decode: the serving engine's per-iteration overhead, launch mode and
  /// all-reduce (include/linksim/engine.hpp); nullopt = none (kernels and NCCL alone).
  std::optional<EngineModel> engine;
  /// prefill and decode: time exactly this mixed batch instead of the batch/seq/kv_len shape
  /// (serving's iterations; the layout's batch and seq then only size the memory estimate).
  std::optional<IterationBatch> iteration;
  std::optional<int> baseline_gpus; ///< --baseline N: compare against the best fitting layout on N GPUs
};

/// One kind of communication of a step, in the terms of the issue's `comms` JSON array.
struct PlanComm {
  std::string kind;         ///< "tp", "tp_sp", "pp", "dp", "zero", "cp", "ep"
  std::string phase;        ///< "forward", "backward", "step" (once per optimizer step)
  int group_size = 0;
  CollectiveOp collective = CollectiveOp::kAllReduce;
  double bytes = 0;         ///< nccl-tests' size of one call, bytes
  double count = 0;         ///< calls per step on the critical path of one GPU
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  double time_s = 0;        ///< all calls of the step: count x one call
  double exposed_s = 0;     ///< the part of time_s not hidden behind computation
  std::string bottleneck;   ///< the link that bounds one call
  std::string implementation = "nccl";  ///< or a serving engine's "custom one-shot" / "custom two-shot"
  std::string gpus;         ///< the GPUs of the timed group, "gpu0-3" or "host0:gpu0, host1:gpu0..."
  std::vector<DeviceId> group;  ///< the timed group's GPUs, in rank order
  /// One call's time with the groups of its kind that run at the same time over the call timed
  /// alone (>= 1; docs/planner.md#shared-links); 1 when they share no link that limits it.
  double shared_slowdown = 1;
  std::string shared_link;  ///< the link they share, "nic0->leaf0 (ib_ndr)"; "" when none
  int shared_groups = 0;    ///< the groups that load shared_link, the timed one included
  /// By whom: the other groups that load shared_link, each as `gpus` words; empty when none.
  std::vector<std::string> shared_with;
};

/// What slowed a communication's group, in words for a table: "2 groups at once on
/// nic0->leaf0 (ib_ndr); slowed by host0:gpu1, host1:gpu1" (the first three other groups, then
/// "and N more", each in braces when there are several). "" when nothing slowed it.
std::string describe_shared(const PlanComm& comm);

/// One GEMM of one layer's forward (or of the output head) on one GPU: Y (m x n) = X (m x k)
/// W (k x n) after the TP / EP split, timed by the GEMM model (docs/planner.md#compute).
struct PlanGemm {
  /// "QKV", "attention out", "FFN up/gate", "FFN down", "experts up/gate", ...
  std::string name;
  double m = 0, n = 0, k = 0;
  double instances = 1;     ///< GEMMs of this shape in the kernel (experts of a grouped GEMM)
  double time_s = 0;        ///< the kernel's busy time, all instances (launch floor not applied)
  double achieved_efficiency = 0;  ///< 2 m n k x instances / (peak x time_s)
  bool memory_bound = false;       ///< reading the operands takes longer than the tensor cores
};

/// Compute of one step on the slowest pipeline stage, seconds, and what it was built from.
struct PlanCompute {
  double gemm_s = 0;        ///< dense GEMMs (QKV, output, FFN, experts, logits)
  double attention_s = 0;   ///< attention core (FlashAttention)
  double memory_bound_s = 0;///< norms, activations, residuals, embedding, KV-cache reads; FSDP's copies
  double optimizer_s = 0;   ///< the optimizer step
  double overhead_s = 0;    ///< kernel launches, and comm_sm_s
  /// Of overhead_s: compute slowed by the SMs NCCL's kernels hold while the data-parallel
  /// collectives run hidden under it (docs/planner.md#fsdp-overheads).
  double comm_sm_s = 0;
  double total_s = 0;
  double gemm_efficiency = 0;      ///< peak fraction the best-shaped large GEMM reaches (ceiling)
  /// FLOPs / (peak x (gemm_s + attention_s)): after tile and wave quantization, memory limits
  /// and the attention core's efficiency
  double achieved_gemm_efficiency = 0;
  double hbm_efficiency = 0;
  double peak_flops = 0;           ///< the GPU's dense tensor FLOP/s for the dtype
  double hbm_Bps = 0;
  /// FLOPs the GEMMs and attention execute in the step: flops / (peak_flops x
  /// achieved_gemm_efficiency) = gemm_s + attention_s.
  double flops = 0;
  /// Bytes the memory-bound kernels move in the step: memory_bytes / (hbm_Bps x
  /// hbm_efficiency) = memory_bound_s.
  double memory_bytes = 0;
  /// The GEMMs of one layer's forward (dense layer, then MoE layer where the model has them)
  /// and the output head's, each once.
  std::vector<PlanGemm> gemms;
};

struct PlanBreakdown {
  double compute_s = 0;
  double exposed_comm_s = 0;
  double bubble_s = 0;
  /// Train: forward + backward of one micro-batch on the slowest stage, its exposed
  /// communication included: bubble_s = (pp - 1) / vpp x microbatch_s (docs/planner.md).
  double microbatch_s = 0;
  double engine_overhead_s = 0;  ///< prefill, decode: the engine's host time per iteration
};

struct PlanResult {
  std::string model;
  std::string topology;
  std::string gpu_model;       ///< catalog key of the GPUs used
  PlanMode mode = PlanMode::kTrain;
  int gpus = 0;
  ParallelLayout layout;       ///< every default filled in
  Recompute recompute = Recompute::kSelective;
  std::string dtype, weight_dtype;
  bool tp_overlap_async = false;
  std::string framework;       ///< training: the stack modelled, "torchtitan (FSDP2)"
  std::string engine = "none"; ///< prefill, decode: the serving engine modelled (--engine)
  double step_time_s = 0;      ///< train: one optimizer step; prefill: TTFT; decode: TPOT
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;
  double model_flops = 0;      ///< per step, docs/planner.md#flop-convention
  double model_tflops_per_gpu = 0;
  double mfu = 0;              ///< fraction (0..1)
  std::optional<double> ttft_s;  ///< prefill
  std::optional<double> tpot_s;  ///< decode
  double comm_time_s = 0;      ///< all communication, hidden or not
  double comm_compute_ratio = 0; ///< comm_time_s / compute time
  std::optional<double> speedup;             ///< throughput / baseline throughput
  std::optional<double> scaling_efficiency;  ///< speedup / (gpus / baseline gpus)
  std::optional<int> baseline_gpus;
  std::string baseline;        ///< the baseline layout, "1 GPU" or "tp=2 pp=1 dp=1 on 2 GPUs"
  PlanBreakdown breakdown;
  PlanCompute compute;
  std::vector<PlanComm> comms;
  MemoryBreakdown memory;
  /// When the plan does not fit: the smallest tp x pp (same dp, cp) that would, e.g. "tp=4 pp=2";
  /// empty when nothing on the topology fits.
  std::string smallest_fitting;
  int layers_on_slowest_stage = 0;
  std::vector<std::string> assumptions;  ///< defaults filled in and modelling choices, for the user
};

/// Plans one layout. Throws ConfigError for invalid combinations, naming the constraint and
/// the numbers (TP not dividing heads, TP*PP*CP*DP != GPUs selected, EP on a dense model, ...).
PlanResult plan(const Topology& topology, const PlanRequest& request);

/// One serving iteration's time, seconds: compute, the communication not hidden behind it
/// and the engine's host overhead (step_s is their sum).
struct IterationTime {
  double step_s = 0;
  double compute_s = 0;
  double exposed_comm_s = 0;
  double engine_overhead_s = 0;
};

/// The step model of one model replica set up once (GPUs, layout, precision, communicators),
/// timing any batch of a serving engine's iteration: what `plan --mode prefill|decode` prints
/// for a batch, without its tables. The replica is the request's TP x PP x CP (x EP) on the
/// first GPUs selected; DP replicas are independent copies, so dp is taken as 1.
/// Not thread-safe (one per thread). REQUIRES: the topology outlives it.
class IterationTimer {
 public:
  /// Throws ConfigError as plan() does for the request (mode prefill or decode).
  IterationTimer(const Topology& topology, const PlanRequest& request);
  ~IterationTimer();
  IterationTimer(IterationTimer&&) noexcept;

  /// The time of one iteration running exactly `batch` (REQUIRES: batch.tokens() >= 1).
  IterationTime time(const IterationBatch& batch);
  /// The whole plan of one iteration running `batch`: its communication table (each call's
  /// bounding link), compute detail and the replica's memory.
  PlanResult plan(const IterationBatch& batch);
  /// Memory per GPU of the replica running `batched_tokens` tokens in one iteration with an
  /// empty KV cache (kv_cache = 0): weights, activations, workspace (plan_memory.hpp).
  MemoryBreakdown memory_without_kv(int batched_tokens) const;
  /// KV-cache bytes one token takes on the most loaded GPU (its pipeline stage's layers, its
  /// share of the KV heads).
  double kv_bytes_per_token() const;
  /// The replica's resolved layout (dp = 1) and the request it answers.
  const ParallelLayout& layout() const;
  const PlanRequest& request() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One candidate of a layout search.
struct SearchCandidate {
  ParallelLayout layout;
  bool fits = false;
  double tokens_per_s = 0;
  double step_time_s = 0;
  double memory_bytes = 0;
  PlanBreakdown breakdown;
  std::string verdict;  ///< why it wins or loses: "best", "does not fit (92 GB > 80 GB)", "bubble 31 %"
};

/// Every valid (tp, pp, dp, cp, ep, micro-batch) for the GPUs of `request` (its degrees are
/// ignored), ranked by tokens/s, fitting layouts first.
std::vector<SearchCandidate> search_layouts(const Topology& topology, const PlanRequest& request);

/// Step time when one resource gets `factor` times faster.
struct SensitivityRow {
  std::string resource;   ///< "NVLink", "PCIe", "socket link", "NIC", "fabric", "GPU FLOP/s", "HBM"
  double step_time_s = 0;
  double saving = 0;      ///< 1 - step_time_s / base step time
};
std::vector<SensitivityRow> sensitivity(const Topology& topology, const PlanRequest& request,
                                        double factor = 2);

}  // namespace linksim
