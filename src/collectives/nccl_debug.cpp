// SPDX-License-Identifier: Apache-2.0
// Communicator::nccl_debug: the communicator's channels and trees (nccl_debug_graph.hpp), the
// tuner's table, and the tuner's choice per call, from the same tuner run() uses (tuner.hpp).
#include "linksim/nccl_debug.hpp"

#include <algorithm>
#include <cmath>

#include "collectives/communicator_impl.hpp"
#include "collectives/nccl_debug_graph.hpp"
#include "collectives/tuner.hpp"

namespace linksim {
namespace {

constexpr CollectiveOp kTableOps[] = {CollectiveOp::kBroadcast, CollectiveOp::kReduce,
                                      CollectiveOp::kAllGather, CollectiveOp::kReduceScatter,
                                      CollectiveOp::kAllReduce};
// NCCL's algorithm order (Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT) without
// the ones linksim does not model.
constexpr Algorithm kTableAlgorithms[] = {Algorithm::kTree, Algorithm::kRing, Algorithm::kNvls,
                                          Algorithm::kNvlsTree};
constexpr Protocol kTableProtocols[] = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};

// NCCL's own table (tuning.cc ncclTopoTuneModel): its estimates, before the size-dependent
// corrections of ncclTopoGetAlgoTime (nccl_tuner_model.hpp).
NcclTuningCell tuning_cell(const detail::CommGraph& g, CollectiveOp op, Algorithm a, Protocol p) {
  NcclTuningCell cell{.algorithm = a, .protocol = p};
  const detail::CostModel m = detail::cost_model(g, op, a, p, 0);
  if (!m.eligible || !(m.wire_factor > 0)) return cell;
  const detail::NcclEstimate e = detail::nccl_estimate(g, op, a, p, m);
  if (!e.enabled || !std::isfinite(e.algbw_Bps)) return cell;
  cell.enabled = true;
  cell.latency_us = e.latency_s * 1e6;
  cell.algbw_GBps = e.algbw_Bps / 1e9;
  return cell;
}

NcclChoice tuner_choice(const detail::CommGraph& g, const NcclCall& call) {
  CollectiveQuery q;
  q.op = call.op;
  q.size_bytes = call.size_bytes;
  q.algorithm = call.algorithm;
  q.protocol = call.protocol;
  q.root = call.root;
  std::vector<detail::TriedPair> tried;
  const detail::Choice c = detail::choose(g, q, &tried);
  NcclChoice out;
  out.call = call;
  out.algorithm = c.algo;
  out.protocol = c.proto;
  out.time_s = c.model.time_s(call.size_bytes);
  out.channels = c.model.channels;
  for (const detail::TriedPair& t : tried) {
    const bool eligible = t.model.eligible && t.estimate.enabled;
    out.estimates.push_back({t.algo, t.proto, eligible,
                             eligible ? t.estimate.time_s(call.size_bytes) : 0.0,
                             t.model.why_not});
  }
  return out;
}

}  // namespace

std::string_view nccl_path_type(PathClass cls) {
  switch (cls) {
    case PathClass::kSelf: return "LOC";
    case PathClass::kNvlink: return "NVL";
    case PathClass::kPix: return "PIX";
    case PathClass::kPxb: return "PXB";
    case PathClass::kPhb: return "PHB";
    case PathClass::kNode: return "PHB";
    case PathClass::kSys: return "SYS";
    case PathClass::kNet: return "NET";
  }
  return "SYS";
}

std::vector<NcclCall> nccl_calls(const SweepRequest& request, const CollectiveSweep& sweep) {
  const auto types = data_types();
  const auto type = std::find(types.begin(), types.end(), request.type);
  std::vector<NcclCall> calls;
  for (const SweepRow& row : sweep.rows) {
    NcclCall call;
    call.op = sweep.op;
    call.size_bytes = row.size_bytes;
    call.count = row.count;
    call.datatype = static_cast<int>(type - types.begin());
    call.redop = static_cast<int>(request.redop);
    call.root = has_root(sweep.op) ? request.root : 0;
    call.algorithm = request.algorithm;
    call.protocol = request.protocol;
    calls.push_back(call);
  }
  return calls;
}

NcclDebugInfo Communicator::nccl_debug(const std::vector<NcclCall>& calls) const {
  const detail::CommGraph& g = impl_->graph;
  NcclDebugInfo info;
  info.ranks = rank_count();
  info.nodes = node_count();
  info.gpus = g.ranks();
  for (DeviceId gpu : g.ranks()) {
    const Device& d = g.topology().device(gpu);
    info.devs.push_back(d.index);
    info.servers.push_back(d.host.value_or(0));
    const std::optional<DeviceId> nic = g.router().nearest_nic(gpu);
    info.gdr.push_back(nic && g.router().route(gpu, *nic).transport == Transport::kP2p);
  }
  info.channels = detail::ring_channels(g);
  for (const NcclRingChannel& ch : info.channels) {
    for (const NcclHop& hop : ch.hops) info.ring_pxn = info.ring_pxn || hop.proxy_rank.has_value();
  }
  info.ring_graph = detail::ring_graph(g, info.channels);
  info.trees = detail::double_tree(g);
  for (CollectiveOp op : kTableOps) {
    NcclTuningRow row{.op = op, .cells = {}};
    for (Algorithm a : kTableAlgorithms) {
      for (Protocol p : kTableProtocols) row.cells.push_back(tuning_cell(g, op, a, p));
    }
    info.tuning.push_back(std::move(row));
  }
  for (const NcclCall& call : calls) info.calls.push_back(tuner_choice(g, call));
  return info;
}

}  // namespace linksim
