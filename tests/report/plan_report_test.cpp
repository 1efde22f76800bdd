// SPDX-License-Identifier: Apache-2.0
// Renderings of the planner's results: the breakdown text, the JSON contract, the search and
// sensitivity tables, on results written by hand.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "linksim/plan_report.hpp"

namespace linksim {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A 70B decode on 8 GPUs with TP=8: 25 ms per token, 160 AllReduces of 16 KiB.
PlanResult decode_result() {
  PlanResult r;
  r.model = "Llama-3.1-70B";
  r.topology = "dgx-h100";
  r.gpu_model = "h100-sxm";
  r.mode = PlanMode::kDecode;
  r.gpus = 8;
  r.layout.tp = 8;
  r.layout.batch = 1;
  r.layout.kv_len = 4096;
  r.layout.seq = 2048;
  r.dtype = "bf16";
  r.weight_dtype = "bf16";
  r.step_time_s = 0.025;
  r.tpot_s = 0.025;
  r.tokens_per_s = 40;
  r.tokens_per_s_per_gpu = 5;
  r.model_flops = 1.4e11;
  r.model_tflops_per_gpu = 0.7;
  r.mfu = 0.0007;
  r.comm_time_s = 0.0032;
  r.comm_compute_ratio = 0.0032 / 0.0218;
  r.breakdown = {0.0218, 0.0032, 0};
  r.compute.gemm_s = 0.02;
  r.compute.memory_bound_s = 0.0018;
  r.compute.total_s = 0.0218;
  r.compute.peak_flops = 989.4e12;
  r.compute.hbm_Bps = 3.35e12;
  PlanComm tp;
  tp.kind = "tp";
  tp.phase = "forward";
  tp.group_size = 8;
  tp.collective = CollectiveOp::kAllReduce;
  tp.bytes = 16384;
  tp.count = 160;
  tp.algorithm = Algorithm::kRing;
  tp.protocol = Protocol::kSimple;
  tp.time_s = 0.0032;
  tp.exposed_s = 0.0032;
  tp.bottleneck = "gpu0->nvswitch0";
  tp.gpus = "gpu0-7";
  r.comms.push_back(tp);
  r.memory.weights = 17.5e9;
  r.memory.kv_cache = 0.16e9;
  r.memory.workspace = 2e9;
  r.memory.total = 19.66e9;
  r.memory.capacity = 80.0 * 1073741824;
  r.memory.fits = true;
  r.layers_on_slowest_stage = 80;
  r.assumptions = {"pp=1 (default)"};
  return r;
}

TEST_CASE("render_plan_json: the documented keys, nulls and units") {
  const nlohmann::json j = nlohmann::json::parse(render_plan_json(decode_result()));
  CHECK(j["model"] == "Llama-3.1-70B");
  CHECK(j["mode"] == "decode");
  CHECK(j["gpus"] == 8);
  CHECK(j["parallel"]["tp"] == 8);
  CHECK(j["parallel"]["sp"] == false);
  CHECK(j["parallel"]["kv_len"] == 4096);
  CHECK(j["parallel"]["batch"] == 1);
  CHECK(j["parallel"]["micro_batch"].is_null());   // decode has no micro-batches
  CHECK(j["parallel"]["global_batch"].is_null());
  CHECK(j["parallel"]["seq"].is_null());
  CHECK(j["step_time_s"] == 0.025);
  CHECK(j["tpot_s"] == 0.025);
  CHECK(j["ttft_s"].is_null());
  CHECK(j["speedup"].is_null());
  CHECK(j["scaling_efficiency"].is_null());
  CHECK(j["baseline"].is_null());
  CHECK(j["breakdown"]["exposed_comm_s"] == 0.0032);
  CHECK(j["comm_compute_ratio"] == doctest::Approx(0.1467889908));
  REQUIRE(j["comms"].size() == 1);
  const nlohmann::json& c = j["comms"][0];
  CHECK(c["kind"] == "tp");
  CHECK(c["collective"] == "allreduce");
  CHECK(c["bytes"].is_number_unsigned());
  CHECK(c["bytes"] == 16384);
  CHECK(c["count"] == 160);
  CHECK(c["algorithm"] == "ring");
  CHECK(c["bottleneck"] == "gpu0->nvswitch0");
  CHECK(j["memory"]["weights"] == 17500000000ULL);
  CHECK(j["memory"]["capacity"] == 85899345920ULL);
  CHECK(j["memory"]["fits"] == true);
  CHECK(j["memory"]["smallest_fitting"].is_null());
  CHECK(j["assumptions"] == nlohmann::json::array({"pp=1 (default)"}));
}

TEST_CASE("render_plan_json: a baseline and a miss") {
  PlanResult r = decode_result();
  r.speedup = 6.4;
  r.scaling_efficiency = 0.8;
  r.baseline_gpus = 1;
  r.baseline = "1 GPU";
  r.memory.fits = false;
  r.smallest_fitting = "tp=4 pp=2";
  const nlohmann::json j = nlohmann::json::parse(render_plan_json(r));
  CHECK(j["speedup"] == 6.4);
  CHECK(j["baseline"]["gpus"] == 1);
  CHECK(j["baseline"]["layout"] == "1 GPU");
  CHECK(j["memory"]["smallest_fitting"] == "tp=4 pp=2");
}

TEST_CASE("render_plan_text: configuration, memory, time, results and communications") {
  const std::string text = render_plan_text(decode_result());
  CHECK(text.rfind("linksim plan: Llama-3.1-70B, decode on dgx-h100 (8 x h100-sxm)\n", 0) == 0);
  CHECK(contains(text, "1 sequence holding 4096 tokens of context"));
  CHECK(contains(text, "assumption  pp=1 (default)\n"));
  CHECK(contains(text, "h100-sxm: 989.4 TFLOP/s dense, HBM 3350 GB/s"));
  // 80 GiB - 19.66e9 B = 66.24e9 B = 61.69 GiB free.
  CHECK(contains(text, "  fits: 61.69 GiB free\n"));
  CHECK(contains(text, "time per output token  25.0 ms\n"));
  // The TP row's exposed share: 3.2 ms of 25 ms = 12.8 % -> "13 %".
  CHECK(contains(text, "    tp                   3.20 ms   13 %\n"));
  CHECK(contains(text, "  step                   25.0 ms  100 %\n"));
  CHECK(contains(text, "no baseline (nothing smaller fits)"));
  CHECK(contains(text,
                 "  kind  phase    group  collective   bytes  count  algorithm  protocol     time  "
                 "exposed  bottleneck       GPUs\n"
                 "  tp    forward      8  allreduce   16 KiB    160  ring       Simple    3.20 ms  "
                 "3.20 ms  gpu0->nvswitch0  gpu0-7\n"));
  CHECK(text.find(" \n") == std::string::npos);
}

TEST_CASE("plan reports: the SMs NCCL holds under compute, in JSON always, in text when any") {
  PlanResult r = decode_result();
  CHECK(nlohmann::json::parse(render_plan_json(r))["compute"]["comm_sm_s"] == 0.0);
  CHECK_FALSE(contains(render_plan_text(r), "SMs held by NCCL"));
  // 3 ms of overhead, 2 ms of it compute slowed by NCCL's CTAs (a training step's figures).
  r.compute.overhead_s = 0.003;
  r.compute.comm_sm_s = 0.002;
  CHECK(nlohmann::json::parse(render_plan_json(r))["compute"]["comm_sm_s"] ==
        doctest::Approx(0.002));
  CHECK(contains(render_plan_text(r), "    of it, SMs held by NCCL"));
}

TEST_CASE("render_plan_text: a plan that does not fit says by how much and what would") {
  PlanResult r = decode_result();
  r.memory.total = 90.0 * 1073741824;
  r.memory.fits = false;
  r.smallest_fitting = "tp=8 pp=2";
  const std::string text = render_plan_text(r);
  CHECK(contains(text, "  does not fit: 10 GiB over the GPU's 80 GiB\n"));
  CHECK(contains(text, "  smallest fitting: tp=8 pp=2\n"));
  r.smallest_fitting.clear();
  CHECK(contains(render_plan_text(r), "  no tp x pp on this topology fits\n"));
}

TEST_CASE("search and sensitivity renderings") {
  SearchCandidate best;
  best.layout.tp = 8;
  best.layout.dp = 1;
  best.fits = true;
  best.tokens_per_s = 1000;
  best.step_time_s = 1;
  best.memory_bytes = 60.0 * 1073741824;
  best.verdict = "best";
  SearchCandidate big = best;
  big.layout.tp = 1;
  big.layout.dp = 8;
  big.fits = false;
  big.memory_bytes = 150.0 * 1073741824;
  big.verdict = "does not fit";
  const std::string text = render_search_text({best, big});
  CHECK(text ==
        "# layout search: 2 layouts on 8 GPUs, ranked by tokens/s\n"
        "rank  layout                    micro-batch  fits   memory    step  tokens/s  verdict\n"
        "   1  tp=8 pp=1 dp=1 cp=1 ep=1            1  yes    60 GiB  1.00 s      1000  best\n"
        "   2  tp=1 pp=1 dp=8 cp=1 ep=1            1  no    150 GiB  1.00 s      1000  does not fit\n");
  const nlohmann::json j = nlohmann::json::parse(render_search_json({best, big}));
  REQUIRE(j.size() == 2);
  CHECK(j[1]["rank"] == 2);
  CHECK(j[1]["dp"] == 8);
  CHECK(j[1]["fits"] == false);
  CHECK(j[1]["memory_bytes"] == 161061273600ULL);

  // 1 - 1.14 / 1.23 = 7.3 %; a slower row costs.
  const std::vector<SensitivityRow> rows = {{"NIC", 1.14, 1 - 1.14 / 1.23}, {"HBM", 1.25, 1 - 1.25 / 1.23}};
  CHECK(render_sensitivity_text(1.23, rows, 2) ==
        "Sensitivity: each resource 2× faster, the rest unchanged (step 1.23 s)\n"
        "  NIC ×2: step 1.23 s → 1.14 s, saves 7.3 %\n"
        "  HBM ×2: step 1.23 s → 1.25 s, costs 1.6 %\n");
  const nlohmann::json s = nlohmann::json::parse(render_sensitivity_json(1.23, rows, 2));
  CHECK(s["factor"] == 2);
  CHECK(s["rows"][0]["resource"] == "NIC");
  CHECK(s["rows"][0]["saving"] == doctest::Approx(0.0731707317));
}

}  // namespace
}  // namespace linksim
