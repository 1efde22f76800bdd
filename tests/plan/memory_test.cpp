// SPDX-License-Identifier: Apache-2.0
// Memory per GPU: weights, gradients, optimizer state, activations (Korthikanti et al. 2022),
// KV cache and workspace, each against a hand derivation.
#include <doctest/doctest.h>

#include "linksim/model.hpp"
#include "linksim/plan_memory.hpp"
#include "plan/activations.hpp"

using doctest::Approx;
using linksim::estimate_memory;
using linksim::MemoryBreakdown;
using linksim::ModelCatalog;
using linksim::ModelSpec;
using linksim::ParallelLayout;
using linksim::PlanMode;
using linksim::PrecisionChoice;
using linksim::Recompute;

namespace {

const ModelSpec& model(const char* key) { return ModelCatalog::builtin().get(key); }

constexpr double kCapacity = 80e9;
// Workspace constants as documented (docs/planner-memory.md#workspace).
constexpr double kContext = 0.5e9;
constexpr double kNcclPerCommunicator = 16 * 2 * (4194304.0 + 4915200.0 + 524288.0);
constexpr double kCublas = 64.0 * 1024 * 1024;

MemoryBreakdown train(const ModelSpec& m, const ParallelLayout& l, Recompute r) {
  return estimate_memory(m, l, PlanMode::kTrain, r, PrecisionChoice{}, kCapacity);
}

// The GPT-3 175B shape as Korthikanti et al. use it: s=2048, h=12288, a=96, L=96, V=51200
// (their Table 3), with dropout and biases.
ModelSpec korthikanti_gpt3() {
  return linksim::parse_arch(
      "layers=96,hidden=12288,heads=96,ffn=49152,ffn_type=gelu,vocab=51200,tied=true,"
      "norm=layernorm,linear_bias=true,dropout=true,learned_positions=2048");
}

}  // namespace

TEST_SUITE("plan memory") {

TEST_CASE("memory: Llama-2-7B on one GPU, no ZeRO: 16 bytes per parameter before activations") {
  // 6,738,415,616 parameters (docs/models.md). bf16 weights 2 B, bf16 gradients 2 B, Adam with
  // fp32 master weights, momentum and variance 12 B: 16 B x 6.738e9 = 107.8 GB, the familiar
  // "7B needs about 108 GB to train without sharding".
  ParallelLayout l;
  const MemoryBreakdown m = train(model("llama2-7b"), l, Recompute::kSelective);
  const double params = 6'738'415'616.0;
  CHECK(m.stage == 0);
  CHECK(m.weights == 2 * params);
  CHECK(m.gradients == 2 * params);
  CHECK(m.optimizer == 12 * params);
  CHECK(m.weights + m.gradients + m.optimizer == Approx(107.81e9).epsilon(1e-4));
  CHECK_FALSE(m.fits);
  CHECK(m.capacity == kCapacity);
  CHECK(m.total == Approx(m.weights + m.gradients + m.optimizer + m.activations + m.kv_cache +
                          m.workspace).epsilon(1e-12));
  CHECK(m.kv_cache == 0);
}

TEST_CASE("memory: ZeRO stages shard optimizer, then gradients, then weights over dp") {
  // Same model, dp=8: ZeRO-1 divides the 12 B/param optimizer by 8, ZeRO-2 also the gradients,
  // ZeRO-3 also the weights.
  const double params = 6'738'415'616.0;
  ParallelLayout l;
  l.dp = 8;
  l.global_batch = 8;
  for (int zero = 0; zero <= 3; ++zero) {
    CAPTURE(zero);
    l.zero = zero;
    const MemoryBreakdown m = train(model("llama2-7b"), l, Recompute::kSelective);
    CHECK(m.optimizer == Approx(12 * params / (zero >= 1 ? 8 : 1)).epsilon(1e-12));
    CHECK(m.gradients == Approx(2 * params / (zero >= 2 ? 8 : 1)).epsilon(1e-12));
    CHECK(m.weights == Approx(2 * params / (zero >= 3 ? 8 : 1)).epsilon(1e-12));
  }
}

TEST_CASE("activations: Korthikanti's per-layer formulas for GPT-3 175B (s=2048, b=1, t=8)") {
  // Korthikanti et al. 2022, section 4 (bytes per layer, 16-bit activations, dropout):
  //   no parallelism:              sbh (34 + 5as/h)
  //   tensor parallel, no SP:      sbh (10 + 24/t + 5as/(ht))
  //   tensor + sequence parallel:  sbh/t (34 + 5as/h)
  //   ... + selective recompute:   34 sbh/t
  //   full recompute:              2 sbh (per layer input; /t with SP)
  // sbh = 2048*12288 = 25,165,824 and 5as/h = 5*96*2048/12288 = 80, so:
  //   t=1: 25,165,824 * 114 = 2,868,903,936
  //   t=8: 25,165,824 * (10 + 3 + 10) = 578,813,952
  //   t=8, SP: 3,145,728 * 114 = 358,612,992; selective: 3,145,728 * 34 = 106,954,752
  const ModelSpec gpt3 = korthikanti_gpt3();
  auto layer = [&](int tp, bool sp, Recompute r) {
    ParallelLayout l;
    l.tp = tp;
    l.sp = sp;
    l.seq = 2048;
    return linksim::detail::train_layer_activation_bytes(gpt3, l, r, 2, false);
  };
  const double sbh = 2048.0 * 12288;
  CHECK(layer(1, false, Recompute::kNone) == sbh * (34 + 80));
  CHECK(layer(8, false, Recompute::kNone) == sbh * (10 + 24.0 / 8 + 80.0 / 8));
  CHECK(layer(8, true, Recompute::kNone) == sbh / 8 * (34 + 80));
  CHECK(layer(8, true, Recompute::kSelective) == sbh / 8 * 34);
  CHECK(layer(8, false, Recompute::kSelective) == sbh * (10 + 24.0 / 8));
  CHECK(layer(8, false, Recompute::kFull) == 2 * sbh);
  CHECK(layer(8, true, Recompute::kFull) == 2 * sbh / 8);
  CHECK(layer(1, false, Recompute::kNone) == 2'868'903'936.0);
  CHECK(layer(8, true, Recompute::kSelective) == 106'954'752.0);
}

TEST_CASE("activations: GQA, SwiGLU and no dropout change the stored tensors as derived") {
  // Llama-3.1-70B layer, s=4096, b=1, t=8 with SP, selective (per token, bytes = 2 x elements):
  //   attention: norm in + out 2h/t = 2048; Q and output 2*64*128/8 = 2048; K and V
  //              2*8*128/8 = 256 -> 4352 elements
  //   FFN (SwiGLU): norm in + out 2048; gate, up, product 3*28672/8 = 10752 -> 12800 elements
  //   no dropout masks. (4352 + 12800) * 2 B * 4096 tokens = 140,509,184 B.
  ParallelLayout l;
  l.tp = 8;
  l.sp = true;
  l.seq = 4096;
  CHECK(linksim::detail::train_layer_activation_bytes(model("llama3.1-70b"), l,
                                                      Recompute::kSelective, 2, false) ==
        (4352.0 + 12800) * 2 * 4096);
}

TEST_CASE("activations: an MoE layer stores topk expert copies") {
  // Mixtral-8x7B layer, s=4096, b=1, t=1, ep=8, etp=1, selective (elements per token):
  //   attention: 2h + 2*32*128 + 2*8*128 = 8192 + 8192 + 2048 = 18432
  //   MoE: norm in + out 2h = 8192; router 8; per copy (top-2): input h + 3*14336 + output h
  //        = 51200 -> 102400. Total 18432 + 8192 + 8 + 102400 = 129,032 -> x2 B x 4096.
  ParallelLayout l;
  l.ep = 8;
  l.dp = 8;
  l.seq = 4096;
  CHECK(linksim::detail::train_layer_activation_bytes(model("mixtral-8x7b"), l,
                                                      Recompute::kSelective, 2, true) ==
        129'032.0 * 2 * 4096);
}

TEST_CASE("activations: a fused attention kernel keeps the fp32 logsumexp, not the scores") {
  // Llama-3.1-405B layer (h=16384, 128 heads of 128, 8 KV heads, SwiGLU 53248, no dropout),
  // s=8192, b=1, t=8 with SP, nothing recomputed. Per token, elements:
  //   attention: norm in + out 2h/t = 4096; Q and output 2*128*128/8 = 4096; K, V 2*8*128/8
  //              = 256 -> 8448
  //   FFN: norm in + out 4096; gate, up, product 3*53248/8 = 19968 -> 24064
  //   (8448 + 24064) * 2 B * 8192 tokens = 532,676,608 B (the selective figure).
  // Unfused core: the softmax output, heads/t * s * s * 2 B = 16 * 8192^2 * 2 = 2,147,483,648 B.
  // Fused core (FlashAttention / cuDNN): the logsumexp, heads/t * s * 4 B = 524,288 B.
  ParallelLayout l;
  l.tp = 8;
  l.sp = true;
  l.seq = 8192;
  const ModelSpec& m = model("llama3.1-405b");
  using linksim::AttentionCore;
  auto layer = [&](Recompute r, AttentionCore a) {
    return linksim::detail::train_layer_activation_bytes(m, l, r, 2, false, a);
  };
  CHECK(layer(Recompute::kSelective, AttentionCore::kFused) == 532'676'608.0);
  CHECK(layer(Recompute::kNone, AttentionCore::kUnfused) == 532'676'608.0 + 2'147'483'648.0);
  CHECK(layer(Recompute::kNone, AttentionCore::kFused) == 532'676'608.0 + 524'288.0);
  // With dropout the unfused core adds a 1-byte mask and the dropout output per score; the fused
  // one regenerates the mask: GPT-3 at t=1, s=2048 stores 96 * 2048 * 4 B = 786,432 B.
  const ModelSpec gpt3 = korthikanti_gpt3();
  ParallelLayout g;
  g.seq = 2048;
  const double sbh = 2048.0 * 12288;
  CHECK(linksim::detail::train_layer_activation_bytes(gpt3, g, Recompute::kNone, 2, false,
                                                      AttentionCore::kFused) ==
        sbh * 34 + 786'432.0);
}

TEST_CASE("memory: Llama 3 405B's layout without checkpointing, scores against logsumexp") {
  // arXiv 2407.21783 section 3.3.2, Table 4: tp=8, pp=16, vpp=8 (interleaved), dp=64, s=8192,
  // ZeRO-2-like sharding, no activation checkpointing. The first stage (8 layers as the
  // planner balances 126 layers) holds in_flight_micro_batches = 16(1 + 15/128) = 17.875
  // micro-batches of the layer above (no dropout: no embedding mask):
  //   fused:   17.875 * 8 * (532,676,608 + 524,288) B = 76,247,728,128 B (71.0 GiB)
  //   unfused: + 17.875 * 8 * 2 GiB = 307,015,188,480 B more (286 GiB): far over 80 GB.
  ParallelLayout l;
  l.tp = 8;
  l.sp = true;
  l.pp = 16;
  l.vpp = 8;
  l.dp = 64;
  l.zero = 2;
  l.seq = 8192;
  l.global_batch = 2048;
  const ModelSpec& m = model("llama3.1-405b");
  const MemoryBreakdown fused = estimate_memory(m, l, PlanMode::kTrain, Recompute::kNone,
                                                PrecisionChoice{}, kCapacity,
                                                linksim::AttentionCore::kFused);
  const MemoryBreakdown unfused = train(m, l, Recompute::kNone);
  CHECK(linksim::detail::in_flight_micro_batches(l, 0) == 17.875);
  CHECK(fused.stage == 0);
  CHECK(fused.activations == 76'247'728'128.0);
  CHECK(unfused.activations - fused.activations == 17.875 * 8 * (2'147'483'648.0 - 524'288.0));
  CHECK_FALSE(unfused.fits);
  CHECK(unfused.total > 4 * kCapacity);
}

TEST_CASE("activations: 1F1B keeps pp micro-batches on the first stage (interleaved: more)") {
  // GPT-3 with t=8, SP, selective, pp=8: the first stage has 12 layers and holds 8 micro-batches,
  // so 12 * 8 * 106,954,752 = 34 sbhL/t = 10,267,656,192 B (Korthikanti, section 4.2.3), plus the
  // embedding dropout mask sbh/t * 1 B per micro-batch: 8 * 3,145,728 = 25,165,824 B.
  // Interleaved with vpp=2: x (1 + (pp-1)/(pp*vpp)) = 1.4375, i.e. 11.5 micro-batches.
  const ModelSpec gpt3 = korthikanti_gpt3();
  ParallelLayout l;
  l.tp = 8;
  l.sp = true;
  l.pp = 8;
  l.seq = 2048;
  l.global_batch = 64;
  const linksim::detail::StageLayers first = linksim::detail::stage_layers(gpt3, 8, 0);
  CHECK(first.layers == 12);
  CHECK(linksim::detail::in_flight_micro_batches(l, 0) == 8);
  CHECK(linksim::detail::in_flight_micro_batches(l, 7) == 1);
  CHECK(linksim::detail::train_activation_bytes(gpt3, l, Recompute::kSelective, 2, first) ==
        10'267'656'192.0 + 25'165'824.0);
  l.vpp = 2;
  CHECK(linksim::detail::in_flight_micro_batches(l, 0) == 11.5);
  CHECK(linksim::detail::train_activation_bytes(gpt3, l, Recompute::kSelective, 2, first) ==
        11.5 * (12 * 106'954'752.0 + 3'145'728.0));
  // Fewer micro-batches than stages: only those are in flight.
  l.vpp = 1;
  l.global_batch = 3;
  CHECK(linksim::detail::in_flight_micro_batches(l, 0) == 3);
}

TEST_CASE("activations: the last stage holds the head's inputs and fp32 logits") {
  // GPT-3, t=8, SP, pp=1, selective: 96 layers * 106,954,752 + embedding dropout mask
  // 3,145,728 + head: 2 B * 2 * sbh/t = 12,582,912 plus 4 B * s * V/t = 4*2048*6400 = 52,428,800
  // (Korthikanti's 4sbh/t (1 + v/h)).
  const ModelSpec gpt3 = korthikanti_gpt3();
  ParallelLayout l;
  l.tp = 8;
  l.sp = true;
  l.seq = 2048;
  const MemoryBreakdown m = train(gpt3, l, Recompute::kSelective);
  CHECK(m.activations == 96 * 106'954'752.0 + 3'145'728.0 + 12'582'912.0 + 52'428'800.0);
  // Full recompute: 96 layer inputs of sbh/t * 2 B, the same extras, and one layer's working
  // set during its recomputation.
  const MemoryBreakdown full = train(gpt3, l, Recompute::kFull);
  CHECK(full.activations == 96 * 6'291'456.0 + 3'145'728.0 + 12'582'912.0 + 52'428'800.0 +
                                106'954'752.0);
  CHECK(train(gpt3, l, Recompute::kNone).activations > m.activations);
}

TEST_CASE("KV cache: Llama-3.1-70B at 8k context is 2.68 GB per sequence") {
  // 2 (K and V) * 80 layers * 8 KV heads * 128 * 8192 tokens * 2 B = 2,684,354,560 B.
  // TP splits KV heads until each rank holds one (tp=8 -> /8, tp=16 -> still /8); CP splits the
  // sequence.
  ParallelLayout l;
  l.seq = 8192;
  l.batch = 1;
  const PrecisionChoice p;
  auto prefill = [&](const ParallelLayout& layout) {
    return estimate_memory(model("llama3.1-70b"), layout, PlanMode::kPrefill, Recompute::kNone,
                           p, kCapacity);
  };
  CHECK(prefill(l).kv_cache == 2'684'354'560.0);
  l.tp = 8;
  CHECK(prefill(l).kv_cache == 2'684'354'560.0 / 8);
  l.tp = 16;
  CHECK(prefill(l).kv_cache == 2'684'354'560.0 / 8);
  l.tp = 8;
  l.cp = 2;
  CHECK(prefill(l).kv_cache == 2'684'354'560.0 / 16);
  // Decode holds kv_len + 1 tokens per sequence: batch 4, 8191 tokens of context.
  ParallelLayout d;
  d.batch = 4;
  d.kv_len = 8191;
  CHECK(estimate_memory(model("llama3.1-70b"), d, PlanMode::kDecode, Recompute::kNone, p,
                        kCapacity)
            .kv_cache == 4 * 2'684'354'560.0);
}

TEST_CASE("KV cache: DeepSeek-V3's MLA latent is 576 values per token and layer on every rank") {
  // 61 layers * 576 * 4096 tokens * 2 B = 287,834,112 B, not divided by tp.
  ParallelLayout l;
  l.seq = 4096;
  l.tp = 8;
  l.ep = 8;
  CHECK(estimate_memory(model("deepseek-v3"), l, PlanMode::kPrefill, Recompute::kNone,
                        PrecisionChoice{}, kCapacity)
            .kv_cache == 61.0 * 576 * 4096 * 2);
}

TEST_CASE("weights: TP and PP split Llama-3.1-70B; the last stage holds one more norm") {
  // tp=8, pp=4, bf16, decode. Each stage has 20 layers; per layer per GPU:
  //   Q and O 2*8192*8192/8 = 16,777,216; K and V 2*8192*1024/8 = 2,097,152; norms 16,384;
  //   FFN 3*8192*28672/8 = 88,080,384 -> 106,971,136.
  // First stage: 20 layers + embedding 128256*8192/8 = 131,334,144 -> 2,270,756,864 params.
  // Last stage: 20 layers + head 131,334,144 + final norm 8192 -> 2,270,765,056: the larger,
  // so it is the one reported.
  ParallelLayout l;
  l.tp = 8;
  l.pp = 4;
  l.batch = 1;
  l.kv_len = 1000;
  const MemoryBreakdown m = estimate_memory(model("llama3.1-70b"), l, PlanMode::kDecode,
                                            Recompute::kNone, PrecisionChoice{}, kCapacity);
  CHECK(m.stage == 3);
  CHECK(m.weights == 2 * 2'270'765'056.0);
  CHECK(m.gradients == 0);
  CHECK(m.optimizer == 0);
  // Decode activations for one token: residual h + max(attention: h + 2*1024 + 2*128,
  // FFN: h + 3*28672/8) = 8192 + 18944 elements * 2 B = 54,272, plus the last stage's fp32
  // logits 4 * 128256/8 = 64,128 B.
  CHECK(m.activations == 54'272.0 + 64'128.0);
  // KV cache: 20 layers * 2 * 128 (one KV head per rank) * 1001 tokens * 2 B.
  CHECK(m.kv_cache == 20.0 * 2 * 128 * 1001 * 2);
}

TEST_CASE("weights: experts spread over ep; their optimizer shards over the expert DP group") {
  // Mixtral-8x7B, tp=1, ep=8, dp=8, ZeRO-1. Per layer per GPU: attention 41,951,232 (norms
  // included) + router 32,768 + 1 of 8 experts 176,160,768. Dense part:
  //   32 * (41,951,232 + 32,768) + embedding 131,072,000 + head 131,072,000 + norm 4096
  //   = 1,605,636,096; expert part 32 * 176,160,768 = 5,637,144,576.
  // Optimizer: dense / dp (8), experts / (tp*cp*dp/(ep*etp) = 1): 12 B each.
  ParallelLayout l;
  l.ep = 8;
  l.dp = 8;
  l.zero = 1;
  l.global_batch = 8;
  const MemoryBreakdown m = train(model("mixtral-8x7b"), l, Recompute::kSelective);
  const double dense = 1'605'636'096.0, expert = 5'637'144'576.0;
  CHECK(m.weights == 2 * (dense + expert));
  CHECK(m.gradients == 2 * (dense + expert));
  CHECK(m.optimizer == Approx(12 * (dense / 8 + expert)).epsilon(1e-12));
}

TEST_CASE("stages: an MoE model's leading dense layers make a later stage the most loaded") {
  // DeepSeek-V3 over pp=16: 61 = 16*3 + 13, so stages 0..12 hold 4 layers and 13..15 hold 3.
  // Stage 0 holds the 3 dense layers and 1 MoE layer; stages 1..12 hold 4 MoE layers each and
  // so the most weights (the embedding, 129280*7168/8 = 116M parameters, is far smaller than
  // 3 MoE layers' experts). Ties go to the earliest stage: stage 1 is reported.
  const ModelSpec& v3 = model("deepseek-v3");
  const auto s0 = linksim::detail::stage_layers(v3, 16, 0);
  const auto s1 = linksim::detail::stage_layers(v3, 16, 1);
  const auto s15 = linksim::detail::stage_layers(v3, 16, 15);
  CHECK((s0.layers == 4 && s0.dense == 3 && s0.first && !s0.last));
  CHECK((s1.layers == 4 && s1.dense == 0));
  CHECK((s15.layers == 3 && s15.dense == 0 && s15.last));
  ParallelLayout l;
  l.tp = 8;
  l.ep = 8;
  l.pp = 16;
  l.batch = 1;
  l.kv_len = 100;
  const MemoryBreakdown m = estimate_memory(v3, l, PlanMode::kDecode, Recompute::kNone,
                                            PrecisionChoice{}, kCapacity);
  CHECK(m.stage == 1);
}

TEST_CASE("prefill: one layer's working set for batch x seq tokens") {
  // Llama-3.1-70B, tp=8, batch 1, seq 8192: (8192 + 18944) * 2 B * 8192 tokens = 444,596,224,
  // plus the last token's fp32 logits 64,128 B.
  ParallelLayout l;
  l.tp = 8;
  l.seq = 8192;
  const MemoryBreakdown m = estimate_memory(model("llama3.1-70b"), l, PlanMode::kPrefill,
                                            Recompute::kNone, PrecisionChoice{}, kCapacity);
  CHECK(m.activations == 444'596'224.0 + 64'128.0);
}

TEST_CASE("workspace: context, NCCL buffers per communicator, cuBLAS and 5 % fragmentation") {
  // Llama-3.1-8B decode, tp=2 (one communicator), int4 weights. Workspace = 0.5 GB +
  // 16 channels * 2 peers * 9,633,792 B + 64 MiB + 5 % of the tensors.
  ParallelLayout l;
  l.tp = 2;
  l.batch = 8;
  l.kv_len = 4096;
  PrecisionChoice p;
  p.weight_bytes = 0.5;
  const MemoryBreakdown m = estimate_memory(model("llama3.1-8b"), l, PlanMode::kDecode,
                                            Recompute::kNone, p, 24e9);
  const double tensors = m.weights + m.activations + m.kv_cache;
  CHECK(m.workspace == Approx(kContext + kNcclPerCommunicator + kCublas + 0.05 * tensors)
                           .epsilon(1e-12));
  // Weights: per layer Q, O 2*4096*4096/2 + K, V 2*4096*1024/2 + norms 8192 (replicated) +
  // FFN 3*4096*14336/2 = 109,060,096; 32 layers + embedding and head 128256*4096/2 each +
  // final norm 4096 = 4,015,263,744 parameters at 0.5 B.
  CHECK(m.weights == 0.5 * 4'015'263'744.0);
  CHECK(m.fits);
  CHECK(estimate_memory(model("llama3.1-8b"), l, PlanMode::kDecode, Recompute::kNone, p,
                        m.total)
            .fits);
  CHECK_FALSE(estimate_memory(model("llama3.1-8b"), l, PlanMode::kDecode, Recompute::kNone, p,
                              m.total - 1)
                  .fits);
}

TEST_CASE("names: plan modes and recompute policies") {
  CHECK(to_string(PlanMode::kTrain) == "train");
  CHECK(to_string(PlanMode::kPrefill) == "prefill");
  CHECK(to_string(PlanMode::kDecode) == "decode");
  CHECK(to_string(Recompute::kNone) == "none");
  CHECK(to_string(Recompute::kSelective) == "selective");
  CHECK(to_string(Recompute::kFull) == "full");
}

}  // TEST_SUITE
