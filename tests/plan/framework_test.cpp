// SPDX-License-Identifier: Apache-2.0
// Training frameworks and block-by-block parameter sharding (docs/planner.md#frameworks,
// #fsdp): the closed-form exposure of per-block gathers and reduce-scatters, their volumes in
// a two-block model's plan, HSDP's groups, and what the presets change.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <utility>

#include "linksim/error.hpp"
#include "linksim/model.hpp"
#include "linksim/plan.hpp"
#include "linksim/topology_yaml.hpp"
#include "plan/sharded_overheads.hpp"
#include "plan/step_builder.hpp"
#include "support/test_topologies.hpp"

namespace linksim {
namespace {

using plan_detail::ShardedBlockTimes;
using plan_detail::ShardedPass;
using plan_detail::sharded_pass_exposure;

// Two Llama-3-8B layers: 4096 hidden, 32 heads of 128, 8 KV heads, SwiGLU 14336.
constexpr const char* kTwoBlocks =
    "layers=2,hidden=4096,heads=32,kv_heads=8,ffn=14336,ffn_type=swiglu,vocab=128256";

PlanRequest two_block_train(TrainFramework framework) {
  PlanRequest r;
  r.model = parse_arch(kTwoBlocks, "--arch");
  r.mode = PlanMode::kTrain;
  r.dp = 8;
  r.zero = 3;
  r.seq = 4096;
  r.micro_batch = 1;
  r.global_batch = 16;  // two micro-batches per replica
  r.framework = framework;
  r.compute_baseline = false;
  return r;
}

const PlanComm* find(const PlanResult& p, const std::string& kind, const std::string& phase,
                     CollectiveOp op, double bytes) {
  for (const PlanComm& c : p.comms) {
    if (c.kind == kind && c.phase == phase && c.collective == op && c.bytes == bytes) return &c;
  }
  return nullptr;
}

std::string error_of(const Topology& t, const PlanRequest& r) {
  try {
    plan(t, r);
  } catch (const ConfigError& e) {
    return e.message();
  }
  return "no error";
}

}  // namespace

TEST_CASE("fsdp: two blocks, the first gather and the last reduce-scatter exposed") {
  // g = 3, rs = 4 per block; forward 2 and backward 5 per block.
  ShardedBlockTimes t;
  t.gather_s = 3;
  t.reduce_scatter_s = 4;
  t.forward_block_s = 2;
  t.backward_block_s = 5;
  t.regather_blocks = 2;
  ShardedPass p = sharded_pass_exposure(t, 2, 1);
  CHECK(p.forward_s == doctest::Approx(6));
  // First gather 3, the second's 3 under the first block's 2: 1 more.
  CHECK(p.forward_exposed_s == doctest::Approx(4));
  CHECK(p.backward_s == doctest::Approx(14));  // 2 regathers + 2 reduce-scatters
  // First block of backward waits for its gather (3), last reduce-scatter (4); the middle 7
  // against one block's backward of 5: 2 more.
  CHECK(p.backward_exposed_s == doctest::Approx(9));

  SUBCASE("the last block kept for backward (torchtitan's default)") {
    t.regather_blocks = 1;
    p = sharded_pass_exposure(t, 2, 1);
    CHECK(p.backward_s == doctest::Approx(11));
    CHECK(p.backward_exposed_s == doctest::Approx(4 + 2));  // last 4, then 11 - 4 - 5
  }
  SUBCASE("no prefetch: nothing hides") {
    p = sharded_pass_exposure(t, 2, 0);
    CHECK(p.forward_exposed_s == doctest::Approx(6));
    CHECK(p.backward_exposed_s == doctest::Approx(14));
  }
  SUBCASE("the root unit gathered first and reduce-scattered last") {
    t.root_gather_s = 1;
    t.root_reduce_scatter_s = 2;
    p = sharded_pass_exposure(t, 2, 1);
    CHECK(p.forward_exposed_s == doctest::Approx(1 + 4));
    CHECK(p.backward_exposed_s == doctest::Approx(3 + 4 + 2 + 2));
  }
}

TEST_CASE("fsdp: a two-block plan gathers one block at a time") {
  const Topology t = testing::library_topology("dgx-h100.yaml");
  const ModelSpec m = parse_arch(kTwoBlocks, "--arch");
  const double block = attention_params_per_layer(m) + ffn_params(m, m.ffn);
  const double micro_batches = 2;

  const PlanResult titan = plan(t, two_block_train(TrainFramework::kTorchtitan));
  const PlanComm* fwd = find(titan, "dp", "forward", CollectiveOp::kAllGather, 2 * block);
  const PlanComm* regather = find(titan, "dp", "backward", CollectiveOp::kAllGather, 2 * block);
  const PlanComm* rs = find(titan, "dp", "backward", CollectiveOp::kReduceScatter, 4 * block);
  REQUIRE(fwd != nullptr);
  REQUIRE(regather != nullptr);
  REQUIRE(rs != nullptr);  // fp32 gradients: 4 B per parameter
  CHECK(fwd->group_size == 8);
  CHECK(fwd->count == doctest::Approx(2 * micro_batches));
  CHECK(regather->count == doctest::Approx(1 * micro_batches));  // the last block is kept
  CHECK(rs->count == doctest::Approx(2 * micro_batches));
  // 4096 tokens a block keep the GPU far longer than one block's gather over NVLink: only the
  // first gather (and the root's) and the last reduce-scatter (and the root's) are exposed.
  const double g = fwd->time_s / fwd->count, r = rs->time_s / rs->count;
  CHECK(fwd->exposed_s == doctest::Approx(micro_batches * g).epsilon(1e-6));
  CHECK(regather->exposed_s == doctest::Approx(0).epsilon(1e-9));
  CHECK(rs->exposed_s == doctest::Approx(micro_batches * r).epsilon(1e-6));
  CHECK(titan.framework == "torchtitan");

  const PlanResult fsdp = plan(t, two_block_train(TrainFramework::kFsdp));
  const PlanComm* fsdp_regather = find(fsdp, "dp", "backward", CollectiveOp::kAllGather, 2 * block);
  REQUIRE(fsdp_regather != nullptr);
  CHECK(fsdp_regather->count == doctest::Approx(2 * micro_batches));  // every block again
  CHECK(find(fsdp, "dp", "backward", CollectiveOp::kReduceScatter, 2 * block) != nullptr);  // bf16
}

TEST_CASE("fsdp: with pipeline stages torchtitan and Megatron gather once a step, plain FSDP every micro-batch") {
  const Topology t = testing::library_topology("dgx-h100.yaml");
  PlanRequest r = two_block_train(TrainFramework::kTorchtitan);
  r.model = parse_arch("layers=4,hidden=4096,heads=32,kv_heads=8,ffn=14336,ffn_type=swiglu,vocab=128256",
                       "--arch");
  r.pp = 2;
  r.dp = 4;
  r.global_batch = 16;  // 4 micro-batches per pipeline
  const double block = attention_params_per_layer(r.model) + ffn_params(r.model, r.model.ffn);
  const PlanResult titan = plan(t, r);
  const PlanComm* gather = find(titan, "dp", "forward", CollectiveOp::kAllGather, 2 * block);
  REQUIRE(gather != nullptr);
  CHECK(gather->count == doctest::Approx(2));  // 2 blocks on the stage, once
  CHECK(find(titan, "dp", "backward", CollectiveOp::kAllGather, 2 * block) == nullptr);
  // Megatron-Core's stack as Llama 3's FSDP runs it under a pipeline (paper, section 3.3.2):
  // parameters kept gathered, fp32 gradients reduce-scattered once after the last micro-batch.
  r.framework = TrainFramework::kMegatron;
  const PlanResult megatron = plan(t, r);
  const PlanComm* once = find(megatron, "dp", "forward", CollectiveOp::kAllGather, 2 * block);
  REQUIRE(once != nullptr);
  CHECK(once->count == doctest::Approx(2));
  CHECK(find(megatron, "dp", "backward", CollectiveOp::kAllGather, 2 * block) == nullptr);
  const PlanComm* rs_once = find(megatron, "dp", "backward", CollectiveOp::kReduceScatter, 4 * block);
  REQUIRE(rs_once != nullptr);
  CHECK(rs_once->count == doctest::Approx(2));
  r.framework = TrainFramework::kFsdp;
  const PlanResult fsdp = plan(t, r);
  const PlanComm* per_micro_batch = find(fsdp, "dp", "forward", CollectiveOp::kAllGather, 2 * block);
  REQUIRE(per_micro_batch != nullptr);
  CHECK(per_micro_batch->count == doctest::Approx(2 * 4));
}

namespace {

/// Llama 3.1 8B trained with ZeRO-3 over the 8 GPUs of a DGX H100: 4096-token sequences,
/// 16 per step (2 micro-batches per GPU).
PlanRequest llama8b_zero3_on_8() {
  PlanRequest r;
  r.model = ModelCatalog::builtin().get("llama3.1-8b");
  r.mode = PlanMode::kTrain;
  r.dp = 8;
  r.zero = 3;
  r.seq = 4096;
  r.global_batch = 16;
  r.compute_baseline = false;
  return r;
}

}  // namespace

TEST_CASE("frameworks: the same model and machine, different sourced step times") {
  const Topology t = testing::library_topology("dgx-h100.yaml");
  PlanRequest r = llama8b_zero3_on_8();
  r.framework = TrainFramework::kMegatron;
  const PlanResult megatron = plan(t, r);
  r.framework = TrainFramework::kTorchtitan;
  const PlanResult titan = plan(t, r);
  r.compile = true;
  const PlanResult compiled = plan(t, r);
  // Eager element-wise kernels and FlashAttention-2 cost torchtitan time; torch.compile gives
  // the element-wise part back, not the attention.
  CHECK(titan.compute.memory_bound_s > 2 * megatron.compute.memory_bound_s);
  // Megatron's selective recompute runs the attention forward twice, torchtitan's op-level
  // policy saves SDPA's output (forward once); backward 2.5x: FlashAttention-2 at 35 % / 30 %
  // against cuDNN's 45 % / 35 %.
  const double ratio = (1 / 0.35 + 2.5 / 0.30) / (2 / 0.45 + 2.5 / 0.35);
  CHECK(titan.compute.attention_s == doctest::Approx(megatron.compute.attention_s * ratio).epsilon(0.01));
  // Compiled, the element-wise kernels are Megatron's, run once more in torchtitan's recompute.
  r.recompute = Recompute::kNone;
  const PlanResult compiled_none = plan(t, r);
  r.framework = TrainFramework::kMegatron;
  r.compile.reset();
  // (The same element-wise bytes; torchtitan's memory-bound time also holds FSDP2's copy-out,
  // docs/planner.md#fsdp-overheads.)
  CHECK(compiled_none.compute.memory_bytes == doctest::Approx(plan(t, r).compute.memory_bytes));
  CHECK(compiled.compute.memory_bound_s > compiled_none.compute.memory_bound_s);
  CHECK(titan.step_time_s > compiled.step_time_s);
  CHECK(compiled.step_time_s > megatron.step_time_s);
  bool said = false;
  for (const std::string& a : titan.assumptions) said |= a.find("torchtitan (FSDP2)") != std::string::npos;
  CHECK(said);
}

TEST_CASE("frameworks: what selective recompute runs again, Megatron's and torchtitan's") {
  // Llama 3.1 8B, 4096-token sequences, 2 micro-batches per GPU: 32 layers x 2 = 64 layer
  // backwards. Hidden 4096, 32 query heads and 8 KV heads of 128, SwiGLU FFN 14336.
  const Topology t = testing::library_topology("dgx-h100.yaml");
  PlanRequest r = llama8b_zero3_on_8();
  const double tokens = 4096, h = 4096, layer_backwards = 64;
  const auto extra = [&](TrainFramework framework, bool compiled) {
    r.framework = framework;
    r.compile = compiled;
    r.recompute = Recompute::kSelective;
    const PlanResult selective = plan(t, r);
    r.recompute = Recompute::kNone;
    const PlanResult none = plan(t, r);
    return std::make_pair(selective.compute.flops - none.compute.flops,
                          selective.compute.memory_bytes - none.compute.memory_bytes);
  };
  // Megatron: the attention core's forward, causal: 4 * tokens^2 * heads * head_dim / 2.
  const auto [megatron_flops, megatron_bytes] = extra(TrainFramework::kMegatron, false);
  CHECK(megatron_flops == doctest::Approx(layer_backwards * 4 * tokens * tokens * 32 * 128 / 2));
  CHECK(megatron_bytes == doctest::Approx(0));
  // torchtitan: wk (4096 -> 1024), wo (4096 -> 4096) and w3 (4096 -> 14336) again, and (compiled)
  // the fused element-wise kernels: 2 norms (2h each), 2 residual adds (3h), SwiGLU (3f), bf16.
  const auto [titan_flops, titan_bytes] = extra(TrainFramework::kTorchtitan, true);
  CHECK(titan_flops == doctest::Approx(layer_backwards * 2 * tokens * h * (1024 + 4096 + 14336)));
  CHECK(titan_bytes == doctest::Approx(layer_backwards * tokens * (2 * 2 * h + 2 * 3 * h + 3 * 14336) * 2));
}

TEST_CASE("frameworks: FP8 training keeps attention at the BF16 rate, FP8 GEMMs at the FP8 rate") {
  const Topology t = testing::library_topology("dgx-h100.yaml");
  PlanRequest r;
  r.model = ModelCatalog::builtin().get("llama3.1-8b");
  r.mode = PlanMode::kTrain;
  r.dp = 8;
  r.seq = 16384;
  r.global_batch = 8;
  r.compute_baseline = false;
  const PlanResult bf16 = plan(t, r);
  r.dtype = "fp8";
  const PlanResult fp8 = plan(t, r);
  CHECK(fp8.compute.attention_s == doctest::Approx(bf16.compute.attention_s));
  CHECK(fp8.compute.gemm_s < 0.75 * bf16.compute.gemm_s);
  bool said = false;
  for (const std::string& a : fp8.assumptions) said |= a.find("FP8 training keeps attention in BF16") != std::string::npos;
  CHECK(said);
  // Serving in FP8 is left as it was: the attention core at the FP8 rate.
  r.mode = PlanMode::kPrefill;
  r.batch = 8;
  r.dtype = "bf16";
  const double prefill_bf16 = plan(t, r).compute.attention_s;
  r.dtype = "fp8";
  CHECK(plan(t, r).compute.attention_s < prefill_bf16);
}

TEST_CASE("frameworks: foreach and per-parameter Adam move more bytes than fused") {
  const Topology t = testing::library_topology("dgx-h100.yaml");
  PlanRequest r = two_block_train(TrainFramework::kTorchtitan);
  const double fused = plan(t, r).compute.optimizer_s;
  r.framework = TrainFramework::kFsdp;
  const double foreach_s = plan(t, r).compute.optimizer_s;
  CHECK(foreach_s == doctest::Approx(fused * 80 / 28).epsilon(1e-6));
  r.framework = TrainFramework::kLlmFoundry;
  CHECK(plan(t, r).compute.optimizer_s >= foreach_s);
}

TEST_CASE("hsdp: sharded inside a server, gradient shards all-reduced across servers") {
  const Topology t = testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
  PlanRequest r = two_block_train(TrainFramework::kFsdp);
  r.dp = 16;
  r.global_batch = 32;
  r.shard_group = PlanRequest::kShardGroupPerServer;
  const PlanResult p = plan(t, r);
  const ModelSpec m = parse_arch(kTwoBlocks, "--arch");
  const double block = attention_params_per_layer(m) + ffn_params(m, m.ffn);
  const PlanComm* gather = find(p, "dp", "forward", CollectiveOp::kAllGather, 2 * block);
  const PlanComm* replicas = find(p, "hsdp", "backward", CollectiveOp::kAllReduce, 2 * block / 8);
  REQUIRE(gather != nullptr);
  REQUIRE(replicas != nullptr);
  CHECK(gather->group_size == 8);
  CHECK(replicas->group_size == 2);
  CHECK(p.layout.shard_group == 8);

  r.shard_group = 0;
  const PlanResult full = plan(t, r);
  CHECK(p.memory.optimizer == doctest::Approx(2 * full.memory.optimizer));  // 8 shards, not 16
}

TEST_CASE("hsdp: errors name the flag and the numbers") {
  const Topology t = testing::library_topology("dgx-h100.yaml");
  PlanRequest r = two_block_train(TrainFramework::kFsdp);
  r.shard_group = 3;
  CHECK(error_of(t, r) == "--shard-group 3 does not divide DP x CP = 8 x 1 = 8");
  r.shard_group = 4;
  r.zero = 1;
  CHECK(error_of(t, r) == "--shard-group 4 applies to --zero hsdp (or 3), got zero 1");
}

TEST_CASE("frameworks: names round-trip") {
  for (TrainFramework f : {TrainFramework::kMegatron, TrainFramework::kNemo,
                           TrainFramework::kTorchtitan, TrainFramework::kFsdp,
                           TrainFramework::kDeepspeed, TrainFramework::kLlmFoundry}) {
    CHECK(parse_train_framework(to_string(f)) == f);
  }
  CHECK_FALSE(parse_train_framework("jax").has_value());
}

}  // namespace linksim

namespace linksim {

TEST_CASE("cp: ring attention hides each exchange behind one step's attention") {
  // 4 ranks: 3 exchanges. Forward: 2 s a block against 4/4 = 1 s of attention a step: 1 s
  // exposed each. Backward: 4 s against 20/4 = 5 s: hidden.
  const plan_detail::CpRing r = plan_detail::cp_ring_exposure(4, 2, 4, 4, 20);
  CHECK(r.steps == 4);
  CHECK(r.forward_s == doctest::Approx(6));
  CHECK(r.forward_exposed_s == doctest::Approx(3));
  CHECK(r.backward_s == doctest::Approx(12));
  CHECK(r.backward_exposed_s == doctest::Approx(0));
}

TEST_CASE("cp: a plan's K/V blocks, hidden at 64k tokens, exposed over the network at 4k") {
  PlanRequest r;
  r.model = ModelCatalog::builtin().get("llama3.1-8b");
  r.mode = PlanMode::kTrain;
  r.cp = 2;
  r.dp = 4;
  r.seq = 65536;
  r.global_batch = 4;
  r.compute_baseline = false;
  const PlanResult p = plan(testing::library_topology("dgx-h100.yaml"), r);
  // 32768 local tokens x K and V x 8 KV heads x 128 x 2 B.
  const double block = 32768.0 * 2 * 8 * 128 * 2;
  const PlanComm* fwd = find(p, "cp", "forward", CollectiveOp::kSendRecv, block);
  const PlanComm* bwd = find(p, "cp", "backward", CollectiveOp::kSendRecv, 2 * block);
  REQUIRE(fwd != nullptr);
  REQUIRE(bwd != nullptr);
  CHECK(fwd->count == doctest::Approx(32 * 1));  // (cp - 1) per layer, one micro-batch
  CHECK(fwd->exposed_s == 0);
  CHECK(bwd->exposed_s == 0);

  // CP 8 over two servers' network at 4096 tokens: 512 tokens a rank, too little attention.
  r.cp = 16;
  r.dp = 1;
  r.seq = 4096;
  r.global_batch = 1;
  const PlanResult wide = plan(testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}}), r);
  double exposed = 0;
  for (const PlanComm& c : wide.comms) exposed += c.kind == "cp" ? c.exposed_s : 0;
  CHECK(exposed > 0);
}

}  // namespace linksim

namespace linksim {

TEST_CASE("fsdp overheads: FSDP2's copy-out and the SMs NCCL holds, as derived") {
  // split_with_sizes_copy reads the all-gather buffer and writes the parameters: 2 x bytes.
  CHECK(plan_detail::copy_out_bytes(436e6) == 872e6);
  // SplitBackward's concatenation reads the views' gradients and writes the flat gradient.
  CHECK(plan_detail::flat_grad_copy_bytes(436e6) == 872e6);
  // A collective on 32 channels hidden for 10 ms under compute on 132 SMs (H100 SXM) leaves
  // the kernels 100 of 132 SMs: 10 ms x 32/132 = 2.4242 ms of compute pushed later.
  CHECK(plan_detail::sm_share_s(10e-3, 32, 132) == doctest::Approx(10e-3 * 32 / 132));
  CHECK(plan_detail::sm_share_s(10e-3, 0, 132) == 0);    // channels unknown
  CHECK(plan_detail::sm_share_s(0, 32, 132) == 0);       // nothing hidden
  CHECK(plan_detail::sm_share_s(10e-3, 132, 132) == 0);  // no SMs left: not a sharing case
}

TEST_CASE("fsdp overheads: torchtitan copies every gathered block out on the compute stream") {
  // Two Llama-3-8B blocks on a DGX H100, dp=8, two micro-batches: per micro-batch torchtitan
  // gathers both blocks in forward, the first again in backward (the last is kept), and the
  // root unit (embedding and head, 2 x 128256 x 4096, and the final norm 4096) once; the
  // copy-out moves 2 x 2 B of each gathered parameter at the plan's HBM rate.
  const Topology t = testing::library_topology("dgx-h100.yaml");
  const ModelSpec m = parse_arch(kTwoBlocks, "--arch");
  const double block = attention_params_per_layer(m) + ffn_params(m, m.ffn);
  const double root = 2.0 * 128256 * 4096 + 4096;
  const double micro_batches = 2;
  const PlanResult titan = plan(t, two_block_train(TrainFramework::kTorchtitan));
  const PlanCompute& c = titan.compute;
  const double rate = c.hbm_Bps * c.hbm_efficiency;
  const double copy_out_s = micro_batches * 2 * 2 * (3 * block + root) / rate;
  CHECK(c.memory_bound_s == doctest::Approx(c.memory_bytes / rate + copy_out_s).epsilon(1e-9));
  // FSDP1 (the fsdp preset) gathers into the flat parameter in place: no copy-out; in backward
  // the split views' gradients are concatenated into the flat gradient, 2 x 2 B of every
  // parameter of both blocks and the root, each micro-batch.
  const PlanResult fsdp1 = plan(t, two_block_train(TrainFramework::kFsdp));
  const double rate1 = fsdp1.compute.hbm_Bps * fsdp1.compute.hbm_efficiency;
  const double flat_grad_s = micro_batches * 2 * 2 * (2 * block + root) / rate1;
  CHECK(fsdp1.compute.memory_bound_s ==
        doctest::Approx(fsdp1.compute.memory_bytes / rate1 + flat_grad_s).epsilon(1e-9));
  // Every part of the compute adds up to its total.
  CHECK(c.gemm_s + c.attention_s + c.memory_bound_s + c.overhead_s + c.optimizer_s ==
        doctest::Approx(c.total_s).epsilon(1e-9));
}

TEST_CASE("frameworks: the fused attention core from SM80 on, the unfused one on V100 and Turing") {
  // flash-attn and Transformer Engine's fused attention need compute capability 8.0 or later.
  const Catalog& catalog = Catalog::builtin();
  for (TrainFramework f : {TrainFramework::kMegatron, TrainFramework::kTorchtitan,
                           TrainFramework::kLlmFoundry}) {
    PlanRequest r;
    r.framework = f;
    const plan_detail::FrameworkTraits traits = plan_detail::framework_traits(r);
    CHECK(plan_detail::attention_core(traits, *catalog.find_gpu("v100-sxm")) ==
          AttentionCore::kUnfused);
    CHECK(plan_detail::attention_core(traits, *catalog.find_gpu("rtx-2080ti")) ==
          AttentionCore::kUnfused);
    CHECK(plan_detail::attention_core(traits, *catalog.find_gpu("a100-sxm-40g")) ==
          AttentionCore::kFused);
    CHECK(plan_detail::attention_core(traits, *catalog.find_gpu("h100-sxm")) ==
          AttentionCore::kFused);
  }
}

TEST_CASE("fsdp overheads: a ZeRO-1 step's hidden reduce-scatter and gather hold NCCL's SMs") {
  // Megatron overlaps the gradient reduce-scatter with backward and the parameter all-gather
  // with forward; what of each hides (time - exposed, from the plan's comms table) slows the
  // compute by channels / SMs, the channels NCCL picks for that call.
  const Topology t = testing::library_topology("dgx-h100.yaml");
  PlanRequest r = two_block_train(TrainFramework::kMegatron);
  r.zero = 1;
  const PlanResult p = plan(t, r);
  double expected_s = 0;
  int calls = 0;
  for (const PlanComm& c : p.comms) {
    if (c.kind != "dp") continue;
    CollectiveQuery q;
    q.op = c.collective;
    q.size_bytes = c.bytes;
    const int channels = Communicator(t, c.group, r.comm).run(q).channels;
    REQUIRE(channels > 0);
    expected_s += (c.time_s - c.exposed_s) * channels / 132;  // H100 SXM: 132 SMs
    ++calls;
  }
  CHECK(calls == 2);
  CHECK(expected_s > 0);
  CHECK(p.compute.comm_sm_s == doctest::Approx(expected_s).epsilon(1e-9));
}

TEST_CASE("deepspeed: ZeRO-1 reduces gradients in 500 M-element buckets, after backward") {
  // DeepSpeed's reduce_bucket_size and allgather_bucket_size default to 5e8 elements and
  // overlap_comm to false (deepspeed/runtime/zero/config.py; docs/planner.md#frameworks): the
  // gradients go in ceil(P / 5e8) reduce-scatters of 2 P / buckets bytes (bf16) once backward
  // is done, and the updated shards in as many all-gathers, none of it hidden.
  const Topology t = testing::library_topology("dgx-h100.yaml");
  PlanRequest r = two_block_train(TrainFramework::kDeepspeed);
  r.zero = 1;
  const PlanResult p = plan(t, r);
  const double params = count_params(r.model).total;
  const double buckets = std::ceil(params / 5e8);
  REQUIRE(buckets == 3);  // 1.49 G parameters: two blocks of 218 M and two 525 M embeddings
  int seen = 0;
  for (const PlanComm& c : p.comms) {
    if (c.kind != "dp") continue;
    CHECK(c.count == buckets);
    CHECK(c.bytes == doctest::Approx(2 * params / buckets));
    CHECK(c.exposed_s == doctest::Approx(c.time_s));
    CHECK((c.collective == CollectiveOp::kReduceScatter || c.collective == CollectiveOp::kAllGather));
    ++seen;
  }
  CHECK(seen == 2);
}

}  // namespace linksim
