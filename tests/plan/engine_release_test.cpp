// SPDX-License-Identifier: Apache-2.0
// Engine releases (include/linksim/engine_release.hpp): NAME@RELEASE names the release's
// mechanisms, an unknown one says what was expected, and the mechanisms change the plan as
// derived by hand (docs/serving.md#releases).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "linksim/engine_release.hpp"
#include "linksim/error.hpp"
#include "linksim/model.hpp"
#include "linksim/plan.hpp"
#include "linksim/serve_options.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim {
namespace {

Topology dgx_a100() {
  return load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-a100.yaml", {});
}

double decode_step_s(const Topology& t, const EngineModel& engine, int batch, int kv_len) {
  PlanRequest r;
  r.model = ModelCatalog::builtin().get("llama3.1-70b");
  r.mode = PlanMode::kDecode;
  r.compute_baseline = false;
  r.tp = 8;
  r.batch = batch;
  r.kv_len = kv_len;
  r.dtype = "bf16";
  r.engine = engine;
  return plan(t, r).step_time_s;
}

}  // namespace

TEST_CASE("engine releases: NAME@RELEASE applies the release's mechanisms") {
  const std::optional<EngineModel> today = find_engine_spec("trtllm");
  REQUIRE(today.has_value());
  CHECK(today->name == "trtllm");
  CHECK(today->launch == LaunchMode::kCudaGraphs);
  CHECK(today->gqa_shared_kv_reads);

  const std::optional<EngineModel> old = find_engine_spec("trtllm@0.5.0");
  REQUIRE(old.has_value());
  CHECK(old->name == "trtllm@0.5.0");
  CHECK(old->release == "TensorRT-LLM 0.5.0");
  CHECK(old->launch == LaunchMode::kEager);
  CHECK(old->kernel_launch_host_s == doctest::Approx(15e-6));
  CHECK(old->allreduce == AllReduceImpl::kNccl);
  CHECK_FALSE(old->fused_gate_up);
  CHECK_FALSE(old->continuous_batching);
  CHECK_FALSE(old->chunked_prefill);
  CHECK_FALSE(old->gqa_shared_kv_reads);
  CHECK(old->max_num_seqs == today->max_num_seqs);  // scheduler defaults stay the engine's

  const std::optional<EngineModel> vllm = find_engine_spec("vllm@0.7.2");
  REQUIRE(vllm.has_value());
  CHECK(vllm->allreduce == AllReduceImpl::kCustom);
  CHECK(vllm->launch == LaunchMode::kCudaGraphs);
  CHECK(vllm->iteration_overhead_s == doctest::Approx(find_engine("vllm")->iteration_overhead_s));
}

TEST_CASE("engine releases: an unknown release or engine says what was expected") {
  CHECK_FALSE(find_engine_spec("trtllm@0.9").has_value());
  CHECK(engine_spec_expectation("trtllm@0.9") == "trtllm@RELEASE with RELEASE one of 0.5.0, 0.6.1");
  CHECK_FALSE(find_engine_spec("tgi@1.0").has_value());
  CHECK(engine_spec_expectation("tgi@1.0") ==
        "one of vllm, sglang, trtllm, lmdeploy, hf, llama.cpp");
  CHECK_FALSE(find_engine_spec("sglang@0.4").has_value());
  CHECK(engine_spec_expectation("sglang@0.4") == "sglang with no release (it has none in the table)");
  CHECK(engine_release_versions("trtllm") == "0.5.0, 0.6.1");
}

TEST_CASE("engine releases: --engine and engine= take NAME@RELEASE, and name themselves when refused") {
  const EngineModel old = serving_engine_option("trtllm@0.6.1", std::nullopt, std::nullopt,
                                                OptionSpelling::kFlag);
  CHECK_FALSE(old.continuous_batching);  // serve runs gptSession's static batches
  CHECK(old.kernel_launch_host_s == doctest::Approx(15e-6));
  const auto message = [](OptionSpelling spelling) {
    try {
      serving_engine_option("trtllm@0.9", std::nullopt, std::nullopt, spelling);
    } catch (const ConfigError& e) {
      return e.message();
    }
    return std::string("no error");
  };
  CHECK(message(OptionSpelling::kFlag) ==
        "--engine: expected trtllm@RELEASE with RELEASE one of 0.5.0, 0.6.1, got \"trtllm@0.9\"");
  CHECK(message(OptionSpelling::kKeyword) ==
        "engine: expected trtllm@RELEASE with RELEASE one of 0.5.0, 0.6.1, got \"trtllm@0.9\"");
}

TEST_CASE("engine releases: decode without GQA sharing re-reads each KV head from L2") {
  // Llama 3.1 70B at TP=8 on an A100 80GB: one KV head and 8 query heads per GPU. Batch 64 at
  // a context of 4096 keys: the attention kernel reads 2 (K, V) x 64 x 4096 x 128 x 2 B =
  // 134,217,728 B once from HBM (2039 GB/s x 0.85); without sharing, all 8 query heads read
  // it from L2 (4956 GB/s, docs/catalog.md): max(8 x 134.2 MB / 4956 GB/s, 134.2 MB / 1733
  // GB/s) = 216.7 us against 77.4 us, 139.2 us more per layer, 80 layers: 11.14 ms per step.
  const Topology t = dgx_a100();
  EngineModel release = *find_engine_spec("trtllm@0.6.1");
  EngineModel shared = release;
  shared.gqa_shared_kv_reads = true;
  const double bytes = 2.0 * 64 * 4096 * 128 * 2;
  const double hbm_s = bytes / (2039e9 * 0.85);
  const double l2_s = 8 * bytes / 4956e9;
  const double expected_s = 80 * (std::max(hbm_s, l2_s) - hbm_s);
  CHECK(expected_s == doctest::Approx(11.14e-3).epsilon(0.01));
  CHECK(decode_step_s(t, release, 64, 4095) - decode_step_s(t, shared, 64, 4095) ==
        doctest::Approx(expected_s).epsilon(0.001));
}

}  // namespace linksim
