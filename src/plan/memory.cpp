// SPDX-License-Identifier: Apache-2.0
// Memory per GPU of a parallel layout (docs/planner-memory.md).
#include <algorithm>

#include "linksim/plan_memory.hpp"
#include "plan/activations.hpp"
#include "plan/stage_params.hpp"

namespace linksim {

namespace {

using detail::StageLayers;

// The workspace allowance (docs/planner-memory.md#workspace).
constexpr double kCudaContextBytes = 0.5e9;
// NCCL's per-peer, per-channel receive buffers: Simple 4 MiB (DEFAULT_BUFFSIZE), LL128
// 4,915,200 B and LL 524,288 B (DEFAULT_LL128_BUFFSIZE, DEFAULT_LL_BUFFSIZE; NVIDIA/nccl
// src/init.cc).
constexpr double kNcclBytesPerPeerChannel = 4194304.0 + 4915200.0 + 524288.0;
constexpr double kNcclChannels = 16;          // an allowance; NCCL picks 2..32 per topology
constexpr double kNcclPeersPerChannel = 2;    // a ring's previous and next rank
constexpr double kCublasWorkspaceBytes = 64.0 * 1024 * 1024;
constexpr double kFragmentation = 0.05;       // of the tensor bytes

double nccl_buffer_bytes(const ParallelLayout& l, PlanMode mode) {
  int communicators = 0;
  for (int degree : {l.tp, l.pp, l.cp, l.ep}) communicators += degree > 1 ? 1 : 0;
  if (mode == PlanMode::kTrain && l.dp * l.cp > 1) ++communicators;  // gradient reduction
  return communicators * kNcclChannels * kNcclPeersPerChannel * kNcclBytesPerPeerChannel;
}

double kv_cache_bytes(const ModelSpec& m, const ParallelLayout& l, PlanMode mode, double bytes,
                      const StageLayers& stage) {
  double tokens = 0;
  if (mode == PlanMode::kPrefill) tokens = double(l.batch) * l.seq;
  if (mode == PlanMode::kDecode) tokens = double(l.batch) * (double(l.kv_len) + 1);
  // KV heads split over TP until each rank has one; an MLA latent is on every rank.
  const double split = m.is_mla() ? 1 : std::min(l.tp, m.kv_heads);
  return stage.layers * kv_cache_elements_per_token_per_layer(m) * tokens * bytes / split / l.cp;
}

MemoryBreakdown stage_memory(const ModelSpec& m, const ParallelLayout& l, PlanMode mode,
                             Recompute recompute, const PrecisionChoice& p,
                             const StageLayers& stage, AttentionCore attention) {
  const bool train = mode == PlanMode::kTrain;
  const detail::HeldParams held = detail::stage_params(m, l, stage);
  const double dense_shards = detail::dense_shards(l), expert_shards = detail::expert_shards(l);
  auto sharded = [&](bool shard) {
    return shard ? held.dense / dense_shards + held.expert / expert_shards
                 : held.dense + held.expert;
  };
  MemoryBreakdown b;
  b.stage = stage.index;
  b.weights = sharded(train && l.zero >= 3) * p.weight_bytes;
  if (train) {
    b.gradients = sharded(l.zero >= 2) * p.grad_bytes;
    b.optimizer = sharded(l.zero >= 1) * p.optimizer_bytes_per_param;
    b.activations =
        detail::train_activation_bytes(m, l, recompute, p.activation_bytes, stage, attention);
  } else {
    const double tokens = mode == PlanMode::kPrefill ? double(l.batch) * l.seq / l.cp : l.batch;
    b.activations = detail::inference_activation_bytes(m, l, p.activation_bytes, tokens,
                                                       l.batch, stage);
  }
  b.kv_cache = kv_cache_bytes(m, l, mode, p.kv_cache_bytes, stage);
  const double tensors = b.weights + b.gradients + b.optimizer + b.activations + b.kv_cache;
  b.workspace = kCudaContextBytes + nccl_buffer_bytes(l, mode) + kCublasWorkspaceBytes +
                kFragmentation * tensors;
  b.total = tensors + b.workspace;
  return b;
}

}  // namespace

std::string_view to_string(PlanMode mode) {
  switch (mode) {
    case PlanMode::kTrain: return "train";
    case PlanMode::kPrefill: return "prefill";
    case PlanMode::kDecode: return "decode";
  }
  return "unknown";
}

std::string_view to_string(Recompute recompute) {
  switch (recompute) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "unknown";
}

MemoryBreakdown estimate_memory(const ModelSpec& model, const ParallelLayout& layout,
                                PlanMode mode, Recompute recompute,
                                const PrecisionChoice& precision, double capacity_bytes,
                                AttentionCore attention) {
  MemoryBreakdown worst;
  for (int s = 0; s < layout.pp; ++s) {
    const StageLayers stage = detail::stage_layers(model, layout.pp, s);
    MemoryBreakdown candidate =
        stage_memory(model, layout, mode, recompute, precision, stage, attention);
    if (s == 0 || candidate.total > worst.total) worst = candidate;
  }
  worst.capacity = capacity_bytes;
  worst.fits = worst.total <= capacity_bytes;
  return worst;
}

}  // namespace linksim
