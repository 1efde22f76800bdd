// SPDX-License-Identifier: Apache-2.0
// render_nccl_debug: NcclDebugInfo as NCCL's INFO lines. The formats follow NVIDIA/nccl
// (docs/model.md#nccl-debug): rings.cc (Channel NN/CC : ranks), search.cc ncclTopoPrintGraph
// (Pattern ...), init.cc (Ring NN : prev -> rank -> next, Trees, Connected all ...),
// tuning.cc (Latency/AlgBw table), transport/p2p.cc, shm.cc, net.cc (via P2P, SHM, NET),
// enqueue.cc (the call and the tuner's "Bytes -> Algo" line).
#include "linksim/nccl_debug_report.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace linksim {
namespace {

// NCCL's algorithm and protocol indices (nccl.h / device.h: NCCL_ALGO_TREE 0, RING 1,
// COLLNET_DIRECT 2, COLLNET_CHAIN 3, NVLS 4, NVLS_TREE 5; NCCL_PROTO_LL 0, LL128 1, SIMPLE 2).
int nccl_algo_id(Algorithm algo) {
  switch (algo) {
    case Algorithm::kTree: return 0;
    case Algorithm::kRing: return 1;
    case Algorithm::kNvls: return 4;
    case Algorithm::kNvlsTree: return 5;
    case Algorithm::kAuto:
    case Algorithm::kDirect: return -1;
  }
  return -1;
}

int nccl_proto_id(Protocol proto) {
  switch (proto) {
    case Protocol::kLL: return 0;
    case Protocol::kLL128: return 1;
    case Protocol::kSimple: return 2;
    case Protocol::kAuto: return -1;
  }
  return -1;
}

class Log {
 public:
  explicit Log(const NcclDebugInfo& info) : info_(info) {}
  template <typename... Args>
  void line(int rank, fmt::format_string<Args...> format, Args&&... args) {
    lines_.push_back(nccl_log_prefix(info_, rank) +
                     fmt::format(format, std::forward<Args>(args)...));
  }
  std::vector<std::string> take() { return std::move(lines_); }

 private:
  const NcclDebugInfo& info_;
  std::vector<std::string> lines_;
};

// transport/p2p.cc, shm.cc, net.cc: the sender's line ("[send]" for NET) ...
std::string send_text(const NcclHop& hop, int channel) {
  const std::string peers =
      fmt::format("{}[{}] -> {}[{}]", hop.from_rank, hop.from_dev, hop.to_rank, hop.to_dev);
  switch (hop.transport) {
    case Transport::kP2p:
      return fmt::format("Channel {:02d}/0 : {} via P2P/CUMEM{}", channel, peers,
                         hop.p2p_read ? "/read" : "");
    case Transport::kShm:
      return fmt::format("Channel {:02d} : {} via SHM/direct/direct", channel, peers);
    case Transport::kNet:
      return fmt::format("Channel {:02d}/0 : {} [send] via NET/IB/{}{}{}", channel, peers,
                         hop.send_net_dev,
                         hop.proxy_rank ? fmt::format("({})", *hop.proxy_rank) : std::string(),
                         hop.send_gdr ? "/GDRDMA" : "");
  }
  return {};
}

// ... and for NET, the receiver's line.
std::string receive_text(const NcclHop& hop, int channel) {
  return fmt::format("Channel {:02d}/0 : {}[{}] -> {}[{}] [receive] via NET/IB/{}{}", channel,
                     hop.from_rank, hop.from_dev, hop.to_rank, hop.to_dev, hop.recv_net_dev,
                     hop.recv_gdr ? "/GDRDMA" : "");
}

void init_lines(Log& log, const NcclDebugInfo& info, std::string_view comm) {
  std::vector<int> local_ranks(static_cast<size_t>(info.ranks), 0);
  std::vector<int> local_rank(static_cast<size_t>(info.ranks), 0);
  for (int r = 0; r < info.ranks; ++r) {
    for (int q = 0; q < info.ranks; ++q) {
      if (info.servers[q] != info.servers[r]) continue;
      ++local_ranks[r];
      if (q < r) ++local_rank[r];
    }
  }
  for (int r = 0; r < info.ranks; ++r) {
    log.line(r, "comm {} rank {} nRanks {} nNodes {} localRanks {} localRank {} MNNVL 0", comm, r,
             info.ranks, info.nodes, local_ranks[r], local_rank[r]);
  }
}

void graph_lines(Log& log, const NcclDebugInfo& info) {
  const int channels = static_cast<int>(info.channels.size());
  for (const NcclRingChannel& ch : info.channels) {
    std::string ranks;
    for (int r : ch.ranks) ranks += fmt::format(" {:3d}", r);
    log.line(0, "Channel {:02d}/{:02d} :{}", ch.id, channels, ranks);
  }
  const NcclRingGraph& g = info.ring_graph;
  log.line(0, "Pattern 4, crossNic {}, nChannels {}, bw {:f}/{:f}, type {}/{}, sameChannels 1",
           g.cross_nic ? 1 : 0, g.channels, g.bw_intra_GBps, g.bw_inter_GBps, g.type_intra,
           g.type_inter);
  for (int r = 0; r < info.ranks; ++r) {
    std::string trees;
    for (const NcclRingChannel& ch : info.channels) {
      const auto at = std::find(ch.ranks.begin(), ch.ranks.end(), r) - ch.ranks.begin();
      const int n = static_cast<int>(ch.ranks.size());
      const int prev = n > 1 ? ch.ranks[static_cast<size_t>((at + n - 1) % n)] : -1;
      const int next = n > 1 ? ch.ranks[static_cast<size_t>((at + 1) % n)] : -1;
      log.line(r, "Ring {:02d} : {} -> {} -> {}", ch.id, prev, r, next);
      // NCCL's first half of the channels runs tree 0, the second half tree 1 (connect.cc).
      const size_t tree = channels > 1 && ch.id >= channels / 2 ? 1 : 0;
      const NcclTreeNode& node = info.trees[tree].nodes[static_cast<size_t>(r)];
      trees += fmt::format(" [{}] {}/{}/{}->{}->{}", ch.id, node.down[0], node.down[1],
                           node.down[2], r, node.up);
    }
    log.line(r, "Trees{}", trees);
  }
}

void tuning_lines(Log& log, const NcclDebugInfo& info) {
  if (info.tuning.empty()) return;
  std::string header = "Latency/AlgBw |";
  for (const NcclTuningCell& cell : info.tuning.front().cells) {
    header += fmt::format(" {:>7}/{:>6} |", nccl_algo_name(cell.algorithm),
                          nccl_proto_name(cell.protocol));
  }
  log.line(0, "{}", header);
  for (const NcclTuningRow& row : info.tuning) {
    std::string text = fmt::format("{:>13} |", nccl_func_name(row.op));
    for (const NcclTuningCell& cell : row.cells) {
      text += fmt::format("{:8.1f}/{:6.1f} |", cell.latency_us, cell.algbw_GBps);
    }
    log.line(0, "{}", text);
  }
}

void transport_lines(Log& log, const NcclDebugInfo& info) {
  for (int r = 0; r < info.ranks; ++r) {
    for (const NcclRingChannel& ch : info.channels) {
      for (const NcclHop& hop : ch.hops) {
        if (hop.to_rank == r && hop.transport == Transport::kNet) {
          log.line(r, "{}", receive_text(hop, ch.id));
        }
      }
      for (const NcclHop& hop : ch.hops) {
        if (hop.from_rank == r) log.line(r, "{}", send_text(hop, ch.id));
      }
    }
    log.line(r, "Connected all rings, use ring PXN {} GDR {}", info.ring_pxn ? 1 : 0,
             info.gdr[static_cast<size_t>(r)] ? 1 : 0);
    log.line(r, "Connected all trees");
  }
}

void call_lines(Log& log, const NcclDebugInfo& info, int first_op_count) {
  int op_count = first_op_count;
  for (const NcclChoice& c : info.calls) {
    const std::string_view func = nccl_func_name(c.call.op);
    log.line(0, "{}: opCount {:x} count {:.0f} datatype {} op {} root {} [nranks={}]", func,
             op_count++, c.call.count, c.call.datatype, c.call.redop, c.call.root, info.ranks);
    std::string estimates;
    for (const NcclEstimate& e : c.estimates) {
      estimates += e.eligible ? fmt::format(" {}/{} {:.3f}", nccl_algo_name(e.algorithm),
                                            nccl_proto_name(e.protocol), e.time_s * 1e6)
                              : fmt::format(" {}/{} n/a", nccl_algo_name(e.algorithm),
                                            nccl_proto_name(e.protocol));
    }
    log.line(0, "{}: {:.0f} Bytes estimates (us):{}", func, c.call.size_bytes, estimates);
    log.line(0, "{}: {:.0f} Bytes -> algorithm {} protocol {} nchannels {} time {:.3f} us", func,
             c.call.size_bytes, nccl_algo_name(c.algorithm), nccl_proto_name(c.protocol),
             c.channels, c.time_s * 1e6);
    log.line(0, "{:.0f} Bytes -> Algo {} proto {} time {:f}", c.call.size_bytes,
             nccl_algo_id(c.algorithm), nccl_proto_id(c.protocol), c.time_s * 1e6);
  }
}

}  // namespace

std::string_view nccl_func_name(CollectiveOp op) {
  for (const CollectiveName& n : collective_names()) {
    if (n.op == op) return n.title;
  }
  return "?";
}

std::string_view nccl_algo_name(Algorithm algo) {
  switch (algo) {
    case Algorithm::kTree: return "Tree";
    case Algorithm::kRing: return "Ring";
    case Algorithm::kNvls: return "NVLS";
    case Algorithm::kNvlsTree: return "NVLSTree";
    case Algorithm::kDirect: return "Direct";
    case Algorithm::kAuto: return "auto";
  }
  return "?";
}

std::string_view nccl_proto_name(Protocol proto) {
  return proto == Protocol::kAuto ? "auto" : to_string(proto);
}

std::string nccl_log_prefix(const NcclDebugInfo& info, int rank) {
  const size_t r = static_cast<size_t>(rank);
  return fmt::format("linksim:{}:{} [{}] NCCL INFO ", info.servers[r], rank, info.devs[r]);
}

std::vector<std::string> render_nccl_debug(const NcclDebugInfo& info, std::string_view comm,
                                           int first_op_count) {
  Log log(info);
  init_lines(log, info, comm);
  graph_lines(log, info);
  tuning_lines(log, info);
  transport_lines(log, info);
  call_lines(log, info, first_op_count);
  return log.take();
}

std::vector<std::string> render_nccl_debug(const std::vector<NcclDebugGroup>& groups) {
  std::vector<std::string> lines;
  int op_count = 0;
  for (const NcclDebugGroup& g : groups) {
    std::vector<std::string> more =
        render_nccl_debug(g.info, fmt::format("{} ({})", g.kind, g.gpus), op_count);
    op_count += static_cast<int>(g.info.calls.size());
    lines.insert(lines.end(), more.begin(), more.end());
  }
  return lines;
}

}  // namespace linksim
