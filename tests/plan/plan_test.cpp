// SPDX-License-Identifier: Apache-2.0
// The planner on the library's machines: layout checks with their exact messages, the volumes
// of each collective, the pipeline schedule's invariants, the seed example, and the
// questions the planner exists to answer (fit, decode latency, PCIe against NVSwitch,
// scaling, search, sensitivity).
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>

#include "linksim/error.hpp"
#include "linksim/model.hpp"
#include "linksim/plan.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim {
namespace {

std::string topo_path(const std::string& name) {
  return std::string(LINKSIM_SOURCE_DIR) + "/topologies/" + name + ".yaml";
}

Topology load(const std::string& name, ParamOverrides sets = {}) {
  return load_topology(topo_path(name), sets);
}

PlanRequest request(const std::string& model, PlanMode mode) {
  PlanRequest r;
  r.model = ModelCatalog::builtin().get(model);
  r.mode = mode;
  r.compute_baseline = false;
  return r;
}

std::string error_of(const Topology& t, const PlanRequest& r) {
  try {
    plan(t, r);
  } catch (const ConfigError& e) {
    return e.message();
  }
  return "no error";
}

const PlanComm* find_comm(const PlanResult& p, const std::string& kind, const std::string& phase,
                          CollectiveOp op) {
  for (const PlanComm& c : p.comms) {
    if (c.kind == kind && c.phase == phase && c.collective == op) return &c;
  }
  return nullptr;
}

double exposed_of(const PlanResult& p, const std::string& kind) {
  double s = 0;
  for (const PlanComm& c : p.comms) {
    if (c.kind == kind) s += c.exposed_s;
  }
  return s;
}

}  // namespace

TEST_CASE("plan: invalid layouts are refused with the constraint and the numbers") {
  const Topology dgx = load("dgx-h100");
  PlanRequest r = request("llama3.1-70b", PlanMode::kTrain);
  SUBCASE("TP must divide the heads") {
    r.tp = 3;
    r.dp = 1;
    r.gpus.first_n = 3;
    CHECK(error_of(dgx, r) == "--tp 3 does not divide the model's 64 attention heads");
  }
  SUBCASE("the degrees must multiply to the GPUs selected") {
    r.tp = 2;
    r.dp = 2;
    r.gpus.first_n = 8;
    CHECK(error_of(dgx, r) == "TP x PP x CP x DP = 2 x 1 x 1 x 2 = 4 GPUs, but 8 GPUs are selected");
  }
  SUBCASE("no more GPUs than the topology has") {
    r.tp = 8;
    r.dp = 4;
    CHECK(error_of(dgx, r) == "TP x PP x CP x DP = 32 GPUs, but the topology has 8 GPUs");
  }
  SUBCASE("EP on a dense model") {
    r.tp = 8;
    r.ep = 2;
    CHECK(error_of(dgx, r) == "--ep 2 / --etp 1 on a dense model (Llama-3.1-70B has no experts)");
  }
  SUBCASE("PP beyond the layers") {
    PlanRequest small = request("llama3.1-8b", PlanMode::kTrain);
    small.model.layers = 4;
    small.pp = 8;
    CHECK(error_of(dgx, small) == "--pp 8 is larger than the model's 4 layers");
  }
  SUBCASE("model chunks: at most layers + 2, the embedding and the loss a chunk each") {
    // Megatron-LM --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split;
    // Llama 3 405B: 126 layers in 16 x 8 = 128 chunks (paper, section 3.3.2).
    PlanRequest small = request("llama3.1-8b", PlanMode::kTrain);
    small.model.layers = 4;
    small.pp = 2;
    small.dp = 2;
    small.vpp = 3;  // 6 chunks = 4 layers + embedding + loss
    CHECK(error_of(dgx, small) == "no error");
    small.vpp = 4;
    CHECK(error_of(dgx, small) ==
          "--pp 2 x --vpp 4 = 8 model chunks for 4 layers (at most layers + 2: the embedding and "
          "the loss may hold a chunk each)");
  }
  SUBCASE("global batch must divide by micro-batch x DP") {
    r.tp = 2;
    r.global_batch = 6;
    r.micro_batch = 1;
    CHECK(error_of(dgx, r) == "global batch 6 is not divisible by micro-batch x DP = 1 x 4 = 4");
  }
  SUBCASE("EP x ETP must divide TP x CP x DP") {
    PlanRequest moe = request("mixtral-8x7b", PlanMode::kTrain);
    moe.tp = 2;
    moe.dp = 2;
    moe.ep = 8;
    moe.gpus.first_n = 4;
    CHECK(error_of(dgx, moe) ==
          "EP x ETP = 8 x 1 = 8 does not divide TP x CP x DP = 4 (Megatron-Core folds expert "
          "parallelism over those ranks)");
  }
}

TEST_CASE("plan: TP AllReduce volumes of the seed example (70B, TP=4)") {
  // Prefill of 3 prompts of 2048 tokens: 6144 tokens x 8192 hidden x 2 B = 100,663,296 B per
  // AllReduce (about 100 MB), two per layer (after attention and after the FFN) over 80
  // layers: 160 calls, 16.1 GB per forward pass. At 32 GB/s that is about 0.5 s; at 450 GB/s
  // about 0.036 s. linksim adds the protocol, latency and the real route on each machine.
  PlanRequest r = request("llama3.1-70b", PlanMode::kPrefill);
  r.tp = 4;
  r.dp = 1;
  r.batch = 3;
  r.seq = 2048;
  const PlanResult pcie = plan(load("pcie-8gpu"), r);
  const PlanResult nvswitch = plan(load("dgx-h100"), r);
  for (const PlanResult* p : {&pcie, &nvswitch}) {
    const PlanComm* ar = find_comm(*p, "tp", "forward", CollectiveOp::kAllReduce);
    REQUIRE(ar != nullptr);
    CHECK(ar->bytes == 100663296.0);
    CHECK(ar->count == 160);
    CHECK(ar->group_size == 4);
  }
  const double pcie_tp_s = find_comm(pcie, "tp", "forward", CollectiveOp::kAllReduce)->time_s;
  const double nvl_tp_s = find_comm(nvswitch, "tp", "forward", CollectiveOp::kAllReduce)->time_s;
  // 16.1 GB through a ring of four PCIe Gen4 GPUs (~20 GB/s busbw at best) against NVSwitch
  // (~350+ GB/s busbw at 100 MB): an order of magnitude apart.
  CHECK(pcie_tp_s > 0.5);
  CHECK(nvl_tp_s < 0.1);
  CHECK(pcie_tp_s / nvl_tp_s > 8);
}

TEST_CASE("plan: the step is compute + exposed communication + bubble, bubble = (p-1)/(v m)") {
  PlanRequest r = request("llama3.1-8b", PlanMode::kTrain);
  r.tp = 2;
  r.pp = 2;
  r.dp = 2;
  r.global_batch = 16;  // m = 16 / (1 x 2) = 8 micro-batches per pipeline
  for (int vpp : {1, 2}) {
    CAPTURE(vpp);
    r.vpp = vpp;
    const PlanResult p = plan(load("dgx-h100"), r);
    const PlanBreakdown& b = p.breakdown;
    CHECK(p.step_time_s == doctest::Approx(b.compute_s + b.exposed_comm_s + b.bubble_s).epsilon(1e-12));
    // The pipelined part m (f + b) is what is left once the bubble, the once-per-step
    // communication, the SMs it holds while hidden and the optimizer are taken out.
    const double pipelined = p.step_time_s - b.bubble_s - exposed_of(p, "pp") - exposed_of(p, "dp") -
                             p.compute.comm_sm_s - p.compute.optimizer_s;
    const double m = 8;
    CHECK(b.bubble_s == doctest::Approx((2 - 1) / (vpp * m) * pipelined).epsilon(1e-9));
    CHECK(p.layout.micro_batches() == 8);
  }
}

TEST_CASE("plan: Llama-3.1-70B does not fit a dual RTX 4090 desktop, and says by how much") {
  PlanRequest r = request("llama3.1-70b", PlanMode::kDecode);
  r.tp = 2;
  r.kv_len = 4096;
  const PlanResult p = plan(load("dual-4090"), r);
  CHECK_FALSE(p.memory.fits);
  // 70.6e9 bf16 weights over two cards: 70.6 GB each against 24 GiB.
  CHECK(p.memory.weights == doctest::Approx(70.55e9).epsilon(0.02));
  CHECK(p.memory.capacity == doctest::Approx(24.0 * (1 << 30)));
  CHECK(p.memory.total - p.memory.capacity > 40e9);
  // Nothing on two 24 GiB cards holds it: no TP x PP suggestion fits.
  CHECK(p.smallest_fitting.empty());
}

TEST_CASE("plan: 70B TP=8 decode, NVSwitch against a PCIe tree") {
  PlanRequest r = request("llama3.1-70b", PlanMode::kDecode);
  r.tp = 8;
  r.batch = 1;
  r.kv_len = 2048;
  const PlanResult nvl = plan(load("dgx-h100"), r);
  const PlanResult pcie = plan(load("pcie-8gpu"), r);
  const PlanResult pcie_h100 = plan(load("pcie-8gpu", {{"gpu", "h100-pcie"}}), r);
  REQUIRE(nvl.tpot_s);
  REQUIRE(pcie.tpot_s);
  // Reading 70.6 GB / 8 of weights at 85 % of 3.35 TB/s takes 6.2 ms: the floor of a token.
  CHECK(*nvl.tpot_s > 6.2e-3);
  CHECK(*nvl.tpot_s < 12e-3);
  // 160 latency-bound AllReduces of 16 KiB: about 15 us each over NVSwitch, more through the
  // PCIe switches, host memory and the socket link (staged at 10 GB/s across the Ice Lake
  // sockets, docs/model.md#shm).
  const double nvl_tp_s = exposed_of(nvl, "tp");
  const double pcie_tp_s = exposed_of(pcie, "tp");
  CHECK(nvl_tp_s / *nvl.tpot_s > 0.1);
  CHECK(pcie_tp_s > 1.5 * nvl_tp_s);
  // The same GPU on both machines: the PCIe tree's share of the token is worse. (With
  // the default L40S the slower HBM stretches the compute as much as the PCIe tree stretches
  // the communication.)
  REQUIRE(pcie_h100.tpot_s);
  CHECK(exposed_of(pcie_h100, "tp") / *pcie_h100.tpot_s > nvl_tp_s / *nvl.tpot_s);
  CHECK(pcie_h100.comm_compute_ratio > nvl.comm_compute_ratio);
  const PlanComm* ar = find_comm(pcie, "tp", "forward", CollectiveOp::kAllReduce);
  REQUIRE(ar != nullptr);
  CHECK(ar->bytes == 8192 * 2);
  CHECK(ar->count == 160);
  CHECK(ar->bottleneck.find("socket link") != std::string::npos);
}

TEST_CASE("plan: the speedup curve of an 8B model on 1, 2, 4 and 8 GPUs of a DGX H100") {
  const Topology dgx = load("dgx-h100");
  SUBCASE("prefill fits one GPU: speedup against one GPU") {
    double last = 0;
    for (int n : {1, 2, 4, 8}) {
      CAPTURE(n);
      PlanRequest r = request("llama3.1-8b", PlanMode::kPrefill);
      r.compute_baseline = true;
      r.tp = n;
      r.dp = 1;
      r.batch = 8;
      r.seq = 4096;
      const PlanResult p = plan(dgx, r);
      REQUIRE(p.speedup);
      CHECK(p.baseline_gpus == 1);
      CHECK(*p.speedup > last);
      CHECK(*p.scaling_efficiency <= 1.0 + 1e-9);
      CHECK(*p.scaling_efficiency > 0.4);
      last = *p.speedup;
    }
    CHECK(last > 3);
  }
  SUBCASE("training needs sharded state: the baseline is the smallest fitting configuration") {
    // Adam with fp32 master weights is 16 B per parameter: 128 GB for 8B. One 80 GiB GPU cannot
    // hold it, nor can the requested ZeRO-3 pair of data-parallel GPUs with their activations
    // (it would need TP=1 PP=2 beside DP=2: 4 GPUs). The baseline is the same layout with the
    // smallest DP that fits: four ZeRO-3 replicas.
    std::optional<double> last;
    for (int n : {1, 2, 4, 8}) {
      CAPTURE(n);
      PlanRequest r = request("llama3.1-8b", PlanMode::kTrain);
      r.compute_baseline = true;
      r.gpus.first_n = n;
      r.global_batch = 64;
      r.zero = 3;
      r.seq = 4096;
      const PlanResult p = plan(dgx, r);
      if (n <= 2) {
        CHECK_FALSE(p.memory.fits);
        if (n == 1) CHECK_FALSE(p.speedup);
        if (n == 2) CHECK(p.smallest_fitting.rfind("tp=1 pp=2 (4 GPUs", 0) == 0);
        continue;
      }
      REQUIRE(p.speedup);
      CHECK(p.baseline_gpus == 4);
      CHECK(*p.scaling_efficiency <= 1.0 + 1e-9);
      if (last) CHECK(*p.speedup > *last);
      last = p.speedup;
    }
    REQUIRE(last);
    CHECK(*last > 1.6);
  }
}

TEST_CASE("plan: 405B pre-training on 64 DGX H100 servers, with search and sensitivity") {
  const Topology cluster = load("dgx-h100-ib", {{"nodes", "64"}});
  PlanRequest r = request("llama3.1-405b", PlanMode::kTrain);
  r.tp = 8;
  r.pp = 8;
  r.sp = true;
  r.seq = 8192;
  r.global_batch = 256;
  // Selective recompute would keep 126 layers' activations of 8k tokens on the first stage
  // (1F1B holds PP micro-batches of L/PP layers): 72 GB. Full recompute keeps layer inputs.
  r.recompute = Recompute::kFull;
  const PlanResult p = plan(cluster, r);
  CHECK(p.gpus == 512);
  CHECK(p.layout.dp == 8);
  CHECK(p.memory.fits);
  // Meta reports 38-43 % BF16 MFU for 405B on H100 (Llama 3 paper, table 4); a plan of this
  // shape lands in the same region.
  CHECK(p.mfu > 0.25);
  CHECK(p.mfu < 0.60);
  CHECK(find_comm(p, "dp", "step", CollectiveOp::kReduceScatter) != nullptr);
  CHECK(find_comm(p, "pp", "forward+backward", CollectiveOp::kSendRecv) != nullptr);

  const std::vector<SensitivityRow> rows = sensitivity(cluster, r);
  auto row = [&](const std::string& name) {
    auto it = std::find_if(rows.begin(), rows.end(), [&](const SensitivityRow& s) { return s.resource == name; });
    REQUIRE(it != rows.end());
    return *it;
  };
  CHECK(row("GPU FLOP/s").saving > 0.2);
  CHECK(row("NVLink").saving > 0);
  CHECK(row("NIC").saving >= 0);
  // NIC ports and switches doubled together save at least what either saves alone.
  CHECK(row("network (NIC and fabric)").saving >= row("NIC").saving - 1e-12);
  CHECK(row("network (NIC and fabric)").saving >= row("fabric").saving - 1e-12);
  for (const SensitivityRow& s : rows) CHECK(s.step_time_s <= p.step_time_s * (1 + 1e-12));
}

TEST_CASE("plan: a link class the plan does not use saves nothing when doubled") {
  // One server: no NIC or fabric carries a TP group inside it.
  PlanRequest r = request("llama3.1-8b", PlanMode::kDecode);
  r.tp = 8;
  r.batch = 8;
  const Topology dgx = load("dgx-h100");
  const PlanResult p = plan(dgx, r);
  for (const SensitivityRow& s : sensitivity(dgx, r)) {
    CAPTURE(s.resource);
    if (s.resource == "NIC" || s.resource == "fabric" || s.resource == "socket link") {
      CHECK(s.step_time_s == doctest::Approx(p.step_time_s).epsilon(1e-12));
    }
  }
}

TEST_CASE("plan: the search ranks every valid layout and names the winner") {
  PlanRequest r = request("llama3.1-8b", PlanMode::kTrain);
  r.global_batch = 32;
  r.seq = 4096;
  const std::vector<SearchCandidate> ranked = search_layouts(load("dgx-h100"), r);
  REQUIRE(!ranked.empty());
  CHECK(ranked.front().verdict == "best");
  CHECK(ranked.front().fits);
  for (size_t i = 0; i < ranked.size(); ++i) {
    CAPTURE(i);
    CHECK(ranked[i].layout.gpus() == 8);
    CHECK(!ranked[i].verdict.empty());
    if (i > 0 && ranked[i].fits) CHECK(ranked[i].tokens_per_s <= ranked[i - 1].tokens_per_s);
  }
}

TEST_CASE("plan: async TP overlap never makes a step slower and hides TP traffic") {
  PlanRequest r = request("llama3.1-70b", PlanMode::kTrain);
  r.tp = 8;
  r.sp = true;
  r.seq = 4096;
  r.global_batch = 8;
  r.recompute = Recompute::kFull;
  const Topology dgx = load("dgx-h100");
  const PlanResult exposed = plan(dgx, r);
  r.tp_overlap_async = true;
  const PlanResult hidden = plan(dgx, r);
  CHECK(hidden.step_time_s < exposed.step_time_s);
  CHECK(exposed_of(hidden, "tp") < exposed_of(exposed, "tp"));
  CHECK(hidden.comm_time_s == doctest::Approx(exposed.comm_time_s));
}

}  // namespace linksim

namespace linksim {
namespace {

TEST_CASE("plan: chunked prefill pipelines the prompt through the PP stages") {
  // Llama-3.1-8B on two RTX 4090s, one layer half each (PP = 2), a 16k prompt.
  const Topology desk = load("dual-4090");
  PlanRequest r = request("llama3.1-8b", PlanMode::kPrefill);
  r.pp = 2;
  r.seq = 16384;
  const PlanResult whole = plan(desk, r);
  const double whole_send_s = find_comm(whole, "pp", "forward", CollectiveOp::kSendRecv)->exposed_s;
  // Unchunked, the stages add up: sum_s T_s = TTFT - one send.
  const double sum_stages_s = whole.step_time_s - whole_send_s;
  CHECK(whole.breakdown.bubble_s == 0);

  r.prefill_chunk = 2048;  // n = 8 chunks
  const PlanResult chunked = plan(desk, r);
  const PlanComm* send = find_comm(chunked, "pp", "forward", CollectiveOp::kSendRecv);
  REQUIRE(send != nullptr);
  CHECK(send->bytes == doctest::Approx(16384.0 * 4096 * 2 / 8));  // one chunk's activations
  CHECK(send->count == 8);
  // The slowest stage's forward T_max is the compute plus exposed traffic other than the send.
  const double t_max_s = chunked.breakdown.compute_s + chunked.breakdown.exposed_comm_s - send->exposed_s;
  // docs/planner.md#chunked-prefill: sum_s T_s / n + (PP - 1) send(chunk) + (n - 1) T_max / n.
  CHECK(chunked.step_time_s ==
        doctest::Approx(sum_stages_s / 8 + send->exposed_s + 7 * t_max_s / 8).epsilon(1e-9));
  CHECK(chunked.step_time_s == doctest::Approx(chunked.breakdown.compute_s +
                                               chunked.breakdown.exposed_comm_s +
                                               chunked.breakdown.bubble_s));
  // Two stages of about half the work each: the pipelined prompt takes about 9/16 of the time.
  CHECK(chunked.step_time_s / whole.step_time_s == doctest::Approx(9.0 / 16).epsilon(0.05));
  // A chunk as long as the prompt is no chunking at all.
  r.prefill_chunk = 16384;
  CHECK(plan(desk, r).step_time_s == doctest::Approx(whole.step_time_s).epsilon(1e-12));
}

}  // namespace
}  // namespace linksim

namespace linksim {

TEST_CASE("plan: interleaved Megatron-Core overlaps the steady-state pipeline sends") {
  // overlap_p2p_comm (Megatron-LM, on unless --no-overlap-p2p-communication, interleaved only):
  // the 2 (p - 1) warm-up and flush sends are exposed, the 2 m v steady-state sends hide behind
  // a chunk's compute, far longer than one 16 MiB NVLink send here.
  PlanRequest r = request("llama3.1-8b", PlanMode::kTrain);
  r.tp = 2;
  r.pp = 2;
  r.dp = 2;
  r.vpp = 2;
  r.global_batch = 16;  // m = 8
  const Topology dgx = load("dgx-h100");
  const PlanResult megatron = plan(dgx, r);
  const PlanComm* send = find_comm(megatron, "pp", "forward+backward", CollectiveOp::kSendRecv);
  REQUIRE(send != nullptr);
  CHECK(send->count == doctest::Approx(2 * (8 * 2 + 2 - 1)));
  const double t = send->time_s / send->count;
  CHECK(send->exposed_s == doctest::Approx(2 * (2 - 1) * t).epsilon(1e-9));
  // torchtitan's pipelining has no such overlap here: every send exposed.
  r.framework = TrainFramework::kTorchtitan;
  const PlanResult titan = plan(dgx, r);
  const PlanComm* titan_send = find_comm(titan, "pp", "forward+backward", CollectiveOp::kSendRecv);
  REQUIRE(titan_send != nullptr);
  CHECK(titan_send->exposed_s == doctest::Approx(titan_send->time_s).epsilon(1e-12));
  // Without interleaving Megatron turns the overlap off (arguments.py): every send exposed.
  r.framework = TrainFramework::kMegatron;
  r.vpp = 1;
  const PlanResult plain = plan(dgx, r);
  const PlanComm* plain_send = find_comm(plain, "pp", "forward+backward", CollectiveOp::kSendRecv);
  REQUIRE(plain_send != nullptr);
  CHECK(plain_send->exposed_s == doctest::Approx(plain_send->time_s).epsilon(1e-12));
}

TEST_CASE("plan: Llama 3 405B's pre-training schedule, 16 stages of 8 one-layer chunks, ZeRO-2") {
  // The Llama 3 paper, section 3.3.2 and Table 4: TP 8, PP 16, DP 64 on 8192 H100, 32 sequences
  // of 8192 tokens per DP group, an interleaved schedule whose first chunk holds only the
  // embedding and last only the loss (126 layers + 2 = 16 x 8 chunks), optimizer states and
  // gradients sharded but parameters kept gathered (ZeRO stage 2), no activation checkpointing.
  PlanRequest r = request("llama3.1-405b", PlanMode::kTrain);
  r.tp = 8;
  r.pp = 16;
  r.dp = 64;
  r.vpp = 8;
  r.sp = true;
  r.zero = 2;
  r.seq = 8192;
  r.global_batch = 2048;
  r.recompute = Recompute::kNone;
  const PlanResult p = plan(load("dgx-h100-ib", {{"nodes", "1024"}}), r);
  CHECK(p.layout.micro_batches() == 32);
  // Bubble (PP - 1) / (V M) of the pipelined time: 15 / (8 x 32) of 32 (f + b) = 15/8 (f + b).
  CHECK(p.breakdown.bubble_s == doctest::Approx(15.0 / 8 * p.breakdown.microbatch_s).epsilon(1e-12));
  // One gradient reduce-scatter and one parameter all-gather a step, not one per micro-batch.
  const PlanComm* rs = find_comm(p, "dp", "step", CollectiveOp::kReduceScatter);
  REQUIRE(rs != nullptr);
  CHECK(rs->count == doctest::Approx(1));
  double gathers = 0;
  for (const PlanComm& c : p.comms) {
    if (c.kind == "dp" && c.collective == CollectiveOp::kAllGather) gathers += c.count;
  }
  CHECK(gathers == doctest::Approx(1));
}

}  // namespace linksim
