// SPDX-License-Identifier: Apache-2.0
// One pipeline stage of a plan: the compute of its layers and the communication inside them
// (TP, EP, CP), with the overlap each can get (docs/planner.md#communication).
#include <algorithm>

#include "plan/step_builder.hpp"
#include "plan/tp_overlap.hpp"

namespace linksim::plan_detail {

void StepBuilder::add_tp_comms(double n, StageCost& c, double fwd_hide_s, double bwd_hide_s) {
  // Tensor parallelism: two exchanges per layer and pass (after attention, after the FFN).
  const auto g = pick(groups_.tp);
  const double a = activation_bytes();
  struct Call { CollectiveOp op; double fwd, bwd; };
  std::vector<Call> calls;
  const double recompute_fwd = r_.recompute == Recompute::kFull ? 1 : 0;
  if (!l_.sp) {
    calls.push_back({CollectiveOp::kAllReduce, 2 * (1 + recompute_fwd), 2});
  } else {
    // Megatron SP: forward AG + RS per block; backward RS + AG, plus the re-gather of the
    // sharded input for the weight gradient.
    calls.push_back({CollectiveOp::kAllGather, 2 * (1 + recompute_fwd), 4});
    calls.push_back({CollectiveOp::kReduceScatter, 2 * (1 + recompute_fwd), 2});
  }
  double fwd_s = 0, bwd_s = 0;
  for (const Call& call : calls) {
    const double t = time(g, call.op, a).time_s;
    fwd_s += call.fwd * t;
    bwd_s += call.bwd * t;
  }
  double fwd_exposed = r_.tp_overlap_async ? std::max(0.0, fwd_s - fwd_hide_s) : fwd_s;
  if (userbuffers()) {
    // The two forward reduce-scatters run "pipeline": the GEMM in 4 chunks, each chunk's
    // reduce-scatter behind the next chunk's GEMM; the last one has nothing to hide behind.
    const double chunk_s = time(g, CollectiveOp::kReduceScatter, a / kUserbufferPipelineSplits).time_s;
    fwd_exposed = std::max(fwd_exposed, 2 * (1 + recompute_fwd) * chunk_s);
  }
  const double bwd_exposed = r_.tp_overlap_async ? std::max(0.0, bwd_s - bwd_hide_s) : bwd_s;
  for (const Call& call : calls) {
    const double t = time(g, call.op, a).time_s;
    c.comms.push_back({"tp", "forward", g, call.op, a, call.fwd * n,
                       fwd_s > 0 ? n * fwd_exposed * call.fwd * t / fwd_s : 0});
    if (train()) {
      c.comms.push_back({"tp", "backward", g, call.op, a, call.bwd * n,
                         bwd_s > 0 ? n * bwd_exposed * call.bwd * t / bwd_s : 0});
    }
  }
  c.fwd.exposed_comm_s += n * fwd_exposed;
  if (train()) c.bwd.exposed_comm_s += n * bwd_exposed;
}

void StepBuilder::add_ep_comms(double n, StageCost& c) {
  // Expert parallelism: AllToAll dispatch and combine of the routed tokens.
  const auto g = pick(groups_.ep);
  const double send = w_.tokens / l_.tp * m_.topk * m_.hidden * p_.act_bytes;
  const double t = time(g, CollectiveOp::kAllToAll, send).time_s;
  c.comms.push_back({"ep", "forward", g, CollectiveOp::kAllToAll, send, 2 * n, 2 * n * t});
  c.fwd.exposed_comm_s += 2 * n * t;
  if (train()) {
    c.comms.push_back({"ep", "backward", g, CollectiveOp::kAllToAll, send, 2 * n, 2 * n * t});
    c.bwd.exposed_comm_s += 2 * n * t;
  }
}

CpRing cp_ring_exposure(int cp, double send_fwd_s, double send_bwd_s, double attn_fwd_s,
                        double attn_bwd_s) {
  // Ring attention over cp ranks, load-balanced (each rank holds two mirrored chunks of the
  // causal sequence, Megatron-Core's and torchtitan's split): cp steps of equal attention work;
  // the K/V block for step i + 1 travels while step i computes, so each of the cp - 1 exchanges
  // shows only what outlasts one step's attention. Backward sends K/V and the dK/dV
  // accumulators.
  CpRing out;
  out.steps = cp;
  const double exchanges = cp - 1;
  out.forward_s = exchanges * send_fwd_s;
  out.backward_s = exchanges * send_bwd_s;
  out.forward_exposed_s = exchanges * std::max(0.0, send_fwd_s - attn_fwd_s / cp);
  out.backward_exposed_s = exchanges * std::max(0.0, send_bwd_s - attn_bwd_s / cp);
  return out;
}

void StepBuilder::add_cp_comms(double n, StageCost& c, double attn_fwd_s, double attn_bwd_s) {
  // Context parallelism as ring attention (docs/planner.md#context-parallelism): each step
  // passes this rank's K/V block to its ring neighbour.
  const double kv_local = std::max(1.0, double(m_.kv_heads) / l_.tp) * m_.head_dim;
  const double block = w_.tokens * 2 * kv_local * p_.act_bytes;
  // The slowest neighbour pair of the ring sets the pace. Every rank of every CP ring sends
  // to its neighbour at once.
  const std::vector<int>& ring = groups_.cp;
  const int count = int(selected_.size());
  std::vector<DeviceId> pair;
  double send_fwd_s = 0, send_bwd_s = 0;
  for (size_t i = 0; i < ring.size(); ++i) {
    // Pair i of this ring first, then every other neighbour pair of every CP ring.
    const std::vector<int> own{ring[i], ring[(i + 1) % ring.size()]};
    const std::vector<DeviceId> p = pick_with(own, [ring, count, i] {
      std::vector<std::vector<int>> sends;
      for (const std::vector<int>& r : concurrent_groups(ring, count)) {
        for (size_t k = 0; k < r.size(); ++k) sends.push_back({r[k], r[(k + 1) % r.size()]});
      }
      std::swap(sends[0], sends[i]);
      return sends;
    });
    const double t = time(p, CollectiveOp::kSendRecv, block).time_s;
    if (t > send_fwd_s || pair.empty()) {
      send_fwd_s = t;
      send_bwd_s = time(p, CollectiveOp::kSendRecv, 2 * block).time_s;
      pair = p;
    }
  }
  const CpRing r = cp_ring_exposure(l_.cp, send_fwd_s, send_bwd_s, attn_fwd_s, attn_bwd_s);
  c.comms.push_back({"cp", "forward", pair, CollectiveOp::kSendRecv, block, n * (l_.cp - 1),
                     n * r.forward_exposed_s});
  c.fwd.exposed_comm_s += n * r.forward_exposed_s;
  if (train()) {
    c.comms.push_back({"cp", "backward", pair, CollectiveOp::kSendRecv, 2 * block, n * (l_.cp - 1),
                       n * r.backward_exposed_s});
    c.bwd.exposed_comm_s += n * r.backward_exposed_s;
  }
}

void StepBuilder::add_layer_comms(bool moe, int layers, StageCost& c, double fwd_hide_s,
                                  double bwd_hide_s, double attn_fwd_s, double attn_bwd_s) {
  if (layers == 0) return;
  const double n = layers;
  if (l_.tp > 1) add_tp_comms(n, c, fwd_hide_s, bwd_hide_s);
  if (moe && l_.ep > 1) add_ep_comms(n, c);
  if (l_.cp > 1) add_cp_comms(n, c, attn_fwd_s, attn_bwd_s);
}

StageCost StepBuilder::stage_cost(const Stage& s) {
  StageCost c;
  for (int moe = 0; moe < 2; ++moe) {
    const int layers = moe ? s.layers.moe() : s.layers.dense;
    if (layers == 0) continue;
    const LayerCost f = layer_forward(m_, l_, w_, moe, p_, rates_);
    c.fwd.compute += f.scaled(layers);
    double bwd_attention_s = 0;
    if (train()) {
      const LayerCost b = layer_backward(m_, l_, w_, moe, p_, rates_);
      LayerCost recompute;
      if (r_.recompute == Recompute::kFull) recompute = f;
      if (r_.recompute == Recompute::kSelective) {
        if (fw_.selective == SelectiveRecompute::kEverySecondMatmul) {
          recompute = every_second_matmul_recompute(m_, l_, w_, moe, p_, rates_);
        } else {
          recompute = attention_core_recompute(m_, l_, w_, p_, rates_);
        }
      }
      LayerCost total_b = b;
      total_b += recompute;
      c.bwd.compute += total_b.scaled(layers);
      bwd_attention_s = b.attention_s;
    }
    if (train() && userbuffers()) {
      // GEMMs beside a userbuffers communication kernel run on the SMs it leaves them.
      const UserbufferCost ub = userbuffer_cost(m_, l_, w_, moe, p_, rates_);
      const double recompute = r_.recompute == Recompute::kFull ? 1 : 0;
      c.fwd.compute.gemm_s += layers * ub.forward_extra_s;
      c.bwd.compute.gemm_s += layers * (ub.backward_extra_s + recompute * ub.forward_extra_s);
    }
    const double hide = tp_overlappable_gemm_s(m_, l_, w_, moe, p_, rates_);
    add_layer_comms(moe, layers, c, hide, 2 * hide, f.attention_s, bwd_attention_s);
  }
  WorkShape head = w_;
  if (r_.mode == PlanMode::kPrefill) head.tokens = w_.sequences;  // logits of the last position only
  if (w_.iteration) head.tokens = w_.logit_rows;
  if (s.layers.first) c.fwd.compute += embedding_forward(m_, w_, p_, rates_);
  if (s.layers.last) {
    const LayerCost logits = logits_forward(m_, l_, head, p_, rates_);
    c.fwd.compute += logits;
    if (train()) c.bwd.compute += logits.scaled(2);
  }
  return c;
}

StagesCost StepBuilder::cost_stages() {
  StagesCost out;
  for (int s = 0; s < l_.pp; ++s) {
    const detail::StageLayers layers = detail::stage_layers(m_, l_.pp, s);
    out.stages.push_back({layers, detail::stage_params(m_, l_, layers)});
  }
  out.costs.reserve(out.stages.size());
  for (size_t s = 0; s < out.stages.size(); ++s) {
    out.costs.push_back(stage_cost(out.stages[s]));
    const StageCost& c = out.costs.back();
    out.sum_fwd_s += c.fwd.time();
    out.sum_fwd.compute += c.fwd.compute;
    out.sum_fwd.exposed_comm_s += c.fwd.exposed_comm_s;
    const double t = c.fwd.time() + c.bwd.time();
    const StageCost& slowest = out.costs[out.slowest];
    if (t > slowest.fwd.time() + slowest.bwd.time()) out.slowest = s;
  }
  return out;
}

}  // namespace linksim::plan_detail
