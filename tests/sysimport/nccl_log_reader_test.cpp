// SPDX-License-Identifier: Apache-2.0
// The NCCL log reader: the line formats of NCCL 2.10 to today, launcher prefixes, the shipped
// real logs with the facts their threads state, and the refusals of what is not a log.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "linksim/error.hpp"
#include "linksim/nccl_log.hpp"
#include "linksim/routing.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/validation_data.hpp"

namespace {

using linksim::NcclLog;
using linksim::NcclLogTransport;

NcclLog parse(const std::string& text) { return linksim::parse_nccl_log(text, "test.log"); }

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const linksim::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

size_t count_transport(const NcclLog& log, NcclLogTransport t) {
  return static_cast<size_t>(std::count_if(log.hops.begin(), log.hops.end(),
                                           [t](const linksim::NcclLogHop& h) { return h.transport == t; }));
}

NcclLog shipped(const std::string& name) {
  return linksim::read_nccl_log(linksim::testing::validation_file("nccl-logs/" + name));
}

}  // namespace

TEST_SUITE("nccl_log") {

TEST_CASE("nccl log: each release's connection line, with its transport and device numbering") {
  const NcclLog log = parse(
      // 2.10: no connection index, bus ids in the brackets.
      "h:1:2 [0] NCCL INFO Channel 00 : 0[1b000] -> 1[1c000] via P2P/IPC/read\n"
      // 2.12-2.16: connection index, bus ids; PXN proxy and GDR on a send.
      "h:1:2 [0] NCCL INFO Channel 01/0 : 0[1b000] -> 8[1b000] [send] via NET/IB/3(1)/GDRDMA\n"
      // 2.18+: NVML device numbers; CUMEM; SHM; sockets; receive; the OFI plugin.
      "h:1:2 [1] NCCL INFO Channel 02/0 : 1[1] -> 2[2] via P2P/CUMEM/read\n"
      "h:1:2 [2] NCCL INFO Channel 03 : 2[2] -> 3[3] via SHM/direct/direct\n"
      "h:1:2 [3] NCCL INFO Channel 04/0 : 8[0] -> 3[3] [receive] via NET/Socket/1\n"
      "h:1:2 [3] NCCL INFO Channel 05/0 : 3[3] -> 9[1] [send] via NET/AWS Libfabric/2/GDRDMA\n"
      "h:1:2 [4] NCCL INFO Channel 06/1 : 4[4] -> 5[5] via P2P/direct pointer\n"
      "h:1:2 [4] NCCL INFO CollNet 00/0 : 4 [send] via COLLNET/IBext/0/GDRDMA\n");
  REQUIRE(log.hops.size() == 8);
  CHECK(log.hops[0].transport == NcclLogTransport::kP2pIpc);
  CHECK(log.hops[0].read);
  CHECK(log.rank(0)->bus_id == "1b000");
  CHECK(log.hops[1].transport == NcclLogTransport::kNetIb);
  CHECK(log.hops[1].gdr);
  CHECK(log.hops[1].net_dev == 3);
  CHECK(log.hops[1].proxy_rank == 1);
  CHECK(log.hops[2].transport == NcclLogTransport::kP2pCumem);
  CHECK(log.rank(1)->nvml_dev == 1);
  CHECK(log.hops[3].transport == NcclLogTransport::kShm);
  CHECK(log.hops[4].transport == NcclLogTransport::kNetSocket);
  CHECK(log.hops[4].receive);
  CHECK_FALSE(log.hops[4].gdr);
  CHECK(log.hops[5].transport == NcclLogTransport::kNetOfi);
  CHECK(log.hops[6].transport == NcclLogTransport::kP2pDirect);
  CHECK(log.hops[6].channel == 6);
  CHECK(log.hops[7].transport == NcclLogTransport::kCollNet);
  CHECK_FALSE(log.hops[7].to_rank.has_value());
}

TEST_CASE("nccl log: launcher prefixes are removed before NCCL's header") {
  const NcclLog log = parse(
      "[1,0]<stdout>:a:10:11 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
      "[3]<stderr>:a:10:12 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/IB/1\n"
      "2: b:20:21 [0] NCCL INFO Channel 00/0 : 2[0] -> 3[1] via P2P/IPC\n"
      "[rank3]: b:20:22 [1] NCCL INFO Channel 00/0 : 3[1] -> 0[0] [send] via NET/IB/0\n"
      "[default0]:NCCL version 2.21.5+cuda12.4\n"
      "epoch 1 loss 0.25\n");
  REQUIRE(log.hops.size() == 4);
  CHECK(log.rank(0)->host == "a");
  CHECK(log.rank(0)->pid == 10);
  CHECK(log.rank(2)->host == "b");
  CHECK(log.rank(3)->host == "b");
  CHECK(log.version == "2.21.5+cuda12.4");
  const NcclLog::Nodes nodes = log.node_map();
  CHECK(nodes.count == 2);
  CHECK(nodes.node_of_rank == std::vector<int>{0, 0, 1, 1});
}

TEST_CASE("nccl log: rings, trees, channel counts, comm lines and the environment") {
  const NcclLog log = parse(
      "h:1:2 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC\n"
      "h:1:2 [0] NCCL INFO NCCL_MAX_NCHANNELS set by environment to 4.\n"
      "h:1:2 [0] NCCL INFO comm 0x55d rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL 0\n"
      "h:1:2 [0] NCCL INFO Channel 00/02 :    0   1   2   3\n"
      "h:1:2 [0] NCCL INFO Channel 01/02 : 0 3 2 1\n"
      "h:1:2 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 3/2/-1->0->1\n"
      "h:1:2 [0] NCCL INFO 2 coll channels, 0 collnet channels, 0 nvls channels, 4 p2p channels, "
      "1 p2p channels per peer\n"
      "h:1:2 [0] NCCL INFO ncclCommInitRank comm 0x55d rank 0 nranks 4 cudaDev 0 nvmlDev 2 busId "
      "18000 commId 0x1 - Init COMPLETE\n");
  CHECK(log.env_var("NCCL_P2P_LEVEL")->value == "LOC");
  CHECK(log.env_var("NCCL_MAX_NCHANNELS")->value == "4");
  CHECK(log.ranks->value == 4);
  CHECK(log.nodes->value == 1);
  REQUIRE(log.rings.size() == 2);
  CHECK(log.rings[1].ranks == std::vector<int>{0, 3, 2, 1});
  CHECK(log.ring_channels->value == 2);
  REQUIRE(log.trees.size() == 2);
  CHECK(log.trees[1].down == std::vector<int>{3, 2});
  CHECK(log.trees[1].up == 1);
  CHECK(log.coll_channels->value == 2);
  CHECK(log.nvls_channels->value == 0);
  CHECK(log.p2p_channels->value == 4);
  CHECK(log.rank(0)->cuda_dev == 0);
  CHECK(log.rank(0)->nvml_dev == 2);
  CHECK(log.rank(0)->bus_id == "18000");
}

TEST_CASE("nccl log: 03 (nccl-tests#166) - two 8-GPU servers through SHM and sockets") {
  const NcclLog log = shipped("03-sxm8x2-2node-p2plevel-shm-socket-nccltests166.log");
  CHECK(log.rank_count() == 16);
  CHECK(log.node_map().count == 2);
  CHECK(count_transport(log, NcclLogTransport::kShm) == 23);
  CHECK(count_transport(log, NcclLogTransport::kNetSocket) == 8);
  CHECK(count_transport(log, NcclLogTransport::kP2pIpc) == 0);
  CHECK(log.trees.size() == 44);  // 22 channels for each of ranks 13 and 15
  CHECK_FALSE(log.version.has_value());
}

TEST_CASE("nccl log: 06 (nccl#1516) - RTX 3090 pairs through SHM, IB without GDR") {
  const NcclLog log = shipped("06-rtx3090-2x2-2node-ib-shm-nop2p-nccl1516.log");
  CHECK(log.rank_count() == 4);
  CHECK(log.node_map().count == 2);
  CHECK(count_transport(log, NcclLogTransport::kShm) > 0);
  CHECK(count_transport(log, NcclLogTransport::kNetIb) > 0);
  CHECK(std::none_of(log.hops.begin(), log.hops.end(), [](const auto& h) { return h.gdr; }));
  CHECK_FALSE(log.p2p_refused.empty());
  CHECK(log.env_var("NCCL_MIN_NCHANNELS")->value == "2");
  CHECK(log.rank(0)->bus_id == "41000");
}

TEST_CASE("nccl log: 10 (nccl#1189) - H20 pairs over CUMEM, IB with GDRDMA, PXN off") {
  const NcclLog log = shipped("10-h20x2x2-2node-ib-gdrdma-cumem-pxn-off-nccl1189.log");
  CHECK(log.ranks->value == 4);
  CHECK(log.node_map().count == 2);
  CHECK(log.coll_channels->value == 8);
  CHECK(log.nvls_channels->value == 0);
  CHECK(count_transport(log, NcclLogTransport::kP2pCumem) > 0);
  CHECK(count_transport(log, NcclLogTransport::kShm) == 0);
  CHECK(std::all_of(log.hops.begin(), log.hops.end(), [](const auto& h) {
    return h.transport != NcclLogTransport::kNetIb || (h.gdr && (h.net_dev == 2 || h.net_dev == 3));
  }));
  CHECK(log.rank(3)->nvml_dev == 1);
  CHECK(log.rank(3)->bus_id == "38000");
}

TEST_CASE("nccl log: 22 (Horovod blog) - NCCL 2.16.2, one GPU per node over IB without GDR") {
  const NcclLog log = shipped("22-v100-1x2-2node-mlx4-ib-no-gdr-horovod-blog.log");
  CHECK(log.version == "2.16.2+cuda11.0");
  CHECK(log.ranks->value == 2);
  CHECK(log.node_map().count == 2);
  CHECK(log.ring_channels->value == 2);
  CHECK(log.network_name == "IB");
  CHECK(count_transport(log, NcclLogTransport::kNetIb) > 0);
  CHECK(std::none_of(log.hops.begin(), log.hops.end(), [](const auto& h) { return h.gdr; }));
  CHECK(log.rank(0)->bus_id == "3b000");
}

TEST_CASE("nccl log: 24 (nccl#606) - NCCL 2.11.4, P2P disabled, sockets") {
  const NcclLog log = shipped("24-rtxa6000x2-p2pdisable-socket-nccl606.log");
  CHECK(log.version == "2.11.4+cuda11.1");
  CHECK(log.env_var("NCCL_P2P_LEVEL")->value == "LOC");
  CHECK(log.network_name == "Socket");
  CHECK(log.no_ib_device.size() == 1);
  CHECK(log.ring_channels->value == 4);
  CHECK(log.rank_count() == 2);
  CHECK(log.trees.size() == 4);
  CHECK(log.rank(1)->host == "nccl-tests");
}

TEST_CASE("nccl log: what is not a log is refused at the first line that shows it") {
  CHECK(error_of("GPU0\tX\tNV12\nGPU1\tNV12\tX\n") ==
        "test.log:1:1: error: expected an NCCL_DEBUG=INFO log (lines with 'NCCL INFO'), got no "
        "NCCL line; line 1 is 'GPU0\tX\tNV12'");
  CHECK(error_of("h:1:2 [0] NCCL INFO Bootstrap\n\x7f" "ELF\x02\x01") ==
        "test.log:2:1: error: expected the text of an NCCL_DEBUG=INFO log, got byte 0x7f (a "
        "binary file?)");
  CHECK(error_of("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via \nnext\n") ==
        "test.log:1:53: error: expected a transport after 'via', got the end of the line");
  CHECK(error_of("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via PCI/x\n") ==
        "test.log:1:53: error: expected a transport after 'via' (P2P/..., SHM/..., NET/...), got "
        "'PCI/x'");
  CHECK(error_of("h:1:2 [0] NCCL INFO Using network IB\nh:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1") ==
        "test.log:2:45: error: the log ends in a cut line: expected the rest of 'Channel 00/0 : "
        "0[0] -> 1'");
  CHECK(error_of("h:1:2 [0] NCCL INFO Using network IB\nh:1:2 [") ==
        "test.log:2:1: error: the log ends in a cut line: expected 'NCCL INFO' after the "
        "host:pid:tid header");
  CHECK(error_of("h:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 2000000000 nNodes 1\n") ==
        "test.log:1:21: error: expected ranks of at most 1048576, got 2000000000");
  CHECK(error_of("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/IB/x\n") ==
        "test.log:1:60: error: expected a NIC index after 'NET/IB/', got 'x'");
}

TEST_CASE("nccl log: the topology dump's CPU codes and the platform they name") {
  // ncclTopoPrintRec (src/graph/topo.cc) prints "CPU/<system>-<numa> (arch/vendor/model)";
  // "CPU/<numa>" before 2.19. The first CPU node is kept; its PCI children are other lines.
  const NcclLog spr = parse("h:1:2 [0] NCCL INFO NCCL version 2.26.2+cuda12.8\n"
                            "h:1:2 [0] NCCL INFO === System : maxBw 48.0 totalBw 370.0 ===\n"
                            "h:1:2 [0] NCCL INFO CPU/0-0 (1/1/3)\n"
                            "h:1:2 [0] NCCL INFO + PCI[48.0] - PCI/0-15000 (1000c0101000a000)\n"
                            "h:1:2 [0] NCCL INFO CPU/0-1 (1/1/3)\n");
  REQUIRE(spr.cpu.has_value());
  CHECK(spr.cpu->arch == 1);
  CHECK(spr.cpu->vendor == 1);
  CHECK(spr.cpu->model == 3);
  CHECK(spr.cpu->source.line == 3);
  CHECK(linksim::nccl_cpu_platform(*spr.cpu, spr.release()) == "intel-sapphire-rapids");
  CHECK(linksim::describe_nccl_cpu(*spr.cpu, spr.release()) ==
        "x86 Intel, NCCL's Sapphire Rapids class");
  // The Skylake code names Skylake to Ice Lake only from 2.26; before, every later Intel CPU
  // printed it too (topo.h gained SRP and ERP in 2.26.2).
  const NcclLog old = parse("h:1:2 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
                            "h:1:2 [0] NCCL INFO CPU/0 (1/1/2)\n");
  REQUIRE(old.cpu.has_value());
  CHECK(linksim::nccl_cpu_platform(*old.cpu, old.release()) == "");
  CHECK(linksim::nccl_cpu_platform(*old.cpu, linksim::NcclVersion{2, 26}) == "intel-skylake");
  CHECK(linksim::nccl_cpu_platform(*old.cpu, std::nullopt) == "");
  // AMD: NCCL keeps no model (-1), so no generation; Broadwell; Arm.
  CHECK(linksim::nccl_cpu_platform(parse("h:1:2 [0] NCCL INFO CPU/1-3 (1/2/-1)\n").cpu.value(),
                                   linksim::NcclVersion{2, 29}) == "");
  CHECK(linksim::describe_nccl_cpu(parse("h:1:2 [0] NCCL INFO CPU/1-3 (1/2/-1)\n").cpu.value(),
                                   std::nullopt) == "x86 AMD");
  CHECK(linksim::nccl_cpu_platform(parse("h:1:2 [0] NCCL INFO CPU/0 (1/1/1)\n").cpu.value(),
                                   std::nullopt) == "intel-broadwell");
  CHECK(linksim::describe_nccl_cpu(parse("h:1:2 [0] NCCL INFO CPU/0-0 (3/0/-1)\n").cpu.value(),
                                   std::nullopt) == "Arm");
  // The GPUs' PCIe links of the dump, below the indentation: the first line of each rank.
  const NcclLog dump = parse(
      "h:1:2 [0] NCCL INFO + PCI[24.0] - PCI/0-4b000 (1000c0101000a000)\n"
      "h:1:2 [0] NCCL INFO               + PCI[24.0] - GPU/0-4e000 (0)\n"
      "h:1:2 [0] NCCL INFO               + PCI[12.0] - GPU/0-4f000 (1)\n"
      "h:1:3 [1] NCCL INFO               + PCI[24.0] - GPU/0-4e000 (0)\n"
      "h:1:3 [1] NCCL INFO               + PCI[x] - GPU/0-50000 (2)\n"
      "h:1:3 [1] NCCL INFO               + PCI[24.0] - GPU/0-51000 (3) [MLOPart 0]\n");
  REQUIRE(dump.gpu_links.size() == 3);
  CHECK(dump.gpu_links[0].bus_id == "4e000");
  CHECK(dump.gpu_links[0].rank == 0);
  CHECK(dump.gpu_links[0].nccl_bw_GBps == 24.0);
  CHECK(dump.gpu_links[1].nccl_bw_GBps == 12.0);
  CHECK(dump.gpu_links[1].source.line == 3);
  CHECK(dump.gpu_links[2].rank == 3);
  // Lines of another shape are not a CPU node.
  CHECK_FALSE(parse("h:1:2 [0] NCCL INFO CPU/0-0 affinity ffff\n").cpu.has_value());
  CHECK_FALSE(parse("h:1:2 [0] NCCL INFO CPU/0-0 (1/1)\n").cpu.has_value());
  // The skeleton names the platform, or says why it cannot.
  const std::string yaml = linksim::nccl_log_topology(
      parse("h:1:2 [0] NCCL INFO NCCL version 2.26.2+cuda12.8\n"
            "h:1:2 [0] NCCL INFO CPU/0-0 (1/1/3)\n"
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n"),
      "skeleton");
  CHECK(yaml.find("- {name: cpu0, kind: cpu, platform: intel-sapphire-rapids}") !=
        std::string::npos);
  const linksim::Topology skeleton = linksim::parse_topology(yaml, "skeleton.yaml");
  CHECK(skeleton.host_platform(skeleton.find("cpu0").value()).key == "intel-sapphire-rapids");
  const std::string unnamed = linksim::nccl_log_topology(
      parse("h:1:2 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
            "h:1:2 [0] NCCL INFO CPU/0 (1/1/2)\n"
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n"),
      "skeleton");
  CHECK(unnamed.find("- {name: cpu0, kind: cpu}") != std::string::npos);
  CHECK(unnamed.find("which names no platform of the catalog: set it by hand") !=
        std::string::npos);
}

TEST_CASE("nccl log: the skeleton topology of a log loads, with P2P pairs under one switch") {
  const NcclLog log = parse(
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
      "h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via SHM/direct/direct\n"
      "h:1:2 [2] NCCL INFO Channel 00/0 : 2[2] -> 3[3] via P2P/IPC\n"
      "h:1:2 [3] NCCL INFO Channel 00/0 : 3[3] -> 0[0] via SHM/direct/direct\n"
      "h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 4[0] [send] via NET/IB/0/GDRDMA\n"
      "g:3:4 [0] NCCL INFO Channel 01/0 : 0[0] -> 4[0] [receive] via NET/IB/0/GDRDMA\n");
  const std::string yaml = linksim::nccl_log_topology(log, "skeleton");
  const linksim::Topology t = linksim::parse_topology(yaml, "skeleton.yaml");
  const linksim::Router router(t);
  const auto gpu = [&](int i) { return t.find("gpu" + std::to_string(i)).value(); };
  CHECK(router.route(gpu(0), gpu(1)).transport == linksim::Transport::kP2p);
  CHECK(router.route(gpu(2), gpu(3)).transport == linksim::Transport::kP2p);
  CHECK(router.route(gpu(1), gpu(2)).transport == linksim::Transport::kShm);
  CHECK(yaml.find("gpu0 <-> gpu1: P2P/IPC") != std::string::npos);
  const auto nic = router.nearest_nic(gpu(0));
  REQUIRE(nic.has_value());
  CHECK(router.route(gpu(0), *nic).transport == linksim::Transport::kP2p);  // GDR kept
}

}  // TEST_SUITE
