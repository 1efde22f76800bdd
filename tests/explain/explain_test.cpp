// SPDX-License-Identifier: Apache-2.0
// explain_collective and explain_plan: the explained numbers are the predictions (same time as
// Communicator::run, run_sweep and plan for the same inputs), the derivation's terms
// recombine into its results, and the NCCL constants are the ones derived by hand.
#include "linksim/explain.hpp"

#include <doctest/doctest.h>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/model.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/plan.hpp"
#include "linksim/plan_explain.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/collective_query.hpp"

namespace linksim {
namespace {

Topology load(const std::string& name) {
  return load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/" + name + ".yaml");
}

using linksim::testing::collective_query;

const ExplainStep& step(const std::vector<ExplainStep>& steps, const std::string& title) {
  for (const ExplainStep& s : steps) {
    if (s.title == title) return s;
  }
  FAIL("no step titled " << title);
  return steps.front();
}

double term(const ExplainStep& s, const std::string& symbol) {
  for (const ExplainTerm& t : s.terms) {
    if (t.symbol == symbol) return t.value;
  }
  FAIL("step '" << s.title << "' has no term " << symbol);
  return 0;
}

bool has_term(const ExplainStep& s, const std::string& symbol) {
  for (const ExplainTerm& t : s.terms) {
    if (t.symbol == symbol) return true;
  }
  return false;
}

// The time `linksim coll OP --size S` prints: run_sweep's row, in the given mode.
double coll_time_s(const Communicator& comm, CollectiveOp op, double bytes, SimMode mode) {
  SweepRequest r;
  r.op = op;
  r.sizes_bytes = {bytes};
  r.mode = mode;
  return run_sweep(comm, r).rows.front().result.time_s;
}

}  // namespace

TEST_SUITE("explain") {
  TEST_CASE("explain coll: the explained times are coll's, analytic and flow, on three machines") {
    // 1 GiB is a whole number of floats and of 8 (or 2) float blocks: coll does not round it.
    const double s = 1073741824;
    for (const char* machine : {"dgx-h100", "pcie-8gpu", "dual-4090"}) {
      for (CollectiveOp op :
           {CollectiveOp::kAllReduce, CollectiveOp::kAllGather, CollectiveOp::kSendRecv}) {
        CAPTURE(machine);
        CAPTURE(to_string(op));
        const Topology t = load(machine);
        const Communicator comm(t, t.gpus());
        const CollectiveExplanation e = explain_collective(comm, collective_query(op, s));
        CHECK(e.analytic.time_s == coll_time_s(comm, op, s, SimMode::kAnalytic));
        REQUIRE(e.flow.has_value());
        CHECK(e.flow->time_s == coll_time_s(comm, op, s, SimMode::kFlow));
        CHECK(step(e.steps, "closed form").result.value == e.analytic.time_s);
        CHECK(step(e.steps, "flow simulation").result.value == e.flow->time_s);
        CHECK(step(e.steps, "flow against closed form").result.value ==
              e.flow->time_s - e.analytic.time_s);
        // The tuner's chosen row is the prediction, and no eligible row is faster.
        int chosen = 0;
        for (const TunerCandidate& c : e.candidates) {
          if (c.chosen) {
            ++chosen;
            CHECK(c.time_s == e.analytic.time_s);
            CHECK(c.algorithm == e.analytic.algorithm);
            CHECK(c.protocol == e.analytic.protocol);
          }
          if (c.eligible) CHECK(c.time_s >= e.analytic.time_s);
        }
        CHECK(chosen == 1);
      }
    }
  }

  TEST_CASE("explain coll: the closed form's terms recombine into its result") {
    // t = alpha + fill + w x S / B with the step's own terms, and alpha, B are the latency
    // and bandwidth steps' results.
    const Topology t = load("dgx-h100");
    const Communicator comm(t, t.gpus());
    for (double s : {8.0, 65536.0, 1073741824.0}) {
      CAPTURE(s);
      const CollectiveExplanation e =
          explain_collective(comm, collective_query(CollectiveOp::kAllReduce, s));
      const ExplainStep& cf = step(e.steps, "closed form");
      CHECK(term(cf, "alpha") == step(e.steps, "latency term").result.value);
      CHECK(term(cf, "B") == step(e.steps, "bandwidth term").result.value);
      CHECK(term(cf, "S") == s);
      const double t_s = term(cf, "alpha") + term(cf, "fill") + term(cf, "w") * s / term(cf, "B");
      CHECK(cf.result.value == doctest::Approx(t_s).epsilon(1e-12));
    }
  }

  TEST_CASE("explain coll: nccl-tests semantics, busbw factor 2 x 7 / 8 = 1.75 on 8 GPUs") {
    const Topology t = load("dgx-h100");
    const Communicator comm(t, t.gpus());
    const double s = 1073741824;
    const CollectiveExplanation e =
        explain_collective(comm, collective_query(CollectiveOp::kAllReduce, s));
    CHECK(e.bus_factor == doctest::Approx(1.75));
    const ExplainStep& bus = step(e.steps, "bus bandwidth (nccl-tests)");
    CHECK(term(bus, "factor") == doctest::Approx(1.75));
    CHECK(term(bus, "n") == 8);
    CHECK(bus.result.value == e.analytic.busbw_Bps);
    const ExplainStep& alg = step(e.steps, "algorithm bandwidth (nccl-tests)");
    CHECK(alg.result.value == doctest::Approx(s / e.analytic.time_s).epsilon(1e-12));
    CHECK(bus.result.value == doctest::Approx(1.75 * s / e.analytic.time_s).epsilon(1e-12));
  }

  TEST_CASE("explain coll: ring latency is NCCL's base + 2(n-1) NVLink or PCIe hops") {
    // NCCL tuning.cc, Ring, Simple, one server: baseLat 8.4 us + 2(n-1) steps x hwLat.
    // 8 H100s behind NVSwitches: 8.4 + 14 x 3.4 = 56 us. 8 L40S on PCIe: 8.4 + 14 x 5.7 = 88.2 us.
    struct Case {
      const char* machine;
      double hop_us, alpha_us;
    };
    for (const Case& c : {Case{"dgx-h100", 3.4, 56.0}, Case{"pcie-8gpu", 5.7, 88.2}}) {
      CAPTURE(c.machine);
      const Topology t = load(c.machine);
      const Communicator comm(t, t.gpus());
      const CollectiveExplanation e = explain_collective(
          comm,
          collective_query(CollectiveOp::kAllReduce, 1048576, Algorithm::kRing, Protocol::kSimple));
      const ExplainStep& lat = step(e.steps, "latency term");
      CHECK(term(lat, "base") == doctest::Approx(8.4e-6));
      CHECK(term(lat, "steps") == 14);
      CHECK(term(lat, "inter") == 0);
      CHECK(term(lat, "lat_intra") == doctest::Approx(c.hop_us * 1e-6));
      CHECK(lat.result.value == doctest::Approx(c.alpha_us * 1e-6).epsilon(1e-12));
      CHECK(e.analytic.algorithm == Algorithm::kRing);
    }
  }

  TEST_CASE("explain coll: the ring's bandwidth term names its bottleneck link and catalog entry") {
    // Simple runs the ring at its full rate, B = T_ring; the bottleneck link (a GPU's NVLink
    // into an NVSwitch) has effective capacity raw rate x the family's efficiency, and carries
    // T_ring x load of it.
    const Topology t = load("dgx-h100");
    const Communicator comm(t, t.gpus());
    const CollectiveExplanation e =
        explain_collective(comm, collective_query(CollectiveOp::kAllReduce, 1073741824,
                                                  Algorithm::kRing, Protocol::kSimple));
    const ExplainStep& bw = step(e.steps, "bandwidth term");
    CHECK(bw.result.value == term(bw, "T_ring"));
    REQUIRE(e.analytic.bottleneck.kind == BottleneckKind::kLink);
    CHECK(term(bw, "C_eff") == doctest::Approx(term(bw, "C_raw") * term(bw, "eff_link")));
    CHECK(term(bw, "C_raw") == t.link(e.analytic.bottleneck.link).bw_Bps);
    CHECK(term(bw, "T_ring") * term(bw, "load") <= term(bw, "C_eff") * (1 + 1e-12));
    bool names_catalog = false;
    for (const ExplainTerm& x : bw.terms) {
      const std::string entry = "catalog '" + t.link_type(e.analytic.bottleneck.link).str() + "'";
      if (x.symbol == "C_raw") names_catalog = x.source.find(entry) != std::string::npos;
    }
    CHECK(names_catalog);
  }

  TEST_CASE("explain coll: eff_link names the measured NVLink efficiency of the generation") {
    // DGX A100: the bottleneck NVLink's efficiency is SM80's measured 234.72 / 300 (4 A100,
    // calibration 08), not NCCL's 20/25; the term's source says so.
    const Topology t = load("dgx-a100");
    const Communicator comm(t, t.gpus());
    const CollectiveExplanation e =
        explain_collective(comm, collective_query(CollectiveOp::kAllReduce, 1073741824,
                                                  Algorithm::kRing, Protocol::kSimple));
    const ExplainStep& bw = step(e.steps, "bandwidth term");
    CHECK(term(bw, "eff_link") == doctest::Approx(234.72 / 300.0));
    std::string source;
    for (const ExplainTerm& x : bw.terms) {
      if (x.symbol == "eff_link") source = x.source;
    }
    CHECK(source.rfind("measured NVLink efficiency of SM80: ", 0) == 0);
  }

  TEST_CASE("explain coll: a SendRecv over NVLink runs on NCCL's parts of the send") {
    // H100: one channel ~ one NVLink at SM90's measured 361.86/450 of 25 GB/s = 20.103 GB/s.
    // DGX H100: 24 channels, 32 p2p channels, 2 x 18 NVLinks -> 32 a peer (paths.cc). A send
    // starts on 32 halved while it x ranks > 32 (8 ranks: 4; 4 ranks: 8), and doubles while
    // a part exceeds 32 x 512 KiB = 16 MiB (enqueue.cc addP2pToPlan). 8 ranks: 32 MiB on 4
    // (8 MiB parts), 80.41 GB/s; 128 MiB on 8 (16 MiB), 160.83. 4 ranks: 32 MiB on 8,
    // 160.83 (calibration 129 measures 149); 256 MiB on 16 (16 MiB), 321.65.
    const Topology t = load("dgx-h100");
    struct Case {
      int ranks;
      double bytes, channels;
    };
    const double lane_GBps = 25.0 * 361.86 / 450.0;
    for (const Case& c : {Case{8, 33554432, 4}, Case{8, 134217728, 8}, Case{4, 33554432, 8},
                          Case{4, 268435456, 16}}) {
      CAPTURE(c.ranks);
      CAPTURE(c.bytes);
      const std::vector<DeviceId> all = t.gpus();
      const Communicator comm(t, std::vector<DeviceId>(all.begin(), all.begin() + c.ranks));
      const CollectiveExplanation e = explain_collective(
          comm,
          collective_query(CollectiveOp::kSendRecv, c.bytes, Algorithm::kAuto, Protocol::kSimple));
      const ExplainStep& bw = step(e.steps, "bandwidth term");
      CHECK(term(bw, "channels_p2p") == c.channels);
      CHECK(term(bw, "B_channel") == doctest::Approx(lane_GBps * 1e9));
      CHECK(term(bw, "T_pattern") == doctest::Approx(c.channels * lane_GBps * 1e9));
      CHECK(bw.result.value == doctest::Approx(c.channels * lane_GBps * 1e9));
      CHECK(e.analytic.bottleneck.kind == BottleneckKind::kP2pChannels);
    }
  }

  TEST_CASE("explain coll: an AllToAll across two servers saturates a NIC: T x load = C_eff") {
    // 16 ranks, 8 per server: each rank sends 1/15 of its traffic to each other rank, 8 of 15
    // shares leave the server through its own NIC (rails): load 8/15 of the per-rank rate on
    // the NIC's link, an NDR port at 50 GB/s x 0.96 = 48 GB/s: T = 48 / (8/15) = 90 GB/s.
    const Topology t = load_topology(std::string(LINKSIM_SOURCE_DIR) +
                                         "/topologies/dgx-h100-ib.yaml",
                                     {{"nodes", "2"}});
    const Communicator comm(t, t.gpus());
    const CollectiveExplanation e = explain_collective(
        comm,
        collective_query(CollectiveOp::kAllToAll, 268435456, Algorithm::kAuto, Protocol::kSimple));
    const ExplainStep& bw = step(e.steps, "bandwidth term");
    REQUIRE(e.analytic.bottleneck.kind == BottleneckKind::kLink);
    CHECK(term(bw, "C_eff") == doctest::Approx(48e9));
    CHECK(term(bw, "load") == doctest::Approx(8.0 / 15.0));
    CHECK(term(bw, "T_pattern") == doctest::Approx(90e9));
    CHECK(term(bw, "T_pattern") * term(bw, "load") == doctest::Approx(term(bw, "C_eff")));
  }

  TEST_CASE("explain coll: host staging on a dual RTX 4090, and why LL128 is not a candidate") {
    const Topology t = load("dual-4090");
    const Communicator comm(t, t.gpus());
    const CollectiveExplanation e =
        explain_collective(comm, collective_query(CollectiveOp::kAllReduce, 67108864));
    bool saw_ll128 = false;
    for (const TunerCandidate& c : e.candidates) {
      if (c.protocol != Protocol::kLL128) continue;
      saw_ll128 = true;
      CHECK_FALSE(c.eligible);
      CHECK(c.why_not ==
            "LL128 needs NVLink between the GPUs of a server (NCCL enables it only there)");
    }
    CHECK(saw_ll128);
    CHECK(e.analytic.bottleneck.kind == BottleneckKind::kHostStaging);
    // B_copy: 0.47 x NCCL's 24 GB/s for the Gen4 x16 legs (31.5 x 12 / 15.75) = 11.28 GB/s;
    // B_mem: the Ryzen 7000's two channels of DDR5-5200 (83.2 GB/s) / (2 x 2 GPUs) = 20.8;
    // one socket (no B_socket), no measurement (no B_measured): B_copy bounds it.
    const ExplainStep& bw = step(e.steps, "bandwidth term");
    CHECK(term(bw, "B_copy") == doctest::Approx(11.28e9));
    CHECK(term(bw, "B_mem") == doctest::Approx(20.8e9));
    CHECK(term(bw, "B_shm") == doctest::Approx(11.28e9));
    CHECK(std::none_of(bw.terms.begin(), bw.terms.end(), [](const ExplainTerm& x) {
      return x.symbol == "B_socket" || x.symbol == "B_measured";
    }));
  }

  TEST_CASE("explain coll: errors are coll's, and one rank has no flow step") {
    const Topology t = load("pcie-8gpu");
    const Communicator comm(t, t.gpus());
    CHECK_THROWS_WITH_AS(
        explain_collective(comm,
                           collective_query(CollectiveOp::kAllReduce, 1024, Algorithm::kNvls)),
        "linksim: error: algorithm 'nvls' is not available for allreduce on these 8 GPUs; "
        "expected one of: auto, ring",
        ConfigError);
    const Communicator one(t, {t.gpus().front()});
    const CollectiveExplanation e =
        explain_collective(one, collective_query(CollectiveOp::kAllReduce, 1024));
    CHECK_FALSE(e.flow.has_value());
    CHECK(e.flow_skipped == "nothing moves (one rank or an empty message)");
    CHECK(e.analytic.time_s ==
          coll_time_s(one, CollectiveOp::kAllReduce, 1024, SimMode::kAnalytic));
  }

  TEST_CASE("explain plan: the explained step is plan's, and its parts add up") {
    // Llama-3.1-8B training, tp=2 pp=2 dp=2 on a DGX H100, 8 micro-batches per pipeline.
    const Topology t = load("dgx-h100");
    PlanRequest r;
    r.model = ModelCatalog::builtin().get("llama3.1-8b");
    r.mode = PlanMode::kTrain;
    r.tp = 2;
    r.pp = 2;
    r.dp = 2;
    r.global_batch = 16;
    const PlanExplanation e = explain_plan(t, r);
    const PlanResult direct = plan(t, r);
    CHECK(e.plan.step_time_s == direct.step_time_s);
    CHECK(step(e.steps, "step time").result.value == direct.step_time_s);

    const ExplainStep& st = step(e.steps, "step time");
    CHECK(term(st, "compute") + term(st, "exposed") + term(st, "bubble") ==
          doctest::Approx(st.result.value).epsilon(1e-12));

    const ExplainStep& mm = step(e.steps, "compute: GEMMs and attention");
    CHECK(term(mm, "FLOPs") / (term(mm, "peak") * term(mm, "eff_achieved")) ==
          doctest::Approx(mm.result.value).epsilon(1e-9));
    const ExplainStep& mem = step(e.steps, "compute: memory-bound kernels");
    CHECK(term(mem, "bytes") > 0);
    CHECK(term(mem, "bytes") / (term(mem, "HBM") * term(mem, "eff_hbm")) ==
          doctest::Approx(mem.result.value).epsilon(1e-9));
    const ExplainStep& compute = step(e.steps, "compute");
    CHECK(term(compute, "t_matmul") + term(compute, "t_mem") + term(compute, "t_launch") +
              term(compute, "t_optimizer") ==
          doctest::Approx(compute.result.value).epsilon(1e-12));

    // Every communication's exposed part sums to the breakdown's exposed communication.
    const ExplainStep& exposed = step(e.steps, "exposed communication");
    double sum = 0;
    for (const ExplainTerm& x : exposed.terms) sum += x.value;
    CHECK(exposed.terms.size() == direct.comms.size());
    CHECK(sum == doctest::Approx(direct.breakdown.exposed_comm_s).epsilon(1e-12));

    // 1F1B bubble: (p - 1) / v x (f + b) = 1 x t_mb; fraction (2 - 1) / (8 + 2 - 1) = 1/9.
    const ExplainStep& bubble = step(e.steps, "pipeline bubble");
    CHECK(term(bubble, "m") == 8);
    CHECK(term(bubble, "fraction") == doctest::Approx(1.0 / 9.0));
    CHECK(bubble.result.value == doctest::Approx(term(bubble, "t_mb")).epsilon(1e-12));
    CHECK(bubble.result.value == direct.breakdown.bubble_s);

    // Amdahl: f = exposed / step; 1/f with compute infinitely fast; 1/(1-f) with no exposed
    // communication, and the speedup over the baseline scaled by the same.
    const double f = direct.breakdown.exposed_comm_s / direct.step_time_s;
    CHECK(e.exposed_fraction == doctest::Approx(f).epsilon(1e-12));
    CHECK(e.compute_speedup_bound == doctest::Approx(1 / f).epsilon(1e-12));
    CHECK(e.comm_free_speedup == doctest::Approx(1 / (1 - f)).epsilon(1e-12));
    REQUIRE(direct.speedup.has_value());
    REQUIRE(e.speedup_comm_hidden.has_value());
    CHECK(*e.speedup_comm_hidden == doctest::Approx(*direct.speedup / (1 - f)).epsilon(1e-12));
    CHECK(step(e.steps, "communication / compute").result.value == direct.comm_compute_ratio);
  }

  TEST_CASE("explain plan: decode has no bubble, and its step is plan's") {
    const Topology t = load("dgx-h100");
    PlanRequest r;
    r.model = ModelCatalog::builtin().get("llama3.1-70b");
    r.mode = PlanMode::kDecode;
    r.tp = 8;
    r.compute_baseline = false;
    const PlanExplanation e = explain_plan(t, r);
    CHECK(e.plan.step_time_s == plan(t, r).step_time_s);
    CHECK(step(e.steps, "pipeline bubble").result.value == 0);
    CHECK_FALSE(has_term(step(e.steps, "pipeline bubble"), "p"));
    CHECK_FALSE(e.speedup_comm_hidden.has_value());
  }

  TEST_CASE("explain plan: every GEMM of a decode layer with its shape, time and fraction") {
    // Llama-3.1-8B decode, one sequence, TP 8 on a DGX H100 (132 SMs, 3350 GB/s x 0.85).
    const Topology t = load("dgx-h100");
    PlanRequest r;
    r.model = ModelCatalog::builtin().get("llama3.1-8b");
    r.mode = PlanMode::kDecode;
    r.tp = 8;
    r.compute_baseline = false;
    const PlanExplanation e = explain_plan(t, r);
    const ExplainStep& layer = step(e.steps, "compute: the GEMMs of one layer's forward");
    std::vector<std::string> names;
    double sum = 0;
    for (const ExplainTerm& x : layer.terms) {
      names.push_back(x.symbol);
      sum += x.value;
    }
    CHECK(names == std::vector<std::string>{"QKV", "attention out", "FFN up/gate", "FFN down",
                                            "logits"});
    CHECK(layer.result.value == doctest::Approx(sum).epsilon(1e-12));
    // QKV: 1 x (4096 + 2 x 1024) / 8 = 768 x 4096. One row runs a 16-row tile: 3 tiles of 256
    // columns, split 8 ways along K (4096 / 512) = 24 units in one wave; the tensor cores
    // need 2 x 16 x 256 x 512 / (989.4e12 x 0.72 / 132) = 0.78 us, less than reading the
    // operands, (4096 + 768) x 2 + 4096 x 768 x 2 = 6,301,184 B. Fill and drain: 24 units load
    // a 64-deep K block of 1 row and 256 columns, 24 x 64 x (2 + 512) = 789,504 B, and store
    // 1 x 256 outputs, 24 x 512 = 12,288 B.
    const double hbm_Bps = 3350e9 * 0.85;
    const double qkv_s = (6301184.0 + 789504.0 + 12288.0) / hbm_Bps;
    CHECK(term(layer, "QKV") == doctest::Approx(qkv_s).epsilon(1e-9));
    const std::string& qkv = layer.terms.front().source;
    CHECK(qkv.rfind("M x N x K = 1 x 768 x 4096, ", 0) == 0);
    CHECK(qkv.find("memory-bound") != std::string::npos);
    // 2 x 768 x 4096 FLOPs in that time, of the 989.4 TFLOP/s peak.
    const PlanGemm& g = e.plan.compute.gemms.front();
    CHECK(g.achieved_efficiency ==
          doctest::Approx(2.0 * 768 * 4096 / (989.4e12 * qkv_s)).epsilon(1e-9));
    CHECK(qkv.find(fmt::format("{:.3g} of peak", g.achieved_efficiency)) != std::string::npos);
    // The head: 1 x 128256 / 8 = 16032 x 4096, also bound by its weights.
    CHECK(layer.terms.back().source.rfind("M x N x K = 1 x 16032 x 4096, ", 0) == 0);
  }

  TEST_CASE("explain plan: a training layer's GEMMs are compute-bound and near the ceiling") {
    // Llama-3.1-8B training, micro-batch 1 x 2048 tokens, no TP: QKV is 2048 x 6144 x 4096,
    // 16 x 24 = 384 tiles in 3 waves of 132 (0.97 of the last full), so it reaches at most
    // 0.72 x 384 / 396 of peak, and less by the fill and drain.
    const Topology t = load("dgx-h100");
    PlanRequest r;
    r.model = ModelCatalog::builtin().get("llama3.1-8b");
    r.mode = PlanMode::kTrain;
    r.dp = 8;
    r.compute_baseline = false;
    const PlanExplanation e = explain_plan(t, r);
    const PlanGemm& qkv = e.plan.compute.gemms.front();
    CHECK(qkv.name == "QKV");
    CHECK(qkv.m == 2048);
    CHECK(qkv.n == 6144);
    CHECK(qkv.k == 4096);
    CHECK_FALSE(qkv.memory_bound);
    CHECK(qkv.achieved_efficiency < 0.72 * 384 / 396);
    CHECK(qkv.achieved_efficiency > 0.9 * 0.72 * 384 / 396);
  }
}

}  // namespace linksim
