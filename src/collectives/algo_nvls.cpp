// SPDX-License-Identifier: Apache-2.0
// NVLS and NVLSTree: NVLink SHARP reduction in the NVSwitches, inside one server (NVLS) and
// with a tree of servers across them (NVLSTree; docs/model.md#algorithms). They share the
// lowering: into and out of the switches, plus the servers' tree edges.
#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <fmt/core.h>

#include "collectives/algorithm.hpp"
#include "collectives/explain_terms.hpp"
#include "collectives/lowering.hpp"
#include "collectives/model_common.hpp"

namespace linksim::detail {
namespace {

constexpr std::string_view kSimpleOnly = "NVLS runs the Simple protocol only";

bool reduces_in_switch(CollectiveOp op) {
  return op == CollectiveOp::kAllReduce || op == CollectiveOp::kAllGather ||
         op == CollectiveOp::kReduceScatter;
}

double nvls_efficiency(int sm) {
  return sm >= 100 ? kNvlsBlackwellEfficiency : kNvlsHopperEfficiency;
}

// NCCL's NVLS heads: the GPUs of one server's NVLink domain, up to NCCL_MAX_NVLS_ARITY.
int nvls_heads(const CommGraph& g) {
  return std::min(g.min_ranks_per_node(), kMaxNvlsArity);
}

// NCCL's NVLS channels (nvls.cc ncclNvlsInit): 16 on Hopper; 32 on Blackwell, 24 from NCCL
// 2.27 when the communicator is one NVLink domain (docs/model.md#nvls).
int nvls_channels(const CommGraph& g) {
  if (g.nvls().sm < 100) return kNvlsChannels;
  return g.node_count() == 1 && g.options().nccl_version.at_least(2, 27)
             ? kNvlsChannelsBlackwellOneDomain
             : kNvlsChannelsBlackwell;
}

// NCCL_NVLS_CHUNKSIZE: the platform plugin's (Topology::nccl_env) or NCCL's 128 KiB, bytes.
double nvls_chunk_setting(const CommGraph& g) {
  return double(g.topology().nccl_env().nvls_chunk_bytes.value_or(int(kNvlsChunkBytes)));
}

// The chunk of one channel and head for a call of `size_bytes` (0: no call, the largest),
// bytes (enqueue.cc `calcCollChunking`; docs/model.md#multi-rack). NVLS: NCCL_NVLS_CHUNKSIZE.
// NVLSTree: that, at most NCCL_NVLSTREE_MAX_CHUNKSIZE (unset: 64 KiB from 4 servers, no
// bound below), then halved for calls of few loops (kNvlsTreeChunkSteps).
double nvls_chunk_bytes(const CommGraph& g, bool tree, double size_bytes) {
  double chunk = nvls_chunk_setting(g);
  if (!tree) return chunk;
  const std::optional<int> max_chunk = g.topology().nccl_env().nvlstree_max_chunk_bytes;
  if (max_chunk) {
    chunk = std::min(chunk, double(*max_chunk));
  } else if (g.node_count() >= 4) {
    chunk = std::min(chunk, kNvlsTreeChunkBytesFrom4Nodes);
  }
  if (!(size_bytes > 0)) return chunk;
  const double ops = double(nvls_channels(g)) * nvls_heads(g);  // NCCL's concurrentOps
  for (const NvlsTreeChunkStep& step : kNvlsTreeChunkSteps) {
    if (size_bytes < step.loops * ops * chunk && chunk > step.chunk_bytes) chunk = step.chunk_bytes;
  }
  return chunk;
}

// One NVLS loop for a call of `size_bytes`: every channel moves one chunk per head
// (docs/model.md#nvls), bytes.
double nvls_loop_bytes(const CommGraph& g, bool tree, double size_bytes) {
  return double(nvls_channels(g)) * nvls_heads(g) * nvls_chunk_bytes(g, tree, size_bytes);
}

// The store-and-forward stages a chunk crosses before the steady state: the switches (NVLS),
// and for NVLSTree also each level of the servers' tree, up and down: 1 + 2 log2(nodes), the
// hops NCCL's NVLSTree latency counts (tuning.cc; docs/model.md#multi-rack).
double nvls_fill_stages(const CommGraph& g, bool tree) {
  const int nodes = g.node_count();
  return tree && nodes > 1 ? 1.0 + 2.0 * std::log2(double(nodes)) : 1.0;
}

// The start-up of a call of `size_bytes` at `bw_Bps`: one loop of the call's chunks per stage,
// or the call's own bytes when it is smaller than that loop (a call cannot wait for more data
// than it has; docs/model.md#multi-rack); a whole loop when no size is given, seconds.
double nvls_fill_s(const CommGraph& g, bool tree, double size_bytes, double bw_Bps) {
  const double loop = nvls_loop_bytes(g, tree, size_bytes);
  const double bytes = size_bytes > 0 ? std::min(size_bytes, loop) : loop;
  return nvls_fill_stages(g, tree) * bytes / bw_Bps;
}

CostModel nvls_model(const CommGraph& g, CollectiveOp op, double size_bytes, CostTrace* trace) {
  CostModel m;
  m.eligible = true;
  m.channels = nvls_channels(g);
  const NvlsInfo& nv = g.nvls();
  const int n = static_cast<int>(g.ranks().size());
  m.latency_s = kLat.nvls_simple_us * kUs;
  m.latency_hops = 2;  // into the switches and out
  if (op == CollectiveOp::kAllReduce) {
    // Reduce-scatter by multimem loads, then multicast stores: each GPU moves S each way.
    m.bw_Bps = nv.gpu_nvlink_Bps * std::min(1.0, nvls_efficiency(nv.sm) *
        g.options().calibration[CalibrationParameter::kNvlsEfficiency]);
    m.wire_factor = 1.0;
  } else {
    // AllGather / ReduceScatter: one multicast (or one reduction) pass, (n-1)/n of S each.
    m.bw_Bps = nv.gpu_nvlink_Bps * nv.efficiency;
    m.wire_factor = (n - 1.0) / n;
  }
  // Data crosses GPU -> switch -> GPU: one loop of every channel over every head before the
  // steady state (docs/model.md#nvls).
  m.fill_s = nvls_fill_s(g, false, size_bytes, m.bw_Bps);
  // Flow mode: the fraction of each GPU's raw NVLink rate that NVLS traffic achieves.
  m.link_scale = m.bw_Bps / nv.gpu_nvlink_Bps;
  m.bottleneck.kind = BottleneckKind::kNvls;
  m.bottleneck.rate_Bps = nv.gpu_nvlink_Bps;
  if (trace != nullptr) {
    trace->latency.formula = "alpha = lat_nvls";
    trace->latency.terms = {
        us_term("lat_nvls", kLat.nvls_simple_us, "NCCL tuning.cc hwLat[NVLINK][NVLS][Simple]")};
    ExplainStep& s = trace->bandwidth;
    if (op == CollectiveOp::kAllReduce) {
      s.formula = "B = B_nvlink x eff_nvls";
      s.terms = {
          rate_term("B_nvlink", nv.gpu_nvlink_Bps,
                    "raw NVLink of each GPU into the reduction-capable NVSwitches"),
          count_term("eff_nvls", nvls_efficiency(nv.sm),
                     nv.sm >= 100
                         ? "GB200 NVL72 NVLS AllReduce 425.5 of 900 GB/s (calibration 84, 85)"
                         : "8x H100 NVLS AllReduce 276 of 450 GB/s (calibration 01, 53)")};
    } else {
      s.formula = "B = B_nvlink x eff_link";
      s.terms = {rate_term("B_nvlink", nv.gpu_nvlink_Bps,
                           "raw NVLink of each GPU into the reduction-capable NVSwitches"),
                 count_term("eff_link", nv.efficiency,
                            fmt::format("realized NVLink efficiency of SM{} (docs/model.md"
                                        "#link-efficiency)",
                                        nv.sm))};
    }
    s.notes.push_back(fmt::format(
        "pipeline fill: {} channels x {} heads x {:g} KiB chunks / B (NCCL_NVLS_NCHANNELS, GPUs "
        "of the NVLink domain up to NCCL_MAX_NVLS_ARITY {}, NCCL_NVLS_CHUNKSIZE{})",
        nvls_channels(g), nvls_heads(g), nvls_chunk_setting(g) / 1024, kMaxNvlsArity,
        g.topology().nccl_env().nvls_chunk_bytes ? " as the topology's nccl_env sets it" : ""));
  }
  return m;
}

CostModel nvls_tree_model(const CommGraph& g, double size_bytes, CostTrace* trace) {
  CostModel m = nvls_model(g, CollectiveOp::kAllReduce, size_bytes, trace);
  const int nodes = g.node_count();
  m.latency_s = (kLat.nvls_simple_us + 2.0 * std::log2(double(nodes)) * kLat.nvls_tree_net_us) * kUs;
  if (trace != nullptr) {
    trace->latency.formula = "alpha = lat_nvls + 2 x log2(nodes) x lat_net";
    trace->latency.terms.push_back(count_term("nodes", nodes, "servers spanned"));
    trace->latency.terms.push_back(
        us_term("lat_net", kLat.nvls_tree_net_us, "NCCL tuning.cc hwLat[NET][NVLSTree][Simple]"));
  }
  m.latency_hops = 2.0 + 2.0 * std::log2(double(nodes));
  // NCCL tuning.cc: the inter-server tree's bus bandwidth is the servers' NICs (doubled on
  // two servers); NVLSTree converts bus to algorithm bandwidth with nRanks / nsteps ~ 1/2.
  // Each NVLS channel's head drives one NIC, so a server uses at most as many NICs as there
  // are heads (GB200 NVL72: 32 of 72; docs/model.md#nvls).
  const int nics = std::max(1, g.node_nic_count());
  const double driven = std::min(1.0, double(nvls_heads(g)) / nics);
  const double inter = g.node_network_Bps() * driven * (nodes <= 2 ? 2.0 : 1.0) * 0.5;
  if (trace != nullptr) {
    trace->bandwidth.formula = "B = min(B_nvlink x eff_nvls, B_nics x (2 on two servers) x 1/2)";
    trace->bandwidth.terms.push_back(rate_term(
        "B_nics", g.node_network_Bps() * driven,
        fmt::format("the server's NICs its {} NVLS heads drive, x 0.96 each", nvls_heads(g))));
  }
  if (inter < m.bw_Bps) {
    m.bw_Bps = inter;
    m.bottleneck = server_nics(g.node_network_Bps() * driven);
  }
  // One loop per stage: into the switches, then up and down each level of the servers' tree.
  m.fill_s = nvls_fill_s(g, true, size_bytes, m.bw_Bps);
  if (trace != nullptr) {
    trace->bandwidth.notes.push_back(fmt::format(
        "NVLSTree fill: 1 + 2 log2({}) = {:.2f} stages x one loop of {:g} KiB chunks (NCCL "
        "enqueue.cc: NCCL_NVLS_CHUNKSIZE up to NCCL_NVLSTREE_MAX_CHUNKSIZE, 64 KiB from 4 "
        "servers unless set; halved for calls of few loops, to 32 KiB)",
        nodes, nvls_fill_stages(g, true), nvls_chunk_bytes(g, true, size_bytes) / 1024));
  }
  return m;
}

// NVLS: every GPU sends its buffer into the switches and receives the result by multicast;
// across servers (NVLSTree) the GPUs of each rail also exchange their shards over two
// complementary binary trees of servers, S / (2 ppn) per tree edge and direction.
FlowOutcome nvls_flows(const CommGraph& g, CollectiveOp op, const CostModel& m, double bytes,
                       JointFlows* joint) {
  const Topology& t = g.topology();
  const size_t n = g.ranks().size();
  std::vector<double> caps = g.capacities().to_vector();
  // A GPU's NVLinks into the reduction-capable switches, in link order: its links up and, as
  // their reverses, down. A rank in a server block has host 0's links of its local GPU,
  // shifted to its server (the layout contract of linksim/topology.hpp): those are read once
  // per local GPU, not once per rank.
  struct SwitchLink {
    uint32_t up = 0;
    uint32_t down = 0;
    double bw_Bps = 0;
  };
  const auto switch_links = [&](DeviceId gpu, std::vector<SwitchLink>* out) {
    for (LinkId id : t.out_links(gpu)) {
      const Link& link = t.link(id);
      const Device& peer = block_twin(t, link.to);
      if (link.family == LinkFamily::kNvlink && peer.kind == DeviceKind::kNvswitch && peer.reduction) {
        out->push_back({id.value, Topology::reverse(id).value, link.bw_Bps});
      }
    }
  };
  const uint64_t per_host = t.devices_per_host();
  std::vector<std::vector<SwitchLink>> of_local(per_host);
  std::vector<char> local_read(per_host, 0);
  std::vector<SwitchLink> own;  // a rank outside the server blocks
  // Calls visit(links, offset) with rank r's switch links (host-0 ids plus `offset`).
  const auto for_rank = [&](size_t r, auto visit) {
    const DeviceId gpu = g.ranks()[r];
    if (gpu.value < per_host * uint64_t(t.host_count())) {
      const size_t local = gpu.value % per_host;
      if (local_read[local] == 0) {
        switch_links(DeviceId{uint32_t(local)}, &of_local[local]);
        local_read[local] = 1;
      }
      visit(of_local[local], t.host_link_offset(int(gpu.value / per_host)));
    } else {
      own.clear();
      switch_links(gpu, &own);
      visit(own, uint32_t{0});
    }
  };
  // Two passes over the ranks: the switch links' capacities at NVLS's rate first (the
  // simulator takes the capacities when the lowering starts), then each rank's transfers.
  size_t switch_link_count = 0;
  for (size_t r = 0; r < n; ++r) {
    for_rank(r, [&](const std::vector<SwitchLink>& links, uint32_t offset) {
      for (const SwitchLink& link : links) {
        caps[link.up + offset] = link.bw_Bps * m.link_scale;
        caps[link.down + offset] = link.bw_Bps * m.link_scale;
      }
      switch_link_count += links.size();
    });
  }
  Lowering low(g, std::move(caps), 1.0, m.latency_s + m.fill_s, joint);
  low.reserve_with_trees(2 * n, 2 * switch_link_count, g.nodes().size() > 1 ? nvls_heads(g) : 0);
  const double each = op == CollectiveOp::kAllReduce ? bytes : m.wire_factor * bytes;
  // One rank's links up and down, and their paths of one link each (the simulator copies
  // them: TransferSpec's contract).
  std::vector<ResourceId> up, down;
  std::vector<PathSpec> up_paths, down_paths;
  for (size_t r = 0; r < n; ++r) {
    for_rank(r, [&](const std::vector<SwitchLink>& links, uint32_t offset) {
      double total = 0;
      for (const SwitchLink& link : links) total += link.bw_Bps;
      up.clear();
      down.clear();
      for (const SwitchLink& link : links) {
        up.push_back(ResourceId{link.up + offset});
        down.push_back(ResourceId{link.down + offset});
      }
      up_paths.clear();
      down_paths.clear();
      for (size_t i = 0; i < links.size(); ++i) {
        up_paths.push_back({std::span<const ResourceId>(&up[i], 1), links[i].bw_Bps / total});
        down_paths.push_back({std::span<const ResourceId>(&down[i], 1), links[i].bw_Bps / total});
      }
    });
    low.send_paths(up_paths, each);
    low.send_paths(down_paths, each);
  }
  // Across servers only the NVLS heads talk (connect.cc connectNvls): head h of a server
  // exchanges its 1/heads of the data with head h of its tree neighbours, so the heads' NICs,
  // one rail per head, carry the trees (docs/model.md#multi-rack).
  const auto& nodes = g.nodes();
  const int n_nodes = static_cast<int>(nodes.size());
  const size_t heads = n_nodes > 1 ? static_cast<size_t>(nvls_heads(g)) : 0;
  for (size_t j = 0; j < heads; ++j) {
    const double shard = bytes / (2.0 * heads);
    for_each_double_tree_edge(n_nodes, [&](int c, int p) {
      if (j >= nodes[c].size() || j >= nodes[p].size()) return;
      low.send(nodes[c][j], nodes[p][j], shard);
      low.send(nodes[p][j], nodes[c][j], shard);
    });
  }
  return low.run(m.bottleneck);
}

}  // namespace

AlgorithmOps nvls_algorithm() {
  return {Algorithm::kNvls, "nvls", kSimpleOnly,
          [](const CommGraph& g, CollectiveOp op) {
            // AllReduce from NCCL 2.17, AllGather and ReduceScatter from 2.19; not beyond
            // NCCL_MAX_NVLS_ARITY GPUs for those (docs/model.md#nccl-version).
            if (!reduces_in_switch(op) || !g.nvls().available || g.node_count() != 1) return false;
            if (op == CollectiveOp::kAllReduce) return true;
            return g.options().nccl_version.at_least(2, 19) &&
                   static_cast<int>(g.ranks().size()) <= kMaxNvlsArity;
          },
          [](const CommGraph& g, CollectiveOp op, Protocol, double size_bytes, CostTrace* trace) {
            return nvls_model(g, op, size_bytes, trace);
          },
          [](const CommGraph& g, CollectiveOp op, const CostModel& m, double bytes, int,
             JointFlows* joint) { return nvls_flows(g, op, m, bytes, joint);
          }};
}

AlgorithmOps nvls_tree_algorithm() {
  return {Algorithm::kNvlsTree, "nvls_tree", kSimpleOnly,
          [](const CommGraph& g, CollectiveOp op) {
            // NVLSTree from NCCL 2.18 (docs/model.md#nccl-version).
            return op == CollectiveOp::kAllReduce && g.nvls().available && g.node_count() > 1 &&
                   g.options().nccl_version.at_least(2, 18);
          },
          [](const CommGraph& g, CollectiveOp, Protocol, double size_bytes, CostTrace* trace) {
            return nvls_tree_model(g, size_bytes, trace);
          },
          [](const CommGraph& g, CollectiveOp op, const CostModel& m, double bytes, int,
             JointFlows* joint) { return nvls_flows(g, op, m, bytes, joint);
          }};
}

}  // namespace linksim::detail
