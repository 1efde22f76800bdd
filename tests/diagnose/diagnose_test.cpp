// SPDX-License-Identifier: Apache-2.0
// diagnose: one synthetic log per finding on a shipped machine, the shipped real logs with the
// conclusions their threads reached, and the cost as the engine's own run with the logged
// setting (the oracle is a Communicator built with that setting).
#include <doctest/doctest.h>
#include <fmt/core.h>

#include <algorithm>
#include <string>

#include "linksim/diagnose.hpp"
#include "linksim/diagnose_report.hpp"
#include "linksim/error.hpp"
#include "linksim/faults.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/model.hpp"
#include "linksim/nccl_log.hpp"
#include "linksim/plan.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/validation_data.hpp"

namespace {

using linksim::Diagnosis;
using linksim::FindingSeverity;

const std::string kTopologies = LINKSIM_SOURCE_DIR "/topologies/";

linksim::Topology machine(const std::string& file, const linksim::ParamOverrides& set = {}) {
  return linksim::load_topology(kTopologies + file, set);
}

Diagnosis run(const std::string& text, const linksim::Topology* topology) {
  const linksim::NcclLog log = linksim::parse_nccl_log(text, "test.log");
  linksim::DiagnoseRequest request;
  request.topology = topology;
  return linksim::diagnose(log, request);
}

const linksim::Finding* find(const Diagnosis& d, std::string_view key) {
  for (const linksim::Finding& f : d.findings) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

bool evidence_has(const linksim::Finding& f, std::string_view part) {
  return std::any_of(f.evidence.begin(), f.evidence.end(), [&](const linksim::NcclLogLine& l) {
    return l.text.find(part) != std::string::npos;
  });
}

// Eight ranks of one server, ring 0..7, with `body` lines after the version line.
std::string one_server(const std::string& version, const std::string& body) {
  std::string log = "dgx:100:200 [0] NCCL INFO NCCL version " + version + "\n";
  for (int r = 0; r < 8; ++r) {
    log += "dgx:100:20" + std::to_string(r) + " [" + std::to_string(r) + "] NCCL INFO comm 0x1 rank " +
           std::to_string(r) + " nranks 8 cudaDev " + std::to_string(r) + " nvmlDev " +
           std::to_string(r) + " busId " + std::to_string(r + 1) + "8000 commId 0x2 - Init COMPLETE\n";
  }
  return log + body;
}

// Two ranks, GPU 0 of servers a and b, joined by `transport` on channel 0 both ways.
std::string two_servers(const std::string& prefix_lines, const std::string& send_via) {
  return prefix_lines +
         "a:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n"
         "b:3:4 [0] NCCL INFO comm 0x1 rank 1 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n"
         "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via " + send_via + "\n"
         "b:3:4 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via " + send_via + "\n";
}

// The engine's busbw for AllReduce of `size` on `gpus` with `options`.
double busbw(const linksim::Topology& t, const std::vector<linksim::DeviceId>& gpus,
             const linksim::CommOptions& options, double size) {
  const linksim::Communicator comm(t, gpus, options);
  linksim::CollectiveQuery q;
  q.size_bytes = size;
  return comm.run(q).busbw_Bps;
}

}  // namespace

TEST_SUITE("diagnose") {

TEST_CASE("diagnose: a healthy DGX H100 log yields no fault") {
  const linksim::Topology t = machine("dgx-h100.yaml");
  std::string body;
  for (int r = 0; r < 8; ++r) {
    body += "dgx:100:20" + std::to_string(r) + " [" + std::to_string(r) + "] NCCL INFO Channel 00/0 : " +
            std::to_string(r) + "[" + std::to_string(r) + "] -> " + std::to_string((r + 1) % 8) + "[" +
            std::to_string((r + 1) % 8) + "] via P2P/CUMEM/read\n";
  }
  body += "dgx:100:200 [0] NCCL INFO 24 coll channels, 24 collnet channels, 16 nvls channels, 32 "
          "p2p channels, 32 p2p channels per peer\n";
  const Diagnosis d = run(one_server("2.29.2+cuda12.9", body), &t);
  CHECK_FALSE(d.has_fault());
  CHECK(d.ranks == 8);
  CHECK(d.nodes == 1);
  CHECK(d.channels == 24);
  CHECK(d.hops.size() == 8);
}

TEST_CASE("diagnose: p2p-disabled is a fault on NVLink GPUs, with evidence and the engine's cost") {
  // DGX A100: NVSwitch gen 2 without NVLS, so every size's AllReduce runs over P2P or SHM.
  const linksim::Topology t = machine("dgx-a100.yaml");
  const std::string body =
      "dgx:100:200 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n"
      "dgx:100:200 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n"
      "dgx:100:201 [1] NCCL INFO Channel 00 : 1[1] -> 2[2] via SHM/direct/direct\n";
  const Diagnosis d = run(one_server("2.21.5+cuda12.4", body), &t);
  const linksim::Finding* f = find(d, linksim::kFindingP2pDisabled);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kFault);
  CHECK(evidence_has(*f, "NCCL_P2P_DISABLE set by environment to 1."));
  CHECK(evidence_has(*f, "0[0] -> 1[1] via SHM/direct/direct"));
  REQUIRE(f->cost.has_value());
  CHECK(f->cost->setting == "NCCL_P2P_DISABLE=1");
  REQUIRE(f->cost->points.size() == 3);
  linksim::CommOptions best;
  best.nccl_version = {2, 21};
  linksim::CommOptions logged = best;
  logged.p2p_disable = true;
  const auto gpus = linksim::select_gpus(t, {});
  for (const linksim::CostPoint& p : f->cost->points) {
    CHECK(p.logged_busbw_Bps == doctest::Approx(busbw(t, gpus, logged, p.size_bytes)));
    CHECK(p.best_busbw_Bps == doctest::Approx(busbw(t, gpus, best, p.size_bytes)));
    CHECK(p.logged_busbw_Bps < p.best_busbw_Bps);
  }
}

TEST_CASE("diagnose: P2P turned off by the environment, with no connection line, is judged too") {
  // NCCL 2.11 reports NCCL_P2P_DISABLE=1 as NCCL_P2P_LEVEL=LOC (nccl#606).
  const std::string log = one_server("2.11.4+cuda11.1",
                                     "dgx:100:200 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC\n");
  const linksim::Topology a100 = machine("dgx-a100.yaml");
  const Diagnosis d = run(log, &a100);
  const linksim::Finding* f = find(d, linksim::kFindingP2pDisabled);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kFault);
  REQUIRE(f->evidence.size() == 1);
  CHECK(f->evidence[0].text == "dgx:100:200 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC");
  REQUIRE(f->cost.has_value());
  CHECK(f->cost->setting == "NCCL_P2P_LEVEL=LOC");
  CHECK(f->cost->points.back().logged_busbw_Bps < f->cost->points.back().best_busbw_Bps);
  const Diagnosis alone = run(log, nullptr);
  CHECK(find(alone, linksim::kFindingP2pDisabled)->severity == FindingSeverity::kInfo);
}

TEST_CASE("diagnose: SHM between GeForce cards without P2P is expected, without a cost") {
  const linksim::Topology t = machine("dual-4090.yaml");
  const Diagnosis d = run(
      "pc:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n"
      "pc:1:3 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/direct/direct\n", &t);
  const linksim::Finding* f = find(d, linksim::kFindingP2pDisabled);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kExpected);
  CHECK_FALSE(f->cost.has_value());
  CHECK_FALSE(d.has_fault());
}

TEST_CASE("diagnose: sockets where the machine has InfiniBand; info without a machine") {
  const linksim::Topology t = machine("dgx-h100-ib.yaml", {{"nodes", "2"}});
  const std::string log = two_servers("a:1:2 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n",
                                      "NET/Socket/0");
  const Diagnosis d = run(log, &t);
  const linksim::Finding* f = find(d, linksim::kFindingSocketInsteadOfIb);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kFault);
  CHECK(evidence_has(*f, "NCCL_IB_DISABLE"));
  CHECK(f->message.find("ib_ndr NICs (mlx5_0)") != std::string::npos);
  const Diagnosis alone = run(log, nullptr);
  CHECK(find(alone, linksim::kFindingSocketInsteadOfIb)->severity == FindingSeverity::kInfo);
  CHECK_FALSE(alone.has_fault());
}

TEST_CASE("diagnose: gdr-off where the GPU shares a PCIe switch with its NIC") {
  const linksim::Topology t = machine("dgx-h100-ib.yaml", {{"nodes", "2"}});
  const Diagnosis d = run(two_servers("", "NET/IB/0"), &t);
  const linksim::Finding* f = find(d, linksim::kFindingGdrOff);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kFault);
  CHECK(find(run(two_servers("", "NET/IB/0/GDRDMA"), &t), linksim::kFindingGdrOff) == nullptr);
}

TEST_CASE("diagnose: gdr-off is costed with the NIC legs staged through host memory") {
  const linksim::Topology t = machine("dgx-h100-ib.yaml", {{"nodes", "2"}});
  const Diagnosis d = run(two_servers("", "NET/IB/0"), &t);
  const linksim::Finding* f = find(d, linksim::kFindingGdrOff);
  REQUIRE(f != nullptr);
  REQUIRE(f->cost.has_value());
  CHECK(f->cost->setting == "GPUDirect RDMA off (NCCL_NET_GDR_LEVEL=LOC)");
  CHECK(f->cost->bound_note.empty());
  // The log's GPUs (GPU 0 of each server); no release in the log: linksim's default.
  const std::vector<linksim::DeviceId> gpus = {t.gpus()[0], t.gpus()[8]};
  linksim::CommOptions logged;
  logged.net_gdr_level = linksim::PathClass::kSelf;
  REQUIRE(f->cost->points.size() == 3);
  for (const linksim::CostPoint& p : f->cost->points) {
    CHECK(p.logged_busbw_Bps == doctest::Approx(busbw(t, gpus, logged, p.size_bytes)));
    CHECK(p.best_busbw_Bps == doctest::Approx(busbw(t, gpus, {}, p.size_bytes)));
  }
  // 1 GiB: the staged route's 22.56 GB/s (B_copy: 0.47 x NCCL's 48 GB/s for Gen5 x16) bounds
  // it; with GDR the NDR NIC's 48 GB/s.
  CHECK(f->cost->points.back().logged_busbw_Bps <= 22.56e9);
  CHECK(f->cost->points.back().best_busbw_Bps > 2 * f->cost->points.back().logged_busbw_Bps);
  // A level below PXB in the log is the setting costed.
  const Diagnosis pix = run(
      two_servers("a:1:2 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to LOC\n", "NET/IB/0"), &t);
  CHECK(find(pix, linksim::kFindingGdrOff)->cost->setting == "NCCL_NET_GDR_LEVEL=LOC");
}

TEST_CASE("diagnose: socket-instead-of-ib is costed as NCCL's host-memory socket transport") {
  const linksim::Topology t = machine("dgx-h100-ib.yaml", {{"nodes", "2"}});
  const Diagnosis d = run(
      two_servers("a:1:2 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n", "NET/Socket/0"), &t);
  const linksim::Finding* f = find(d, linksim::kFindingSocketInsteadOfIb);
  REQUIRE(f != nullptr);
  REQUIRE(f->cost.has_value());
  CHECK(f->cost->setting == "NCCL_IB_DISABLE=1 (NET/Socket)");
  CHECK(f->cost->bound_note.find("upper bound") != std::string::npos);
  CHECK(f->cost->logged_options.net_socket);
  const std::vector<linksim::DeviceId> gpus = {t.gpus()[0], t.gpus()[8]};
  linksim::CommOptions logged;
  logged.net_socket = true;
  for (const linksim::CostPoint& p : f->cost->points) {
    CHECK(p.logged_busbw_Bps == doctest::Approx(busbw(t, gpus, logged, p.size_bytes)));
    CHECK(p.logged_busbw_Bps < p.best_busbw_Bps);
  }
  // Both NIC legs host-staged: at most B_copy, 0.47 x NCCL's 48 GB/s for Gen5 x16.
  CHECK(f->cost->points.back().logged_busbw_Bps <= 22.56e9);
  // Without a variable in the log, the transport alone names the setting.
  const Diagnosis bare = run(two_servers("", "NET/Socket/0"), &t);
  CHECK(find(bare, linksim::kFindingSocketInsteadOfIb)->cost->setting == "NET/Socket");
}

TEST_CASE("diagnose: with a plan, each costed fault gives its step time against the best") {
  const linksim::Topology t = machine("dgx-a100-ib.yaml", {{"nodes", "2"}});
  const linksim::NcclLog log = linksim::read_nccl_log(
      linksim::testing::validation_file("nccl-logs/03-sxm8x2-2node-p2plevel-shm-socket-nccltests166.log"));
  linksim::PlanRequest plan;
  plan.model = linksim::ModelCatalog::builtin().get("llama3.1-70b", "--model");
  plan.mode = linksim::PlanMode::kTrain;
  plan.tp = 8;
  plan.pp = 2;
  linksim::DiagnoseRequest request;
  request.topology = &t;
  request.plan = plan;
  const Diagnosis d = linksim::diagnose(log, request);
  const linksim::Finding* p2p = find(d, linksim::kFindingP2pDisabled);
  REQUIRE(p2p != nullptr);
  REQUIRE(p2p->cost.has_value());
  REQUIRE(p2p->cost->plan.has_value());
  const linksim::PlanCost& pc = *p2p->cost->plan;
  CHECK(pc.mode == linksim::PlanMode::kTrain);
  CHECK(pc.layout == "tp=8 pp=2 dp=1");
  // The oracle: the planner itself with each side's set-up (the log states no release).
  linksim::PlanRequest best = plan;
  best.comm = linksim::CommOptions{};
  linksim::PlanRequest logged = plan;
  logged.comm = p2p->cost->logged_options;
  CHECK(pc.best_s == doctest::Approx(linksim::plan(t, best).step_time_s));
  REQUIRE(pc.logged_s.has_value());
  CHECK(*pc.logged_s == doctest::Approx(linksim::plan(t, logged).step_time_s));
  CHECK(*pc.logged_s > pc.best_s);
  const linksim::Finding* socket = find(d, linksim::kFindingSocketInsteadOfIb);
  REQUIRE(socket->cost->plan.has_value());
  CHECK(*socket->cost->plan->logged_s >= socket->cost->plan->best_s);
  const std::string json = linksim::render_diagnosis_json(d);
  CHECK(json.find("\"metric\": \"step_time\"") != std::string::npos);
  CHECK(linksim::render_diagnosis_text(d).find("plan (Llama-3.1-70B train, tp=8 pp=2 dp=1, step time): ") !=
        std::string::npos);

  // Decode: the time per output token.
  plan.mode = linksim::PlanMode::kDecode;
  request.plan = plan;
  const Diagnosis decode = linksim::diagnose(log, request);
  const linksim::PlanCost& tpot = *find(decode, linksim::kFindingP2pDisabled)->cost->plan;
  CHECK(tpot.mode == linksim::PlanMode::kDecode);
  linksim::PlanRequest decode_best = plan;
  decode_best.comm = linksim::CommOptions{};
  CHECK(tpot.best_s == doctest::Approx(*linksim::plan(t, decode_best).tpot_s));
  CHECK(linksim::render_diagnosis_json(decode).find("\"metric\": \"tpot\"") != std::string::npos);

  // A plan the machine cannot run is the request's error.
  plan.tp = 3;
  request.plan = plan;
  CHECK_THROWS_AS(linksim::diagnose(log, request), linksim::ConfigError);
}

TEST_CASE("diagnose: a logged setting the machine cannot run is a fault without busbw, not an error") {
  // GB200 NVL72: the trays' Grace CPUs are not linked, so with P2P off two GPUs of different
  // trays have no way to each other (docs/model.md#p2p-disable).
  const linksim::Topology t = machine("gb200-nvl72.yaml");
  const Diagnosis d = run(one_server("2.21.5+cuda12.4",
                                     "dgx:100:200 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n"),
                          &t);
  const linksim::Finding* f = find(d, linksim::kFindingP2pDisabled);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kFault);
  REQUIRE(f->cost.has_value());
  CHECK(f->cost->points.empty());
  CHECK(f->cost->bound_note.rfind("the engine cannot run the logged setting on this machine: no path from ", 0) == 0);
  CHECK(linksim::render_diagnosis_text(d).find("cost (allreduce, NCCL_P2P_DISABLE=1): none computed") !=
        std::string::npos);
}

TEST_CASE("diagnose: its faults are what accept --log weighs a shortfall against") {
  const linksim::Topology t = machine("dgx-a100-ib.yaml", {{"nodes", "2"}});
  linksim::DiagnoseRequest request;
  request.topology = &t;
  const Diagnosis d = linksim::diagnose(
      linksim::read_nccl_log(linksim::testing::validation_file(
          "nccl-logs/03-sxm8x2-2node-p2plevel-shm-socket-nccltests166.log")),
      request);
  const std::vector<linksim::LoggedSuspect> suspects = linksim::logged_suspects(d);
  REQUIRE(suspects.size() == 2);
  CHECK(suspects[0].key == "p2p-disabled");
  CHECK(suspects[1].key == "socket-instead-of-ib");
  REQUIRE(suspects[0].options.has_value());
  CHECK(suspects[0].options->p2p_disable);
  REQUIRE(suspects[1].options.has_value());
  CHECK(suspects[1].options->net_socket);
  CHECK(suspects[0].words.find("03-sxm8x2-2node-p2plevel-shm-socket-nccltests166.log line ") !=
        std::string::npos);
  CHECK(linksim::logged_suspects(Diagnosis{}).empty());
}

TEST_CASE("diagnose: wrong-nic names the NIC from NCCL's own device list, and costs it") {
  const linksim::Topology t = machine("dgx-h100-ib.yaml", {{"nodes", "2"}});
  const std::string nics = "a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB ; OOB "
                           "ib0:10.0.0.1<0>\n";
  const Diagnosis d = run(two_servers(nics, "NET/IB/1/GDRDMA"), &t);
  const linksim::Finding* f = find(d, linksim::kFindingWrongNic);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kFault);
  CHECK(f->message.find("host0:gpu0 uses mlx5_3 where its nearest NIC is mlx5_0") != std::string::npos);
  REQUIRE(f->cost.has_value());
  CHECK(f->cost->setting == "NCCL_IB_HCA==mlx5_3");
  // NIC 0 is mlx5_0: the GPU's own.
  CHECK(find(run(two_servers(nics, "NET/IB/0/GDRDMA"), &t), linksim::kFindingWrongNic) == nullptr);
  // Without NCCL's device list the index names no NIC: nothing is judged.
  CHECK(find(run(two_servers("", "NET/IB/1/GDRDMA"), &t), linksim::kFindingWrongNic) == nullptr);
}

TEST_CASE("diagnose: fewer-channels is a fault when the environment caps them, else info") {
  const linksim::Topology t = machine("dgx-a100.yaml");
  const std::string counts = "dgx:100:200 [0] NCCL INFO 2 coll channels, 0 collnet channels, 16 nvls "
                             "channels, 32 p2p channels, 32 p2p channels per peer\n";
  const Diagnosis capped = run(
      one_server("2.21.5+cuda12.4",
                 "dgx:100:200 [0] NCCL INFO NCCL_MAX_NCHANNELS set by environment to 2.\n" + counts), &t);
  const linksim::Finding* f = find(capped, linksim::kFindingFewerChannels);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kFault);
  REQUIRE(f->cost.has_value());
  CHECK(f->cost->setting == "2 channels");
  linksim::CommOptions logged;
  logged.nccl_version = {2, 21};
  logged.channels = 2;
  const auto gpus = linksim::select_gpus(t, {});
  for (const linksim::CostPoint& p : f->cost->points) {
    CHECK(p.logged_busbw_Bps == doctest::Approx(busbw(t, gpus, logged, p.size_bytes)));
  }
  const Diagnosis uncapped = run(one_server("2.21.5+cuda12.4", counts), &t);
  CHECK(find(uncapped, linksim::kFindingFewerChannels)->severity == FindingSeverity::kInfo);
}

TEST_CASE("diagnose: a ring crossing the sockets more often than NCCL's is a fault") {
  const linksim::Topology t = machine("pcie-8gpu.yaml");
  const Diagnosis zigzag = run(one_server("2.21.5+cuda12.4",
                                          "dgx:100:200 [0] NCCL INFO Channel 00/02 : 0 4 1 5 2 6 3 7\n"), &t);
  const linksim::Finding* f = find(zigzag, linksim::kFindingRingCrossesSocket);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kFault);
  CHECK(f->message.find("up to 8 times where NCCL's rings on this machine cross 2 times") !=
        std::string::npos);
  const Diagnosis straight = run(one_server("2.21.5+cuda12.4",
                                            "dgx:100:200 [0] NCCL INFO Channel 00/02 : 0 1 2 3 4 5 6 7\n"), &t);
  CHECK(find(straight, linksim::kFindingRingCrossesSocket)->severity == FindingSeverity::kExpected);
}

TEST_CASE("diagnose: nvls-off on NVSwitch gen-3 GPUs is a fault costed with NVLS disabled") {
  const linksim::Topology t = machine("dgx-h100.yaml");
  const Diagnosis d = run(
      one_server("2.21.5+cuda12.4",
                 "dgx:100:200 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.\n"
                 "dgx:100:200 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, "
                 "32 p2p channels, 32 p2p channels per peer\n"), &t);
  const linksim::Finding* f = find(d, linksim::kFindingNvlsOff);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kFault);
  REQUIRE(f->cost.has_value());
  CHECK(f->cost->points.back().logged_busbw_Bps < f->cost->points.back().best_busbw_Bps);
  // On PCIe GPUs there is no NVLS to lose.
  const linksim::Topology pcie = machine("pcie-8gpu.yaml");
  CHECK(find(run(one_server("2.21.5+cuda12.4",
                            "dgx:100:200 [0] NCCL INFO 2 coll channels, 0 collnet channels, 0 nvls "
                            "channels, 2 p2p channels, 2 p2p channels per peer\n"), &pcie),
             linksim::kFindingNvlsOff) == nullptr);
}

TEST_CASE("diagnose: pxn disabled where NCCL's rings use it; PXN in use is info") {
  const linksim::Topology t = machine("dgx-h100-ib.yaml", {{"nodes", "2"}});
  const Diagnosis off = run(two_servers("a:1:2 [0] NCCL INFO NCCL_PXN_DISABLE set by environment to 1.\n",
                                        "NET/IB/0/GDRDMA"), &t);
  const linksim::Finding* f = find(off, linksim::kFindingPxn);
  REQUIRE(f != nullptr);
  // Two ranks on GPU 0 of each server: their own NICs are the rail; no ring needs PXN.
  CHECK(f->severity == FindingSeverity::kInfo);
  const Diagnosis used = run(two_servers("", "NET/IB/0(1)/GDRDMA"), nullptr);
  REQUIRE(find(used, linksim::kFindingPxn) != nullptr);
  CHECK(find(used, linksim::kFindingPxn)->severity == FindingSeverity::kInfo);
}

TEST_CASE("diagnose: version-old is a fault before NVLS on an NVLS machine, info elsewhere") {
  const linksim::Topology h100 = machine("dgx-h100.yaml");
  const Diagnosis old_release = run(one_server("2.16.5+cuda11.8", ""), &h100);
  const linksim::Finding* f = find(old_release, linksim::kFindingVersionOld);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kFault);
  REQUIRE(f->cost.has_value());
  CHECK(f->cost->setting == "NCCL 2.16");
  const linksim::Topology pcie = machine("pcie-8gpu.yaml");
  const Diagnosis on_pcie = run(one_server("2.16.5+cuda11.8", ""), &pcie);
  CHECK(find(on_pcie, linksim::kFindingVersionOld)->severity == FindingSeverity::kInfo);
}

TEST_CASE("diagnose: host-platform holds NCCL's CPU codes against the topology's CPU") {
  const std::string cpu_line = "dgx:100:200 [0] NCCL INFO CPU/0-0 (1/1/3)\n";
  // DGX H100: Sapphire Rapids, as the 2.26 codes say: no finding; the facts name it.
  const linksim::Topology h100 = machine("dgx-h100.yaml");
  const Diagnosis same = run(one_server("2.26.2+cuda12.8", cpu_line), &h100);
  CHECK(find(same, linksim::kFindingHostPlatform) == nullptr);
  CHECK(same.host_cpu == "x86 Intel, NCCL's Sapphire Rapids class");
  CHECK(same.host_cpu_platform == "intel-sapphire-rapids");
  CHECK(linksim::render_diagnosis_text(same).find(
            "host CPU (NCCL's topology dump): x86 Intel, NCCL's Sapphire Rapids class (platform "
            "intel-sapphire-rapids)\n") != std::string::npos);
  CHECK(linksim::render_diagnosis_json(same).find(
            "\"host_cpu\": {\n    \"description\": \"x86 Intel, NCCL's Sapphire Rapids class\",\n"
            "    \"platform\": \"intel-sapphire-rapids\"\n  }") != std::string::npos);
  // A 2.21 log's Skylake code fits Sapphire Rapids too (that release has no later class).
  const Diagnosis older = run(
      one_server("2.21.5+cuda12.4", "dgx:100:200 [0] NCCL INFO CPU/0-0 (1/1/2)\n"), &h100);
  CHECK(find(older, linksim::kFindingHostPlatform) == nullptr);
  CHECK(older.host_cpu_platform.empty());
  // The same codes against Ice Lake (pcie-8gpu): NCCL's socket figure differs, 22 against 10.
  const linksim::Topology pcie = machine("pcie-8gpu.yaml");
  const Diagnosis other = run(one_server("2.26.2+cuda12.8", cpu_line), &pcie);
  const linksim::Finding* f = find(other, linksim::kFindingHostPlatform);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kFault);
  CHECK_FALSE(f->cost.has_value());
  CHECK(evidence_has(*f, "CPU/0-0 (1/1/3)"));
  CHECK(f->message.find("describes Intel Xeon Scalable gen 3 (Ice Lake-SP) (intel-ice-lake)") !=
        std::string::npos);
  // An AMD code against an Intel machine; an Intel code against a machine of unknown CPU.
  const Diagnosis amd =
      run(one_server("2.26.2+cuda12.8", "dgx:100:200 [0] NCCL INFO CPU/0-0 (1/2/-1)\n"), &pcie);
  CHECK(find(amd, linksim::kFindingHostPlatform)->severity == FindingSeverity::kFault);
  const linksim::Topology a40 = machine("a40-8gpu-nvlink-pairs.yaml");
  const Diagnosis unknown = run(one_server("2.26.2+cuda12.8", cpu_line), &a40);
  const linksim::Finding* info = find(unknown, linksim::kFindingHostPlatform);
  REQUIRE(info != nullptr);
  CHECK(info->severity == FindingSeverity::kInfo);
  CHECK(info->message.find("does not name its CPU (generic): platform: intel-sapphire-rapids "
                           "describes it") != std::string::npos);
  // Without a machine the codes are a fact, not a finding.
  const Diagnosis alone = run(one_server("2.26.2+cuda12.8", cpu_line), nullptr);
  CHECK(find(alone, linksim::kFindingHostPlatform) == nullptr);
  CHECK(alone.host_cpu_platform == "intel-sapphire-rapids");
}

TEST_CASE("diagnose: pcie-link holds NCCL's count of each GPU's PCIe link against the topology's") {
  // pcie-8gpu: every GPU on a Gen4 x16 link, NCCL's 24.0 GB/s (31.5 x 12 / 15.75).
  const linksim::Topology pcie = machine("pcie-8gpu.yaml");
  const auto dump = [](double bw0, double bw5) {
    return fmt::format("dgx:100:200 [0] NCCL INFO   + PCI[{:.1f}] - GPU/0-18000 (0)\n"
                       "dgx:100:200 [0] NCCL INFO   + PCI[24.0] - GPU/0-28000 (1)\n"
                       "dgx:100:200 [0] NCCL INFO   + PCI[{:.1f}] - GPU/0-68000 (5)\n",
                       bw0, bw5);
  };
  CHECK(find(run(one_server("2.26.2+cuda12.8", dump(24.0, 24.0)), &pcie),
             linksim::kFindingPcieLink) == nullptr);
  // GPU 5 in a Gen4 x8 slot: NCCL counts 12.0.
  const Diagnosis slow = run(one_server("2.26.2+cuda12.8", dump(24.0, 12.0)), &pcie);
  const linksim::Finding* f = find(slow, linksim::kFindingPcieLink);
  REQUIRE(f != nullptr);
  CHECK(f->severity == FindingSeverity::kFault);
  CHECK(f->message.find("1 GPU PCIe link slower than the topology describes: GPU5 (rank 5, bus "
                        "68000) 12.0 GB/s against 24.0 (pcie4 x16)") != std::string::npos);
  REQUIRE(f->evidence.size() == 1);
  CHECK(evidence_has(*f, "PCI[12.0] - GPU/0-68000 (5)"));
  // Its cost: the machine with that link at the raw rate of NCCL's 12.0 (15.75 GB/s), the
  // oracle the same run by hand.
  REQUIRE(f->cost.has_value());
  CHECK(f->cost->setting == "--degrade gpu5~pciesw2:speed=15.75GB/s");
  const linksim::Topology degraded =
      linksim::with_degraded(pcie, "gpu5~pciesw2:speed=15.75GB/s");
  const linksim::Communicator by_hand(degraded, degraded.gpus());
  linksim::CollectiveQuery q;
  q.op = linksim::CollectiveOp::kAllReduce;
  q.size_bytes = 1 << 30;
  REQUIRE(f->cost->points.size() == 3);
  CHECK(f->cost->points[2].logged_busbw_Bps == doctest::Approx(by_hand.run(q).busbw_Bps));
  CHECK(f->cost->points[2].logged_busbw_Bps < f->cost->points[2].best_busbw_Bps);
  // A Gen5 link where the topology says Gen4: the topology understates it.
  const Diagnosis fast = run(one_server("2.26.2+cuda12.8", dump(48.0, 24.0)), &pcie);
  CHECK(find(fast, linksim::kFindingPcieLink)->severity == FindingSeverity::kInfo);
  // Without a machine there is nothing to hold the links against.
  CHECK(find(run(one_server("2.26.2+cuda12.8", dump(24.0, 12.0)), nullptr),
             linksim::kFindingPcieLink) == nullptr);
}

TEST_CASE("diagnose: a log naming GPUs the machine lacks is refused") {
  const linksim::Topology t = machine("dual-4090.yaml");
  CHECK_THROWS_WITH_AS(run(one_server("2.21.5+cuda12.4", ""), &t),
                       "linksim: error: the log puts rank 2 on GPU 2 of node 0; the topology "
                       "'dual-4090' has no such GPU",
                       linksim::ConfigError);
}

TEST_CASE("diagnose: 03 (nccl-tests#166) names p2p-disabled with evidence and cost") {
  // Two 8-GPU NVLink servers; the thread's diagnosis: NCCL_P2P_LEVEL disabled P2P (SHM inside
  // each server) and the servers talk over sockets.
  const linksim::Topology t = machine("dgx-a100-ib.yaml");
  const linksim::NcclLog log = linksim::read_nccl_log(
      linksim::testing::validation_file("nccl-logs/03-sxm8x2-2node-p2plevel-shm-socket-nccltests166.log"));
  linksim::DiagnoseRequest request;
  request.topology = &t;
  const Diagnosis d = linksim::diagnose(log, request);
  const linksim::Finding* p2p = find(d, linksim::kFindingP2pDisabled);
  REQUIRE(p2p != nullptr);
  CHECK(p2p->severity == FindingSeverity::kFault);
  CHECK(evidence_has(*p2p, "6[6] -> 7[7] via SHM/direct/direct"));
  REQUIRE(p2p->cost.has_value());
  CHECK(p2p->cost->points.back().logged_busbw_Bps < p2p->cost->points.back().best_busbw_Bps / 4);
  CHECK(find(d, linksim::kFindingSocketInsteadOfIb)->severity == FindingSeverity::kFault);
  const std::string json = linksim::render_diagnosis_json(d);
  CHECK(json.find("\"key\": \"p2p-disabled\"") != std::string::npos);
}

TEST_CASE("diagnose: the shipped healthy logs yield no fault from the log alone") {
  for (const std::string& path : linksim::testing::validation_files("nccl-logs")) {
    CAPTURE(path);
    const Diagnosis d = linksim::diagnose(linksim::read_nccl_log(path), {});
    CHECK_FALSE(d.has_fault());
  }
}

}  // TEST_SUITE
