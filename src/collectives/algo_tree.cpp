// SPDX-License-Identifier: Apache-2.0
// Tree: NCCL's double binary tree across servers, a chain inside each (AllReduce on several
// servers; docs/model.md#algorithms).
#include <algorithm>
#include <cmath>
#include <optional>
#include <fmt/core.h>

#include "collectives/algorithm.hpp"
#include "collectives/explain_terms.hpp"
#include "collectives/lowering.hpp"
#include "collectives/model_common.hpp"
#include "collectives/nccl_tuner_model.hpp"

namespace linksim::detail {
namespace {

// NCCL tuning.cc, Tree AllReduce: base + 2 x ((ppn - 1) x intraLat + log2(nodes) x interLat).
double tree_latency_us(const CommGraph& g, Protocol p, CostTrace* trace) {
  const int i = protocol_index(p);
  const int ppn = g.max_ranks_per_node(), nodes = g.node_count();
  double intra = intra_hw_latency_us(g.ring().intra_class, p, true);
  if (trace != nullptr) {
    const char* hop = g.ring().intra_class == HopClass::kNvlink ? "NVLINK" : "PCI";
    trace->latency.formula = "alpha = base + 2 x ((ppn - 1) x lat_intra + log2(nodes) x lat_net)";
    trace->latency.terms = {
        us_term("base", kLat.base_tree[i],
                fmt::format("NCCL tuning.cc baseLat[Tree][{}]", to_string(p))),
        count_term("ppn", ppn, "GPUs per server in the communicator"),
        us_term("lat_intra", intra,
                fmt::format("NCCL tuning.cc hwLat[{}][Tree][{}]", hop, to_string(p))),
        count_term("nodes", nodes, "servers spanned"),
        us_term("lat_net", kLat.hw_net_tree[i],
                fmt::format("NCCL tuning.cc hwLat[NET][Tree][{}]", to_string(p)))};
  }
  return kLat.base_tree[i] +
         2.0 * ((ppn - 1) * intra + std::log2(static_cast<double>(nodes)) * kLat.hw_net_tree[i]);
}

// The NICs of one server the tree drives: one per channel of its graph (src/graph/search.cc
// ncclTopoSearchRecNet takes the channel's speed off one NIC, and the tree's channel returns
// to that NIC, "Trees are symmetric"; init.cc gives the tree graph the ring's channels),
// at most the server's NICs. On a GB200 NVL72 rack: 16 of its 72 (docs/model.md#tree-nics).
int tree_nics(const CommGraph& g) {
  return std::max(1, std::min(g.node_nic_count(), g.nccl_ring_graph().channels));
}

// The bytes one server's NICs move each way per byte of S: each tree of NCCL's double binary
// tree (src/graph/trees.cc ncclGetDtree) carries S / 2, and a server moves S / 2 each way per
// tree edge it touches: one edge of each tree on two servers (S), three edges on three
// (1.5 S), up to four from four servers (2 S) (docs/model.md#tree-nics).
double tree_nic_load(int nodes) {
  if (nodes <= 2) return 1.0;
  return nodes == 3 ? 1.5 : 2.0;
}

// The store-and-forward stages before a Simple chunk's pipeline is full: its hops up each
// server's chain and the servers' tree and down again, 2 x ((ppn - 1) + log2(nodes)), less the
// last one, which the steady state's S / B carries (docs/model.md#tree-fill).
double tree_fill_stages(const CommGraph& g) {
  const double hops =
      2.0 * (g.max_ranks_per_node() - 1 + std::log2(static_cast<double>(g.node_count())));
  return std::max(0.0, hops - 1.0);
}

// Tree Simple's chunk per channel: one step of the Simple buffer, NCCL_BUFFSIZE (the platform
// plugin's, Topology::nccl_env, or NCCL's 4 MiB) / NCCL_STEPS, bytes.
double tree_simple_chunk_bytes(const CommGraph& g) {
  const std::optional<int> buffsize = g.topology().nccl_env().buffsize_bytes;
  return buffsize ? double(*buffsize) / kNcclSteps : kTreeSimpleChunkBytes;
}

// The start-up of a Simple call of `size_bytes` at algbw `bw_Bps` on `channels` channels:
// every stage moves one chunk per channel at the per-channel rate bw / channels, or the call's
// own share when it is smaller than one chunk per channel, seconds. LL and LL128 carry a flag
// in every line and forward line by line (src/device/prims_ll.h readLL, prims_ll128.h): no
// chunk-sized fill.
double tree_fill_s(const CommGraph& g, Protocol p, int channels, double bw_Bps,
                   double size_bytes) {
  if (p != Protocol::kSimple || bw_Bps <= 0 || channels < 1) return 0.0;
  const double loop_bytes = channels * tree_simple_chunk_bytes(g);
  return tree_fill_stages(g) * std::min(loop_bytes, std::max(0.0, size_bytes)) / bw_Bps;
}

CostModel tree_model(const CommGraph& g, Protocol p, double size_bytes, CostTrace* trace) {
  CostModel m;
  m.eligible = true;
  m.channels = g.channels();
  m.latency_s = tree_latency_us(g, p, trace) * kUs;
  m.latency_hops = 2.0 * (g.max_ranks_per_node() - 1 + std::log2(double(g.node_count())));
  m.net_steps = 2.0 * std::log2(double(g.node_count()));  // up the tree and down again
  // Each server's chain carries S up and S down on every hop (RingPlan::
  // tree_chain_throughput_Bps); the NICs the tree drives carry S, 1.5 S or 2 S each way by the
  // count of servers (tree_nic_load).
  const double ring_intra = g.ring().intra_throughput_Bps;
  // --channels bounds the chain as it bounds the ring.
  const double chain_scale =
      ring_intra > 0 && std::isfinite(ring_intra)
          ? channel_limited_Bps(ring_intra, g.options().channels) / ring_intra
          : 1.0;
  const double intra = g.ring().tree_chain_throughput_Bps * chain_scale;
  const int nics = tree_nics(g);
  const double inter =
      g.node_nic_count() > 0 ? g.node_network_Bps() * nics / g.node_nic_count() : 0.0;
  const double load = tree_nic_load(g.node_count());
  const double raw = std::min(intra, inter / load);
  double bw = raw * kEff.tree;
  if (p == Protocol::kLL) bw = std::min(bw / 3.8, arch_caps(g.min_sm()).ll_max_multi_node_GBps * 1e9);
  if (p == Protocol::kLL128) bw *= 120.0 / 128.0;
  // NCCL's medium-size correction (tuning.cc treeCorrectionFactor): trees fall short of the
  // steady state between about 4 KiB and 64 MiB.
  const double correction = tree_correction(p, size_bytes);
  bw *= correction;
  m.bw_Bps = bw;
  m.fill_s = tree_fill_s(g, p, m.channels, bw, size_bytes);
  m.link_scale = raw > 0 ? bw / raw : 0.0;
  m.bottleneck = inter / load <= intra ? server_nics(inter) : g.ring().tree_chain_bottleneck;
  if (trace != nullptr) {
    ExplainStep& s = trace->bandwidth;
    s.formula = "B = min(T_chain, B_inter / load) x eff_tree";
    if (p == Protocol::kLL)
      s.formula = "B = min(min(T_chain, B_inter / load) x eff_tree / 3.8, cap_LL)";
    if (p == Protocol::kLL128) s.formula += " x 120/128";
    s.formula += " x corr(S)";
    s.terms = {rate_term("T_chain", intra,
                         "one server's chain, S up and S down on every hop "
                         "(docs/model.md#tree-chain)"),
               rate_term("B_inter", inter,
                         fmt::format("the {} NIC{} the tree drives, one per channel of its graph "
                                     "(of the server's {}), x 0.96 each",
                                     nics, nics == 1 ? "" : "s", g.node_nic_count())),
               count_term("eff_tree", kEff.tree, "NCCL tuning.cc Tree AllReduce factor"),
               count_term("load", load,
                          "bytes a server's NICs move each way per byte of S over the double "
                          "binary tree: 1 on two servers, 1.5 on three, 2 from four"),
               count_term("corr(S)", correction,
                          "NCCL tuning.cc treeCorrectionFactor[proto][log2(S / 64 B)]")};
    if (p == Protocol::kLL) {
      s.terms.push_back(rate_term("cap_LL", arch_caps(g.min_sm()).ll_max_multi_node_GBps * 1e9,
                                  "NCCL tuning.cc llMaxBws"));
    }
    add_bottleneck_terms(g, m.bottleneck, s.terms);
    if (m.fill_s > 0) {
      s.notes.push_back(fmt::format(
          "tree fill: 2 x (({} - 1) + log2({})) - 1 = {:.2f} stages x min({} channels x {:g} KiB "
          "chunks, S) / B, each stage one chunk at B / {} = {:.2f} GB/s per channel (NCCL "
          "enqueue.cc: Tree Simple chunk = NCCL_BUFFSIZE / NCCL_STEPS; tuning.cc carried it as "
          "hwLat[NVLINK][Tree][Simple] = 28 us up to 2.22)",
          g.max_ranks_per_node(), g.node_count(), tree_fill_stages(g), m.channels,
          tree_simple_chunk_bytes(g) / 1024, m.channels, bw / m.channels / 1e9));
    }
  }
  return m;
}

// Each server's chain reduces up and broadcasts down; the servers' heads exchange over two
// complementary binary trees, each carrying half the data (NCCL's double binary tree).
FlowOutcome tree_flows(const CommGraph& g, const CostModel& m, double bytes, JointFlows* joint) {
  Lowering low(g, m.link_scale, m.latency_s + m.fill_s, joint);
  const int nodes = g.node_count();
  const std::vector<std::vector<int>> chain = tree_chains(g);
  const int ppn = static_cast<int>(chain.front().size());
  const int rails = std::min(ppn, tree_nics(g));
  // The chains' hops like the first server's first; the trees' edges like the route from the
  // first server to the last, which climbs the fabric furthest.
  low.reserve_like({{size_t(2 * nodes) * size_t(ppn - 1), chain[0][ppn > 1 ? 1 : 0], chain[0][0]},
                    {size_t(4 * rails) * size_t(nodes - 1), chain[0][0], chain[nodes - 1][0]}});
  for (int k = 0; k < nodes; ++k) {
    for (int i = 0; i + 1 < ppn; ++i) {
      low.send(chain[k][i + 1], chain[k][i], bytes);  // reduce towards the head
      low.send(chain[k][i], chain[k][i + 1], bytes);  // broadcast back
    }
  }
  // One tree pair per NIC the tree drives (tree_nics): position j of every server's chain
  // talks to position j of the others, so the nearest NIC of each of the first GPUs carries
  // its share (NCCL's channels, each on one NIC).
  for (int j = 0; j < rails; ++j) {
    for_each_double_tree_edge(nodes, [&](int c, int p) {
      low.send(chain[c][j], chain[p][j], bytes / 2 / rails);
      low.send(chain[p][j], chain[c][j], bytes / 2 / rails);
    });
  }
  return low.run(m.bottleneck);
}

}  // namespace

AlgorithmOps tree_algorithm() {
  return {Algorithm::kTree, "tree", "",
          [](const CommGraph& g, CollectiveOp op) {
            return op == CollectiveOp::kAllReduce && g.node_count() > 1;
          },
          [](const CommGraph& g, CollectiveOp, Protocol p, double size_bytes, CostTrace* trace) {
            return tree_model(g, p, size_bytes, trace);
          },
          [](const CommGraph& g, CollectiveOp, const CostModel& m, double bytes, int,
             JointFlows* joint) { return tree_flows(g, m, bytes, joint);
          }};
}

}  // namespace linksim::detail
