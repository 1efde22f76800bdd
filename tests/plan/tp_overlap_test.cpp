// SPDX-License-Identifier: Apache-2.0
// Transformer Engine's userbuffers TP overlap (docs/planner.md#tp-overlap): the GEMMs beside a
// communication kernel on 16 reserved SMs, by the wave count a hand can derive, and what
// --tp-overlap async adds to a Megatron-Core step against --tp-overlap none.
#include <doctest/doctest.h>

#include <cmath>

#include "linksim/catalog.hpp"
#include "linksim/model.hpp"
#include "linksim/plan.hpp"
#include "linksim/topology_yaml.hpp"
#include "plan/framework.hpp"
#include "plan/gemm_calls.hpp"
#include "plan/precision.hpp"
#include "plan/tp_overlap.hpp"
#include "support/test_topologies.hpp"

namespace linksim {
namespace {

// Llama-3-70B's widths: 8192 hidden, 64 heads of 128, 8 KV heads, SwiGLU 28672.
constexpr const char* kSeventy =
    "layers=4,hidden=8192,heads=64,kv_heads=8,ffn=28672,ffn_type=swiglu,vocab=128256";

PlanRequest tp8_train() {
  PlanRequest r;
  r.model = parse_arch(kSeventy, "--arch");
  r.mode = PlanMode::kTrain;
  r.framework = TrainFramework::kNemo;
  r.tp = 8;
  r.dp = 1;
  r.sp = true;
  r.seq = 8192;
  r.micro_batch = 1;
  r.global_batch = 2;  // two micro-batches
  r.recompute = Recompute::kNone;
  r.compute_baseline = false;
  return r;
}


// The rates the planner gives an H100 SXM for `r`, and the layout's TP=8 sequence-parallel
// slice of one 8192-token sequence.
plan_detail::GpuRates h100_rates(const PlanRequest& r, plan_detail::Precision* precision) {
  const GpuModel* gpu = Catalog::builtin().find_gpu("h100-sxm");
  REQUIRE(gpu != nullptr);
  REQUIRE(gpu->multiprocessors == 132);
  *precision = plan_detail::resolve_precision(r);
  return plan_detail::gpu_rates(*gpu, r, *precision, plan_detail::framework_traits(r));
}

ParallelLayout tp8_sp_layout() {
  ParallelLayout l;
  l.tp = 8;
  l.sp = true;
  l.seq = 8192;
  return l;
}

}  // namespace

TEST_CASE("tp overlap: GEMMs on 132 - 16 SMs take the waves of 116 SMs") {
  using namespace plan_detail;
  const PlanRequest r = tp8_train();
  Precision p;
  const GpuRates rates = h100_rates(r, &p);
  const ParallelLayout l = tp8_sp_layout();
  const WorkShape w = work_shape(l, PlanMode::kTrain);
  const UserbufferCost ub = userbuffer_cost(r.model, l, w, false, p, rates);
  double out_s = 0, down_s = 0, up_s = 0;
  for (const GemmCall& g : attention_gemms(r.model, l, w)) {
    if (g.name == "attention out") out_s = forward_time_s(g, p, rates);
  }
  for (const GemmCall& g : ffn_gemms(r.model, l, w, false, rates)) {
    if (g.name == "FFN down") down_s = forward_time_s(g, p, rates);
    if (g.name == "FFN up/gate") up_s = forward_time_s(g, p, rates);
  }
  REQUIRE(out_s > 0);
  REQUIRE(down_s > 0);
  REQUIRE(up_s > 0);
  // Attention out and FFN down are 8192 x 8192 outputs: 64 x 32 = 2048 tiles of 128 x 256,
  // 16 waves on 132 SMs, 18 on 116: the tile time grows by 2/16, the K loop's fill and drain
  // does not, so the extra is a little under 12.5 % of the GEMMs.
  const double forward_ratio = ub.forward_extra_s / (out_s + down_s);
  CHECK(forward_ratio > 0.10);
  CHECK(forward_ratio <= 0.125 + 1e-9);
  // Backward: QKV (8192 x 1280, 320 tiles: 3 waves on either) loses nothing; FFN up/gate
  // (8192 x 7168, 1792 tiles: 14 waves, then 16) its data and weight gradients 2/14 each.
  const double backward_ratio = ub.backward_extra_s / (2 * up_s);
  CHECK(backward_ratio > 0.12);
  CHECK(backward_ratio <= 2.0 / 14 + 1e-9);
}

TEST_CASE("tp overlap: async on Megatron-Core adds the reserved SMs' GEMM time and a chunk") {
  using namespace plan_detail;
  const Topology t = testing::library_topology("dgx-h100.yaml");
  PlanRequest r = tp8_train();
  r.tp_overlap_async = false;
  const PlanResult exposed = plan(t, r);
  r.tp_overlap_async = true;
  const PlanResult overlapped = plan(t, r);
  // compute grows by layers x micro-batches x (forward + backward extra), nothing else.
  Precision p;
  const GpuRates rates = h100_rates(r, &p);
  const ParallelLayout l = tp8_sp_layout();
  const UserbufferCost ub = userbuffer_cost(r.model, l, work_shape(l, PlanMode::kTrain), false, p, rates);
  CHECK(overlapped.breakdown.compute_s - exposed.breakdown.compute_s ==
        doctest::Approx(4 * 2 * (ub.forward_extra_s + ub.backward_extra_s)).epsilon(1e-9));
  // The forward's exposed TP time is at least the last of the 4 reduce-scatter chunks of each
  // of the two reduce-scatters per layer: more than 0, less than exposing the whole calls.
  double fwd_exposed = 0, fwd_total = 0;
  for (const PlanComm& c : overlapped.comms) {
    if (c.kind == "tp" && c.phase == "forward") {
      fwd_exposed += c.exposed_s;
      fwd_total += c.time_s;
    }
  }
  CHECK(fwd_exposed > 0);
  CHECK(fwd_exposed < fwd_total / 2);
  // torchtitan's async TP (torch symmetric memory) reserves no SMs here: no extra compute.
  r.framework = TrainFramework::kTorchtitan;
  r.tp_overlap_async = false;
  const PlanResult titan_exposed = plan(t, r);
  r.tp_overlap_async = true;
  const PlanResult titan = plan(t, r);
  CHECK(titan.breakdown.compute_s == doctest::Approx(titan_exposed.breakdown.compute_s).epsilon(1e-12));
}

}  // namespace linksim
