// SPDX-License-Identifier: Apache-2.0
// Activation memory per GPU, training and inference (docs/planner-memory.md#activations).
#include "plan/activations.hpp"

#include <algorithm>

#include "plan/param_parts.hpp"

namespace linksim::detail {

namespace {

constexpr double kMaskBytes = 1;    // a dropout mask element (Korthikanti et al., section 4.1)
constexpr double kLogitBytes = 4;   // logits are upcast to fp32 for the cross-entropy
// A fused attention kernel's softmax statistic, one per query row and head: the fp32 logsumexp
// (Dao 2023, FlashAttention-2, algorithm 1 output L; cuDNN fused attention's Stats tensor).
constexpr double kLogsumexpBytes = 4;

// Widths of one layer as one TP rank sees them. `replicated_div` divides the tensors that sit
// outside the tensor-parallel region (norm inputs and outputs, dropout masks): tp with sequence
// parallelism, else 1.
struct LayerWidths {
  double h, q_rank, kv_rank, t, replicated_div, mask_bytes;
  int matrices;
};

LayerWidths widths(const ModelSpec& m, const ParallelLayout& l, bool train) {
  LayerWidths w;
  w.h = m.hidden;
  w.t = l.tp;
  w.q_rank = double(m.heads) * m.head_dim / l.tp;
  w.kv_rank = double(m.kv_heads) * m.head_dim / std::min(l.tp, m.kv_heads);
  w.replicated_div = train && l.sp ? l.tp : 1;
  w.mask_bytes = train && m.dropout ? kMaskBytes : 0;
  w.matrices = ffn_matrices(m.ffn_type);
  return w;
}

// Stored by attention per token, bytes: the norm's input and output (the QKV input), Q, K, V,
// the attention output (the output projection's input) and the dropout mask after it.
double attention_per_token(const LayerWidths& w, double bytes) {
  return bytes * (2 * w.h / w.replicated_div + w.q_rank + 2 * w.kv_rank + w.q_rank) +
         w.mask_bytes * w.h / w.replicated_div;
}

// Stored by a dense FFN per token: the norm's input and output (FC1 input), the intermediates
// (GELU / squared ReLU: FC1 output and activation output, 2f; SwiGLU: gate and up outputs
// and their product, 3f) and the dropout mask after FC2.
double dense_ffn_per_token(const ModelSpec& m, const LayerWidths& w, double bytes) {
  return bytes * (2 * w.h / w.replicated_div + w.matrices * double(m.ffn) / w.t) +
         w.mask_bytes * w.h / w.replicated_div;
}

// Stored by an MoE FFN per token entering the layer on this rank: the norm's input and output,
// the router's scores (E), and for each of the topk copies the dispatched input (h, times etp:
// an expert's etp ranks all see its tokens), the expert intermediates (matrices x moe_ffn, split
// etp ways over etp times the tokens) and the expert output kept for the routing-weight
// gradient (h); shared experts as a TP-split dense FFN of moe_ffn.
double moe_ffn_per_token(const ModelSpec& m, const ParallelLayout& l, const LayerWidths& w,
                         double bytes) {
  const double local = 1 / w.replicated_div;  // tokens per token of the sequence on this rank
  const double routed = m.topk * local * (l.etp * w.h + w.matrices * double(m.moe_ffn) + w.h);
  const double shared = m.shared_experts * w.matrices * double(m.moe_ffn) / w.t;
  return bytes * (2 * w.h * local + m.experts * local + routed + shared) +
         w.mask_bytes * w.h * local;
}

double local_sequence(const ParallelLayout& l) { return double(l.seq) / l.cp; }

}  // namespace

double in_flight_micro_batches(const ParallelLayout& l, int stage_index) {
  const double available = std::max(1, l.micro_batches());
  const double pp = l.pp, vpp = l.vpp, s = stage_index;
  const double held = l.vpp > 1 ? (2 * (pp - s - 1) + (vpp - 1) * pp + 1) / vpp : pp - s;
  return std::min(held, available);
}

double train_layer_activation_bytes(const ModelSpec& m, const ParallelLayout& l,
                                    Recompute recompute, double bytes, bool moe_layer,
                                    AttentionCore attention) {
  const LayerWidths w = widths(m, l, true);
  const double tokens = local_sequence(l) * l.micro_batch;
  if (recompute == Recompute::kFull) return bytes * tokens * w.h / w.replicated_div;
  const double ffn = moe_layer ? moe_ffn_per_token(m, l, w, bytes) : dense_ffn_per_token(m, w, bytes);
  double stored = tokens * (attention_per_token(w, bytes) + ffn);
  if (recompute == Recompute::kNone) {
    const double query_rows = double(m.heads) / w.t * l.micro_batch * local_sequence(l);
    if (attention == AttentionCore::kFused) {
      // Scores are recomputed tile by tile in backward; dropout regenerates its mask from the
      // saved RNG state (Dao et al. 2022, section 3.1).
      stored += query_rows * kLogsumexpBytes;
    } else {
      // The score matrix of the unfused attention core: softmax output, and with dropout its
      // mask and output. Queries are the local sequence, keys the whole one (context
      // parallelism).
      const double per_score = bytes + (m.dropout ? kMaskBytes + bytes : 0);
      stored += query_rows * l.seq * per_score;
    }
  }
  return stored;
}

double train_activation_bytes(const ModelSpec& m, const ParallelLayout& l, Recompute recompute,
                              double bytes, const StageLayers& stage, AttentionCore attention) {
  const LayerWidths w = widths(m, l, true);
  const double tokens = local_sequence(l) * l.micro_batch;
  const double per_micro_batch =
      stage.dense * train_layer_activation_bytes(m, l, recompute, bytes, false, attention) +
      stage.moe() * train_layer_activation_bytes(m, l, recompute, bytes, true, attention);
  double extras = 0;
  if (stage.first) extras += w.mask_bytes * tokens * w.h / w.replicated_div;
  double total = in_flight_micro_batches(l, stage.index) * (per_micro_batch + extras);
  if (stage.last) {
    // Final norm input, output head input and the fp32 logits of the local vocabulary shard
    // (Korthikanti et al., section 4.3: 4sbh/t (1 + v/h) with SP).
    const double head = bytes * 2 * tokens * w.h / w.replicated_div +
                        kLogitBytes * tokens * double(m.vocab) / l.tp;
    total += in_flight_micro_batches(l, stage.index) * head;
  }
  if (recompute == Recompute::kFull) {
    // The layer being recomputed holds its full activations during its backward.
    const bool moe = stage.moe() > 0;
    total += train_layer_activation_bytes(m, l, Recompute::kSelective, bytes, moe);
  }
  return total;
}

double inference_activation_bytes(const ModelSpec& m, const ParallelLayout& l, double bytes,
                                  double tokens, double sequences, const StageLayers& stage) {
  const LayerWidths w = widths(m, l, false);
  // Residual stream, plus the norm output and whichever block is wider: attention's Q, K, V
  // and output, or the FFN's intermediates.
  const double attention = w.h + 2 * w.q_rank + 2 * w.kv_rank;
  double ffn = 0;
  if (stage.dense > 0) ffn = w.h + w.matrices * double(m.ffn) / w.t;
  if (stage.moe() > 0) {
    // Expert parallelism spreads the topk copies of the tokens over ep ranks.
    const double routed =
        double(m.topk) / l.ep * (2 * w.h + w.matrices * double(m.moe_ffn) / l.etp);
    const double shared = m.shared_experts * w.matrices * double(m.moe_ffn) / w.t;
    ffn = std::max(ffn, w.h + m.experts + routed + shared);
  }
  double total = bytes * tokens * (w.h + std::max(attention, ffn));
  if (stage.last) total += kLogitBytes * sequences * double(m.vocab) / l.tp;
  return total;
}

}  // namespace linksim::detail
