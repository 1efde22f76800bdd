// SPDX-License-Identifier: Apache-2.0
// What NCCL would report about a communicator under NCCL_DEBUG=INFO with
// NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING: its ring channels with the transport of every hop, its
// trees, the tuner's latency/bandwidth table and the algorithm and protocol chosen for each
// call with the estimates that decided it. Every fact is the engine's own plan of the run
// (the rings, routes and tuner Communicator::run uses); report's render_nccl_debug()
// (include/linksim/nccl_debug_report.hpp) prints it as NCCL's log lines (docs/model.md#nccl-debug).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/routing.hpp"

namespace linksim {

/// One connection of a ring channel: rank `from_rank` sends to rank `to_rank`.
struct NcclHop {
  int from_rank = 0;
  int to_rank = 0;
  int from_dev = 0;  ///< the sender's GPU index in its server (NCCL's nvmlDev)
  int to_dev = 0;
  Transport transport = Transport::kP2p;  ///< P2P, SHM or NET: the route's transport
  /// nvidia-smi class of the pair (NV#, PIX, ..., SYS; NET between servers): with kP2p,
  /// kNvlink means P2P over NVLink, anything else P2P over PCIe.
  PathClass path = PathClass::kNvlink;
  int nvlinks = 0;       ///< path kNvlink: the bonded NVLinks
  /// kP2p over NVLink between SM80 GPUs: NCCL's P2P read mode (graph/paths.cc, ncclTopoCheckP2p).
  bool p2p_read = false;
  // kNet only:
  /// PXN: the rank of the sender's server whose NIC sends (the hand-over is over NVLink).
  std::optional<int> proxy_rank;
  int send_net_dev = -1;  ///< index of the sending NIC in its server (NCCL's netDev)
  int recv_net_dev = -1;  ///< index of the receiving NIC in its server
  bool send_gdr = false;  ///< GPUDirect RDMA at the sender: its GPU and NIC are PIX/PXB
  bool recv_gdr = false;  ///< GPUDirect RDMA at the receiver
};

/// One ring channel: the rank order starting at rank 0, as NCCL prints it, and its hops.
struct NcclRingChannel {
  int id = 0;
  int ring = 0;             ///< which of the engine's distinct rings it runs (id mod rings)
  std::vector<int> ranks;   ///< ring order, starting at rank 0
  std::vector<NcclHop> hops;  ///< ranks[i] -> ranks[i+1], the last back to ranks[0]
};

/// One rank's place in one tree: up to three children and its parent (-1 when none).
struct NcclTreeNode {
  int rank = 0;
  std::array<int, 3> down{-1, -1, -1};
  int up = -1;
};

/// One of the two trees of NCCL's double binary tree: a chain inside each server, the
/// servers' first ranks joined by a binary tree (tree 0) or its mirror image (tree 1).
struct NcclTree {
  int id = 0;
  std::vector<NcclTreeNode> nodes;  ///< by rank
};

/// NCCL's path type names for the GRAPH "type INTRA/INTER" field: "NVL", "PIX", "PXB",
/// "PHB", "SYS", "PXN", "NET" (graph.h topoPathTypeStr; nvidia-smi's NODE is NCCL's PHB).
std::string_view nccl_path_type(PathClass cls);

/// The ring graph's summary, as search.cc's ncclTopoPrintGraph reports it.
struct NcclRingGraph {
  int channels = 0;
  double bw_intra_GBps = 0;  ///< the rings' throughput per channel, GB/s (1e9 bytes/s)
  double bw_inter_GBps = 0;  ///< the same across servers (equal on one server)
  std::string type_intra;    ///< the worst path type of an intra-server hop: "NVL", "SYS", ...
  std::string type_inter;    ///< GPU-to-NIC path type ("PIX", or "PXN"); "PIX" on one server
  bool cross_nic = false;
};

/// One (algorithm, protocol) cell of the tuner's table for one collective.
struct NcclTuningCell {
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  bool enabled = false;     ///< false: NCCL would print bandwidth 0 (not available here)
  double latency_us = 0;    ///< fixed cost: latency + pipeline fill, microseconds
  double algbw_GBps = 0;    ///< time(S) = latency_us + S / (1e3 x algbw_GBps) us, S in bytes
};

/// The tuner's table row of one collective (tuning.cc ncclTopoTuneModel).
struct NcclTuningRow {
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::vector<NcclTuningCell> cells;  ///< Tree, Ring, NVLS, NVLSTree x LL, LL128, Simple
};

/// One call of a collective, as nccl-tests issues it.
struct NcclCall {
  CollectiveOp op = CollectiveOp::kAllReduce;
  double size_bytes = 0;  ///< nccl-tests' size (CollectiveQuery::size_bytes)
  double count = 0;       ///< elements, as nccl-tests passes them to NCCL
  int datatype = 7;       ///< NCCL's ncclDataType_t: the index in data_types() (7 = float)
  int redop = 0;          ///< NCCL's ncclRedOp_t: the ReductionOp value (0 = sum)
  int root = 0;
  Algorithm algorithm = Algorithm::kAuto;  ///< as asked (NCCL_ALGO)
  Protocol protocol = Protocol::kAuto;     ///< as asked (NCCL_PROTO)
};

/// What the tuner estimated for one (algorithm, protocol) it tried.
struct NcclEstimate {
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  bool eligible = false;
  double time_s = 0;    ///< when eligible: NCCL's own estimate (what the tuner minimizes)
  std::string why_not;  ///< when not
};

/// The tuner's answer for one call: the choice Communicator::run makes, and every estimate.
struct NcclChoice {
  NcclCall call;
  Algorithm algorithm = Algorithm::kRing;  ///< resolved
  Protocol protocol = Protocol::kSimple;   ///< resolved
  double time_s = 0;                       ///< the chosen pair's predicted time (analytic)
  int channels = 0;
  std::vector<NcclEstimate> estimates;     ///< in the tuner's order of trial
};

struct NcclDebugInfo {
  int ranks = 0;
  int nodes = 0;
  std::vector<DeviceId> gpus;            ///< by rank
  std::vector<int> devs;                 ///< by rank: GPU index in its server (nvmlDev)
  std::vector<int> servers;              ///< by rank: its server's index
  /// By rank: its GPU reaches its nearest NIC by PCIe peer-to-peer (GPUDirect RDMA); false
  /// without a NIC.
  std::vector<bool> gdr;
  bool ring_pxn = false;                 ///< some ring hop between servers goes through PXN
  NcclRingGraph ring_graph;
  std::vector<NcclRingChannel> channels;
  std::vector<NcclTree> trees;           ///< two, as NCCL's double binary tree
  std::vector<NcclTuningRow> tuning;     ///< Broadcast, Reduce, AllGather, ReduceScatter, AllReduce
  std::vector<NcclChoice> calls;         ///< one per call asked, in order
};

/// The calls of a `coll` sweep: one per row, with nccl-tests' count, type, op and root.
std::vector<NcclCall> nccl_calls(const SweepRequest& request, const CollectiveSweep& sweep);

}  // namespace linksim
