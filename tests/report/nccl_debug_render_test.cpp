// SPDX-License-Identifier: Apache-2.0
// render_nccl_debug: exact NCCL log lines for a small communicator whose rings, transports and
// tuner estimates are derived by hand, and for hand-built NET hops (GDR, PXN).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "linksim/collectives.hpp"
#include "linksim/nccl_debug.hpp"
#include "linksim/nccl_debug_report.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/test_topologies.hpp"

using namespace linksim;

namespace {

NcclHop hop(int from_rank, int to_rank, int from_dev, int to_dev, Transport transport,
            PathClass path) {
  NcclHop h;
  h.from_rank = from_rank;
  h.to_rank = to_rank;
  h.from_dev = from_dev;
  h.to_dev = to_dev;
  h.transport = transport;
  h.path = path;
  return h;
}

bool has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

TEST_SUITE("report") {
  TEST_CASE("nccl debug log: rings, trees, transports, table and choice of a 4-GPU ring") {
    Topology t = testing::ring4();
    Communicator comm(t, t.gpus());
    NcclCall call;
    call.size_bytes = 65536;
    call.count = 16384;
    const std::vector<std::string> lines = render_nccl_debug(comm.nccl_debug({call}), "coll");
    CAPTURE(lines.size());
    CHECK(lines.front() ==
          "linksim:0:0 [0] NCCL INFO comm coll rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 "
          "MNNVL 0");
    CHECK(has(lines, "linksim:0:0 [0] NCCL INFO Channel 00/02 :   0   1   2   3"));
    CHECK(has(lines, "linksim:0:0 [0] NCCL INFO Channel 01/02 :   0   3   2   1"));
    CHECK(has(lines, "linksim:0:0 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, "
                     "bw 20.600000/20.600000, type NVL/PIX, sameChannels 1"));
    CHECK(has(lines, "linksim:0:1 [1] NCCL INFO Ring 00 : 0 -> 1 -> 2"));
    CHECK(has(lines, "linksim:0:1 [1] NCCL INFO Ring 01 : 2 -> 1 -> 0"));
    // One server: both trees are the chain 0 -> 1 -> 2 -> 3 (down/down/down->rank->up).
    CHECK(has(lines, "linksim:0:1 [1] NCCL INFO Trees [0] 2/-1/-1->1->0 [1] 2/-1/-1->1->0"));
    CHECK(has(lines, "linksim:0:0 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1"));
    CHECK(has(lines, "linksim:0:1 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM"));
    CHECK(has(lines, "linksim:0:1 [1] NCCL INFO Channel 01/0 : 1[1] -> 0[0] via P2P/CUMEM"));
    CHECK(has(lines, "linksim:0:3 [3] NCCL INFO Connected all rings, use ring PXN 0 GDR 0"));
    // tuning.cc's table: " %7s/%6s |" headers, "%8.1f/%6.1f |" cells, latency us / algbw GB/s.
    // NCCL's estimates: its ring search finds 2 channels of 20 GB/s (busBw 40; algbw x 4/6).
    // Ring LL 10.2 us at 0.5 x 40 / 1.5 = 13.3; LL128 25.4 us at 0.92 x 40 / 1.5 = 24.5; Simple
    // 28.8 us at 40 / 1.5 = 26.7. Tree and NVLS are not available on one NVSwitch-less server.
    const std::string off = "     0.0/   0.0 |";
    CHECK(has(lines, "linksim:0:0 [0] NCCL INFO Latency/AlgBw |    Tree/    LL |    Tree/ LL128 |"
                     "    Tree/Simple |    Ring/    LL |    Ring/ LL128 |    Ring/Simple |"
                     "    NVLS/    LL |    NVLS/ LL128 |    NVLS/Simple |"
                     " NVLSTree/    LL | NVLSTree/ LL128 | NVLSTree/Simple |"));
    CHECK(has(lines, "linksim:0:0 [0] NCCL INFO     AllReduce |" + off + off + off +
                         "    10.2/  13.3 |    25.4/  24.5 |    28.8/  26.7 |" + off + off + off +
                         off + off + off));
    // 64 KiB AllReduce, NCCL's estimates: LL 10.2 + 65536 / 13.333e3 = 15.115 us; LL128:
    // 25.4 + 65536 / 24.533e3 = 28.071; Simple: 28.8 + 65536 / 26.667e3 = 31.258. LL wins; the
    // chosen pair then takes its realized time at SM90's measured NVLink efficiency (25 GB/s x
    // 361.86/450 = 20.103 GB/s per ring, LL 0.5 x 2 rings): 10.2 + 98304 / 20.103e3 = 15.090 us.
    const std::vector<std::string> tail(lines.end() - 4, lines.end());
    CHECK(tail[0] == "linksim:0:0 [0] NCCL INFO AllReduce: opCount 0 count 16384 datatype 7 op 0 "
                     "root 0 [nranks=4]");
    CHECK(tail[1] == "linksim:0:0 [0] NCCL INFO AllReduce: 65536 Bytes estimates (us): "
                     "Ring/LL 15.115 Ring/LL128 28.071 Ring/Simple 31.258");
    CHECK(tail[2] == "linksim:0:0 [0] NCCL INFO AllReduce: 65536 Bytes -> algorithm Ring "
                     "protocol LL nchannels 2 time 15.090 us");
    CHECK(tail[3] == "linksim:0:0 [0] NCCL INFO 65536 Bytes -> Algo 1 proto 0 time 15.089935");
  }

  TEST_CASE("nccl debug log: NET hops name the NIC, GPUDirect RDMA and the PXN proxy") {
    NcclDebugInfo info;
    info.ranks = 4;
    info.nodes = 2;
    info.devs = {0, 1, 0, 1};
    info.servers = {0, 0, 1, 1};
    info.gdr = {true, true, true, false};
    info.ring_pxn = true;
    info.trees.resize(2);
    for (NcclTree& tree : info.trees) {
      for (int r = 0; r < 4; ++r) tree.nodes.push_back({.rank = r});
    }
    NcclRingChannel ch;
    ch.ranks = {0, 1, 2, 3};
    NcclHop pxn = hop(1, 2, 1, 0, Transport::kNet, PathClass::kNet);
    pxn.proxy_rank = 0;
    pxn.send_net_dev = 0;
    pxn.recv_net_dev = 0;
    pxn.send_gdr = true;
    pxn.recv_gdr = true;
    NcclHop direct = hop(3, 0, 1, 0, Transport::kNet, PathClass::kNet);
    direct.send_net_dev = 1;
    direct.recv_net_dev = 0;
    direct.send_gdr = false;
    direct.recv_gdr = true;
    ch.hops = {pxn, direct};
    info.channels = {ch};
    const std::vector<std::string> lines = render_nccl_debug(info, "dp");
    CHECK(has(lines, "linksim:0:1 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via "
                     "NET/IB/0(0)/GDRDMA"));
    CHECK(has(lines, "linksim:1:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [receive] via "
                     "NET/IB/0/GDRDMA"));
    CHECK(has(lines, "linksim:1:3 [1] NCCL INFO Channel 00/0 : 3[1] -> 0[0] [send] via NET/IB/1"));
    CHECK(has(lines, "linksim:0:0 [0] NCCL INFO Channel 00/0 : 3[1] -> 0[0] [receive] via "
                     "NET/IB/0/GDRDMA"));
    CHECK(has(lines, "linksim:1:3 [1] NCCL INFO Connected all rings, use ring PXN 1 GDR 0"));
    CHECK(has(lines, "linksim:0:0 [0] NCCL INFO comm dp rank 0 nRanks 4 nNodes 2 localRanks 2 "
                     "localRank 0 MNNVL 0"));
    CHECK(has(lines, "linksim:1:3 [1] NCCL INFO comm dp rank 3 nRanks 4 nNodes 2 localRanks 2 "
                     "localRank 1 MNNVL 0"));
  }

  TEST_CASE("nccl debug log: SHM hops print NCCL's SHM line") {
    NcclDebugInfo info;
    info.ranks = 2;
    info.nodes = 1;
    info.devs = {0, 1};
    info.servers = {0, 0};
    info.gdr = {false, false};
    info.trees.resize(2);
    for (NcclTree& tree : info.trees) {
      for (int r = 0; r < 2; ++r) tree.nodes.push_back({.rank = r});
    }
    NcclRingChannel ch;
    ch.id = 1;
    ch.ranks = {0, 1};
    ch.hops = {hop(0, 1, 0, 1, Transport::kShm, PathClass::kSys),
               hop(1, 0, 1, 0, Transport::kShm, PathClass::kSys)};
    info.channels = {ch};
    const std::vector<std::string> lines = render_nccl_debug(info, "coll");
    CHECK(has(lines, "linksim:0:0 [0] NCCL INFO Channel 01 : 0[0] -> 1[1] via SHM/direct/direct"));
    CHECK(has(lines, "linksim:0:1 [1] NCCL INFO Channel 01 : 1[1] -> 0[0] via SHM/direct/direct"));
  }
}
