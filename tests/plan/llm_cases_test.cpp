// SPDX-License-Identifier: Apache-2.0
// The published-run reader: each FLOP convention against a hand computation, each metric's
// conversion to a step time, and every case of data/validation/llm/cases.yaml read.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <fstream>
#include <set>

#include "linksim/error.hpp"
#include "support/llm_cases.hpp"
#include "support/scratch_path.hpp"

namespace linksim::testing {
namespace {

const std::string kCasesFile = std::string(LINKSIM_SOURCE_DIR) + "/data/validation/llm/cases.yaml";
const std::string kTopologies = std::string(LINKSIM_SOURCE_DIR) + "/topologies";

// A model built field by field, so these tests do not depend on the catalog's values.
ModelSpec shape(int layers, int hidden, int heads, int kv_heads, int ffn, FfnType type, int vocab) {
  ModelSpec m;
  m.key = "custom";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.head_dim = hidden / heads;
  m.ffn = ffn;
  m.ffn_type = type;
  m.vocab = vocab;
  return m;
}

const ModelSpec kGpt3 = shape(96, 12288, 96, 96, 4 * 12288, FfnType::kGelu, 51200);

const std::vector<LlmCase>& cases() {
  static const std::vector<LlmCase> all = load_llm_cases(kCasesFile, kTopologies);
  return all;
}

const LlmCase& find_case(const std::string& id) {
  for (const LlmCase& c : cases()) {
    if (c.id == id) return c;
  }
  FAIL("no case " << id);
  throw std::logic_error("unreachable");
}

TEST_CASE("FLOP conventions: Narayanan 2021, GPT-3 175B at batch 1536") {
  // 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)), B = 1536, s = 2048, l = 96, h = 12288, V = 51200:
  // B·s·l·h² = 1536·2048·96·150994944 = 4.5598946227e16; ×96 = 4.3774988378e18;
  // s/(6h) = 2048/73728 = 0.0277778; V/(16lh) = 51200/18874368 = 0.0027127;
  // × 1.0304905 = 4.5109707533e18 FLOPs per step.
  CHECK(convention_flops_per_step(FlopsConvention::kMegatron2021Hfu, kGpt3, 1536, 2048) ==
        doctest::Approx(4.5109707533e18).epsilon(1e-9));
}

TEST_CASE("FLOP conventions: Korthikanti 2022 MFU count, GPT-3 175B at batch 64") {
  // 72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h)), B = 64: 72·64·2048·96·150994944 = 1.3679662e17;
  // × (1 + 0.0277778 + 51200/14155776 = 0.0036169) = 1.4109153110e17 FLOPs per step.
  CHECK(convention_flops_per_step(FlopsConvention::kMegatronMfu2022, kGpt3, 64, 2048) ==
        doctest::Approx(1.4109153110e17).epsilon(1e-9));
}

TEST_CASE("FLOP conventions: Megatron-Core before 2025") {
  SUBCASE("equals the 2022 count for multi-head attention and a 4h GELU FFN") {
    for (double s : {2048.0, 8192.0}) {
      CHECK(convention_flops_per_step(FlopsConvention::kMegatronCorePre2025, kGpt3, 8, s) ==
            doctest::Approx(convention_flops_per_step(FlopsConvention::kMegatronMfu2022, kGpt3,
                                                      8, s))
                .epsilon(1e-12));
    }
  }
  SUBCASE("GQA and SwiGLU: Llama-3-8B shape, one sequence of 8192 tokens") {
    // 12·B·s·l·h²·[(1 + g/a + s/h)·(a·d/h) + (f/h)·1.5 + V/(2·l·h)]
    // = 12·1·8192·32·4096² · [(1 + 8/32 + 2)·1 + 3.5·1.5 + 128256/262144]
    // = 5.2776558e13 · (3.25 + 5.25 + 0.4892578) = 4.7442208752e14.
    const ModelSpec llama = shape(32, 4096, 32, 8, 14336, FfnType::kSwiGlu, 128256);
    CHECK(convention_flops_per_step(FlopsConvention::kMegatronCorePre2025, llama, 1, 8192) ==
          doctest::Approx(4.7442208752e14).epsilon(1e-9));
  }
  SUBCASE("MoE: the routed experts count topk times, shared experts once") {
    ModelSpec moe = shape(4, 1024, 8, 8, 0, FfnType::kSwiGlu, 1024);
    moe.experts = 8;
    moe.topk = 2;
    moe.moe_ffn = 512;
    moe.shared_experts = 1;
    ModelSpec dense = moe;
    dense.experts = dense.topk = dense.shared_experts = 0;
    dense.ffn = 3 * 512;  // the same FFN FLOPs per token: two routed plus one shared
    CHECK(convention_flops_per_step(FlopsConvention::kMegatronCorePre2025, moe, 2, 1024) ==
          doctest::Approx(convention_flops_per_step(FlopsConvention::kMegatronCorePre2025,
                                                    dense, 2, 1024))
              .epsilon(1e-12));
  }
}

TEST_CASE("FLOP conventions: NeMo's llama2 formula, Llama-2-7B at 16k") {
  // B·s·l·h²·(12 + 12·g/a + 18·f/h + 12·s/h + 6·V/(l·h)), B = 256, s = 16384, l = 32,
  // h = 4096, a = g = 32, f = 11008, V = 32000:
  // B·s·l·h² = 256·16384·32·16777216 = 2.2517998e15;
  // 12 + 12 + 48.375 + 48 + 1.4648438 = 121.8398438; product 2.7435893746e17.
  const ModelSpec llama2 = shape(32, 4096, 32, 32, 11008, FfnType::kSwiGlu, 32000);
  CHECK(convention_flops_per_step(FlopsConvention::kNemoLlama2, llama2, 256, 16384) ==
        doctest::Approx(2.7435893746e17).epsilon(1e-9));
}

TEST_CASE("FLOP conventions: PaLM's 6N + 12·l·h·s per token; Llama 3 read the same way") {
  // Per token the attention term grows by 12·l·h·Δs while 6N stays: between s = 2048 and
  // s = 4096 for GPT-3, 12·96·12288·2048 = 2.8991029e10 FLOPs per token.
  const double per_token_2k =
      convention_flops_per_step(FlopsConvention::kPalm6N12lhst, kGpt3, 1, 2048) / 2048;
  const double per_token_4k =
      convention_flops_per_step(FlopsConvention::kPalm6N12lhst, kGpt3, 1, 4096) / 4096;
  CHECK(per_token_4k - per_token_2k == doctest::Approx(2.8991029248e10).epsilon(1e-6));
  CHECK(per_token_2k - 12.0 * 96 * 12288 * 2048 ==
        doctest::Approx(6 * count_params(kGpt3).active_non_embedding).epsilon(1e-12));
  CHECK(convention_flops_per_step(FlopsConvention::kLlama3Paper, kGpt3, 3, 2048) ==
        convention_flops_per_step(FlopsConvention::kPalm6N12lhst, kGpt3, 3, 2048));
}

TEST_CASE("FLOP conventions are named by the first word of the field") {
  CHECK(parse_flops_convention("megatron2021_hfu") == FlopsConvention::kMegatron2021Hfu);
  CHECK(parse_flops_convention("llama3_paper (not given; treat as model FLOPs)") ==
        FlopsConvention::kLlama3Paper);
  CHECK(parse_flops_convention("palm_6N_12lhst") == FlopsConvention::kPalm6N12lhst);
  CHECK_FALSE(parse_flops_convention("megatron2021"));
}

TEST_CASE("every published case is read") {
  REQUIRE(std::filesystem::exists(kCasesFile));
  REQUIRE(cases().size() == 85);
  std::set<std::string> ids;
  for (const LlmCase& c : cases()) {
    CAPTURE(c.id);
    CHECK(ids.insert(c.id).second);
    CHECK(c.source.rfind("https://", 0) == 0);
    CHECK(std::filesystem::exists(c.topology_file));
    CHECK(c.request.model.layers > 0);
    CHECK(c.gpus == *c.request.tp * *c.request.pp * *c.request.dp * *c.request.cp);
    const bool needs_peak = c.metric == "mfu";
    const double step_s = published_step_time_s(c, needs_peak ? 312e12 : 0);
    CHECK(std::isfinite(step_s));
    CHECK(step_s > 0);
  }
}

TEST_CASE("published figures become step times") {
  SUBCASE("TFLOP/s per GPU, Narayanan's HFU count: GPT 39B on 512 GPUs, 138 TFLOP/s") {
    // 96·1536·2048·48·8192²·(1 + 2048/49152 + 51200/6291456) = 1.0212264e18 FLOPs;
    // / (138e12 · 512) = 14.4535 s.
    CHECK(published_step_time_s(find_case("01-gpt39b-512")) == doctest::Approx(14.4535).epsilon(1e-5));
  }
  SUBCASE("MFU against the GPU's peak: GPT-3 175B at 51.4 % of 312 TFLOP/s on 64 GPUs") {
    // 1.4109153e17 / (0.514 · 312e12 · 64) = 13.747 s: the paper's measured 13.75 s.
    const LlmCase& c = find_case("03-175b-seqsel");
    CHECK(published_step_time_s(c, 312e12) == doctest::Approx(13.75).epsilon(1e-3));
    CHECK_THROWS_AS(published_step_time_s(c), ConfigError);
  }
  SUBCASE("Megatron-Core's count: GPT 7.1B, 465.9 TFLOP/s on 96 GPUs") {
    // 72·192·4096·30·4096²·(1 + 4096/24576 + 131072/1474560) = 3.5782506e16 FLOPs
    // / (465.9e12 · 96) = 0.80003 s.
    CHECK(published_step_time_s(find_case("04-gpt7.1b-96")) == doctest::Approx(0.80003).epsilon(1e-5));
  }
  SUBCASE("NeMo's count: Llama-2-7B at 16k, 660 TFLOP/s on 16 GPUs") {
    // 2.7435894e17 / (660e12 · 16) = 25.981 s.
    CHECK(published_step_time_s(find_case("06-llama2-7b-16k-16")) == doctest::Approx(25.981).epsilon(1e-4));
  }
  SUBCASE("tokens/s per GPU of training: global_batch·seq per step") {
    // 2048·4096 / (1575 · 256) = 20.806 s.
    CHECK(published_step_time_s(find_case("07-qwen3-235b-256-2511")) ==
          doctest::Approx(2048.0 * 4096 / (1575.0 * 256)));
  }
  SUBCASE("tokens/s of prefill: batch·seq tokens to the first token") {
    CHECK(published_step_time_s(find_case("25-pp2-prefill-16k")) == doctest::Approx(16384 / 1045.8));
  }
  SUBCASE("tokens/s of decode at batch 1: one token per step") {
    CHECK(published_step_time_s(find_case("22-l2-7b-tp1")) == doctest::Approx(1 / 104.9));
  }
  SUBCASE("time per output token in milliseconds") {
    CHECK(published_step_time_s(find_case("24-qwq32b-bs1-tp2")) == doctest::Approx(0.0275));
  }
  SUBCASE("a static batch: its batch·osl output tokens over the whole run") {
    const LlmCase& c = find_case("20-static-h100-l2-7b-128-2048");
    REQUIRE(c.static_batch);
    CHECK(c.static_batch->isl == 128);
    CHECK(c.static_batch->osl == 2048);
    CHECK(c.request.batch == 112);
    CHECK(c.request.kv_len == 128 + 1024);
    CHECK(published_step_time_s(c) == doctest::Approx(112.0 * 2048 / 6818));
  }
  SUBCASE("a step time as published") {
    CHECK(published_step_time_s(find_case("15-mtnlg530b-2240")) == 60.1);
  }
}

TEST_CASE("cases become planner requests") {
  SUBCASE("layout, schedule and selection") {
    const LlmCase& c = find_case("03-175b-seqsel");
    CHECK(c.request.mode == PlanMode::kTrain);
    CHECK(*c.request.tp == 8);
    CHECK(*c.request.pp == 8);
    CHECK(*c.request.vpp == 3);
    CHECK(c.request.sp);
    CHECK(*c.request.zero == 0);
    CHECK(c.request.recompute == Recompute::kSelective);
    CHECK(c.request.dtype == "fp16");
    CHECK(*c.request.gpus.first_n == 64);
    CHECK(c.sets.at("nodes") == "8");
    CHECK(c.topology_file == kTopologies + "/dgx-a100-ib.yaml");
  }
  SUBCASE("FSDP is ZeRO-3; HSDP ZeRO-3 sharded inside one server; the stack as named") {
    const LlmCase& fsdp = find_case("09-llama31-8b-8-fsdp-bf16");
    CHECK(*fsdp.request.zero == 3);
    CHECK(fsdp.request.shard_group == 0);
    CHECK(fsdp.request.framework == TrainFramework::kTorchtitan);
    CHECK(fsdp.request.compile == false);  // Table 1's "FSDP" row, without torch.compile
    CHECK(fsdp.approximations.empty());
    const LlmCase& hsdp = find_case("31-llama2-7b-128-hsdp");
    CHECK(*hsdp.request.zero == 3);
    CHECK(hsdp.request.shard_group == PlanRequest::kShardGroupPerServer);
    CHECK(hsdp.request.framework == TrainFramework::kFsdp);
    CHECK_FALSE(hsdp.request.compile.has_value());
    CHECK(find_case("01-gpt39b-512").request.framework == TrainFramework::kMegatron);
  }
  SUBCASE("pipeline micro-batches, virtual stages and async TP as torchtitan ran them") {
    const LlmCase& one = find_case("09-llama31-405b-512-1f1b");
    CHECK(one.request.micro_batch == 4);
    CHECK_FALSE(one.request.vpp.has_value());
    CHECK(one.request.tp_overlap_async);
    const LlmCase& looped = find_case("09-llama31-405b-512-interleaved");
    CHECK(looped.request.micro_batch == 2);
    CHECK(*looped.request.vpp == 2);
    CHECK(looped.request.tp_overlap_async);
    CHECK_FALSE(find_case("09-llama31-70b-256-2d-fp8").request.tp_overlap_async);  // Table 4's "2D" row
  }
  SUBCASE("servers with fewer GPUs in use") {
    const LlmCase& c = find_case("29-13b-tp4-8");
    CHECK(*c.request.gpus.per_node == 4);
    CHECK_FALSE(c.request.gpus.first_n);
    CHECK(c.sets.at("gpu") == "h200");
  }
  SUBCASE("weight-only quantization: int4 weights, fp16 compute") {
    const LlmCase& c = find_case("25-pp2-prefill-16k");
    CHECK(*c.request.weight_dtype == "int4");
    CHECK(c.request.dtype == "fp16");
  }
  SUBCASE("inference runs carry the engine their source measured on") {
    const LlmCase& vllm = find_case("24-qwq32b-bs1-tp2");
    REQUIRE(vllm.request.engine.has_value());
    CHECK(vllm.request.engine->name == "vllm@0.7.2");  // engine_version: 0.7.2
    const LlmCase& trtllm = find_case("20-ttft-h100-l2-7b-128");
    REQUIRE(trtllm.request.engine.has_value());
    CHECK(trtllm.request.engine->name == "trtllm@0.5.0");
    CHECK(trtllm.request.engine->launch == LaunchMode::kEager);
    CHECK(find_case("30-nim-l33-70b-tp2-500-2000-itl").request.engine->name == "trtllm");
    CHECK_FALSE(find_case("22-l2-7b-tp1").request.engine.has_value());  // gpt-fast: no engine
  }
  SUBCASE("an inline architecture") {
    const LlmCase& c = find_case("01-gpt39b-512");
    CHECK(c.request.model.layers == 48);
    CHECK(c.request.model.hidden == 8192);
    CHECK(c.request.model.ffn_type == FfnType::kGelu);
    CHECK(c.convention == FlopsConvention::kMegatron2021Hfu);
  }
}

namespace {

/// Loads a one-case file whose line 12 is `line12` and returns the refusal it must raise.
ConfigError refusal_at_line_12(const std::string& line12) {
  const std::filesystem::path dir = linksim::testing::scratch_path("linksim_llm_cases_test");
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "bad.yaml").string();
  {
    std::ofstream out(file);
    out << "- id: x\n  source: https://example.org\n  arch: {layers: 2, hidden: 64, heads: 4, "
           "kv_heads: 4, ffn: 256, ffn_type: gelu, vocab: 100}\n  mode: train\n  topo: dgx-h100\n"
           "  gpus: 1\n  tp: 1\n  pp: 1\n  dp: 1\n  ep: 1\n  cp: 1\n" << line12 << "\n"
           "  dtype: bf16\n  metric: step_time_s\n  value: 1\n";
  }
  std::optional<ConfigError> refusal;
  try {
    load_llm_cases(file, kTopologies);
  } catch (const ConfigError& e) {
    refusal = e;
  }
  std::filesystem::remove_all(dir);
  REQUIRE_MESSAGE(refusal.has_value(), "expected a ConfigError");
  CHECK(refusal->where().file == file);
  CHECK(refusal->where().line == 12);
  return *refusal;
}

}  // namespace

TEST_CASE("an interleaved schedule whose stages per GPU are not stated has two") {
  const std::filesystem::path dir = linksim::testing::scratch_path("linksim_llm_cases_vpp_test");
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "looped.yaml").string();
  std::ofstream(file) << "- id: x\n  source: https://example.org\n  arch: {layers: 8, hidden: 64, "
                         "heads: 4, kv_heads: 4, ffn: 256, ffn_type: gelu, vocab: 100}\n  mode: train\n"
                         "  topo: dgx-h100\n  gpus: 2\n  tp: 1\n  pp: 2\n  dp: 1\n  ep: 1\n  cp: 1\n"
                         "  pp_schedule: interleaved-1f1b\n  dtype: bf16\n  metric: step_time_s\n"
                         "  value: 1\n";
  const std::vector<LlmCase> cases = load_llm_cases(file, kTopologies);
  std::filesystem::remove_all(dir);
  REQUIRE(cases.size() == 1);
  CHECK(*cases[0].request.vpp == 2);
  REQUIRE(cases[0].approximations.size() == 1);
  CHECK(cases[0].approximations[0] == "vpp 2: interleaved schedule, stages per GPU not stated");
}

TEST_CASE("a case the reader cannot read names its file, line and field") {
  CHECK(refusal_at_line_12("  zero: sharded").message() ==
        "case x: zero: expected 0..3, fsdp or hsdp, got \"sharded\"");
}

TEST_CASE("a case's tp_overlap is none or async, at its line") {
  CHECK(refusal_at_line_12("  tp_overlap: ring").message() ==
        "case x: tp_overlap: expected none or async, got \"ring\"");
}

TEST_CASE("a case's engine is a known engine of an inference run") {
  const std::filesystem::path dir = linksim::testing::scratch_path("linksim_llm_engine_test");
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "bad.yaml").string();
  const auto message_for = [&](const std::string& mode, const std::string& engine) {
    {
      std::ofstream out(file);
      out << "- id: x\n  source: https://example.org\n  arch: {layers: 2, hidden: 64, heads: 4, "
             "kv_heads: 4, ffn: 256, ffn_type: gelu, vocab: 100}\n  mode: " << mode << "\n"
             "  engine: " << engine << "\n  topo: dgx-h100\n  gpus: 1\n  tp: 1\n  pp: 1\n"
             "  dp: 1\n  ep: 1\n  cp: 1\n  dtype: bf16\n  metric: step_time_s\n  value: 1\n";
    }
    try {
      load_llm_cases(file, kTopologies);
    } catch (const ConfigError& e) {
      CHECK(e.where().line == 5);
      return e.message();
    }
    return std::string("no error");
  };
  CHECK(message_for("decode", "tgi") ==
        "case x: engine: expected vllm, sglang, trtllm, lmdeploy, hf, llama.cpp, got \"tgi\"");
  CHECK(message_for("train", "vllm") ==
        "case x: engine: expected no engine for a training run, got \"vllm\"");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a case's engine_version is a release of its engine, refused at its line and column") {
  const std::filesystem::path dir = linksim::testing::scratch_path("linksim_llm_release_test");
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "bad.yaml").string();
  const auto load_with = [&](const std::string& engine, const std::string& version) {
    std::ofstream(file) << "- id: x\n  source: https://example.org\n  arch: {layers: 2, hidden: 64, "
                           "heads: 4, kv_heads: 4, ffn: 256, ffn_type: gelu, vocab: 100}\n"
                           "  mode: decode\n  engine: " << engine << "\n  engine_version: "
                        << version << "\n  topo: dgx-h100\n  gpus: 1\n  tp: 1\n  pp: 1\n  dp: 1\n"
                           "  ep: 1\n  cp: 1\n  dtype: bf16\n  metric: step_time_s\n  value: 1\n";
    return load_llm_cases(file, kTopologies);
  };
  const std::vector<LlmCase> ok = load_with("trtllm", "0.6.1");
  REQUIRE(ok.size() == 1);
  REQUIRE(ok[0].request.engine.has_value());
  CHECK(ok[0].request.engine->name == "trtllm@0.6.1");
  CHECK_FALSE(ok[0].request.engine->gqa_shared_kv_reads);
  CHECK_FALSE(ok[0].request.engine->fused_gate_up);
  try {
    load_with("trtllm", "0.9.9");
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.where().file == file);
    CHECK(e.where().line == 6);
    CHECK(e.where().column == 19);
    CHECK(e.message() == "case x: engine_version: expected one of 0.5.0, 0.6.1, got \"0.9.9\"");
  }
  try {
    load_with("sglang", "0.4");
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.where().line == 6);
    CHECK(e.message() ==
          "case x: engine_version: expected no version (sglang has no releases in the table), "
          "got \"0.4\"");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace linksim::testing
