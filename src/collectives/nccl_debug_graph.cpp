// SPDX-License-Identifier: Apache-2.0
#include "collectives/nccl_debug_graph.hpp"

#include <algorithm>
#include <cmath>

#include "collectives/lowering.hpp"
#include "collectives/model_params.hpp"

namespace linksim::detail {
namespace {

constexpr int kNcclAmpereSm = 80;

int rank_of(const CommGraph& g, DeviceId gpu) {
  const auto& ranks = g.ranks();
  const auto it = std::find(ranks.begin(), ranks.end(), gpu);
  return it == ranks.end() ? -1 : static_cast<int>(it - ranks.begin());
}

// The NIC that moves a rank's (or its PXN proxy's) bytes, its index, and whether the GPU
// reaches it by PCIe peer-to-peer (the router's GPUDirect RDMA rule: PIX/PXB).
void nic_end(const CommGraph& g, DeviceId gpu, bool sending, int* dev, bool* gdr) {
  const std::optional<DeviceId> nic = g.router().nearest_nic(gpu);
  if (!nic) return;
  *dev = g.topology().device(*nic).index;
  const Route leg = sending ? g.router().route(gpu, *nic) : g.router().route(*nic, gpu);
  *gdr = leg.transport == Transport::kP2p;
}

NcclHop describe_hop(const CommGraph& g, int a, int b) {
  const Topology& t = g.topology();
  const Route& r = g.route(a, b);
  NcclHop hop;
  hop.from_rank = a;
  hop.to_rank = b;
  hop.from_dev = t.device(g.ranks()[a]).index;
  hop.to_dev = t.device(g.ranks()[b]).index;
  hop.transport = r.transport;
  hop.path = r.cls;
  hop.nvlinks = r.nvlinks;
  hop.p2p_read = r.transport == Transport::kP2p && r.cls == PathClass::kNvlink &&
                 t.gpu_model(g.ranks()[a]).sm == kNcclAmpereSm &&
                 t.gpu_model(g.ranks()[b]).sm == kNcclAmpereSm;
  if (r.transport == Transport::kNet) {
    const DeviceId sender = r.proxy.value_or(g.ranks()[a]);
    if (r.proxy) hop.proxy_rank = rank_of(g, *r.proxy);
    nic_end(g, sender, true, &hop.send_net_dev, &hop.send_gdr);
    nic_end(g, g.ranks()[b], false, &hop.recv_net_dev, &hop.recv_gdr);
  }
  return hop;
}

}  // namespace

std::vector<NcclRingChannel> ring_channels(const CommGraph& g) {
  const RingPlan& plan = g.ring();
  const int rings = static_cast<int>(plan.rings.size());
  std::vector<NcclRingChannel> out;
  for (int c = 0; c < g.channels(); ++c) {
    NcclRingChannel ch;
    ch.id = c;
    ch.ring = c % rings;
    const std::vector<int>& ring = plan.rings[static_cast<size_t>(ch.ring)];
    const size_t n = ring.size();
    const size_t start = static_cast<size_t>(std::find(ring.begin(), ring.end(), 0) - ring.begin());
    for (size_t i = 0; i < n; ++i) ch.ranks.push_back(ring[(start + i) % n]);
    for (size_t i = 0; n > 1 && i < n; ++i) {
      ch.hops.push_back(describe_hop(g, ch.ranks[i], ch.ranks[(i + 1) % n]));
    }
    out.push_back(std::move(ch));
  }
  return out;
}

NcclRingGraph ring_graph(const CommGraph& g, const std::vector<NcclRingChannel>& channels) {
  NcclRingGraph graph;
  graph.channels = static_cast<int>(channels.size());
  // NCCL prints its search speed: an NVLink-bound ring counts topo.h's per-link constant,
  // not the realized rate (docs/model.md#link-efficiency).
  double throughput = g.ring().throughput_Bps;
  const double realized_lane_Bps = g.nvlink_lane_Bps() * g.nvlink_efficiency();
  if (g.ring().intra_class == HopClass::kNvlink && realized_lane_Bps > 0 &&
      throughput >= g.ring().intra_throughput_Bps) {
    throughput *= nccl_nvlink_bw_Bps(g.min_sm()) / realized_lane_Bps;
  }
  if (std::isfinite(throughput) && graph.channels > 0) {
    graph.bw_intra_GBps = throughput / graph.channels / 1e9;
    graph.bw_inter_GBps = graph.bw_intra_GBps;
  }
  PathClass intra = PathClass::kSelf;
  PathClass inter = PathClass::kPix;
  bool pxn = false;
  for (const NcclRingChannel& ch : channels) {
    for (const NcclHop& hop : ch.hops) {
      if (hop.transport != Transport::kNet) {
        intra = std::max(intra, hop.path);
        continue;
      }
      // NCCL's typeInter is PATH_PXN where the GPU's own path to the NIC in use is worse than
      // PXB and the relaying NVLink peer is within PXB of it (paths.cc); otherwise the class
      // of the GPU to its own NIC. A relay whose NIC is no nearer (GB200's racks, PHB) is no PXN.
      const Route& r = g.route(hop.from_rank, hop.to_rank);
      const DeviceId gpu = g.ranks()[hop.from_rank];
      const Router& router = g.router();
      const auto used_nic = router.nearest_nic(r.proxy.value_or(gpu));
      if (r.proxy && used_nic && router.classify(gpu, *used_nic) > PathClass::kPxb &&
          router.classify(*r.proxy, *used_nic) <= PathClass::kPxb) {
        pxn = true;
      } else if (const auto own_nic = router.nearest_nic(gpu)) {
        inter = std::max(inter, router.classify(gpu, *own_nic));
      }
    }
  }
  graph.type_intra = std::string(nccl_path_type(intra));
  graph.type_inter = pxn ? "PXN" : std::string(nccl_path_type(inter));
  return graph;
}

std::vector<NcclTree> double_tree(const CommGraph& g) {
  const int n = static_cast<int>(g.ranks().size());
  const std::vector<std::vector<int>> chains = tree_chains(g);
  const int servers = static_cast<int>(chains.size());
  std::vector<NcclTree> trees(2);
  for (int t = 0; t < 2; ++t) {
    NcclTree& tree = trees[static_cast<size_t>(t)];
    tree.id = t;
    for (int r = 0; r < n; ++r) tree.nodes.push_back({.rank = r});
    for (const std::vector<int>& chain : chains) {
      for (size_t i = 0; i < chain.size(); ++i) {
        NcclTreeNode& node = tree.nodes[static_cast<size_t>(chain[i])];
        node.up = i > 0 ? chain[i - 1] : -1;
        node.down[0] = i + 1 < chain.size() ? chain[i + 1] : -1;
      }
    }
    for (int s = 0; s < servers; ++s) {
      const int parent = t == 0 ? btree_parent(s, servers) : second_btree_parent(s, servers);
      if (parent < 0) continue;
      const int child_head = chains[static_cast<size_t>(s)].front();
      const int parent_head = chains[static_cast<size_t>(parent)].front();
      tree.nodes[static_cast<size_t>(child_head)].up = parent_head;
      auto& down = tree.nodes[static_cast<size_t>(parent_head)].down;
      const auto slot = std::find(down.begin(), down.end(), -1);
      if (slot != down.end()) *slot = child_head;
    }
  }
  return trees;
}

}  // namespace linksim::detail
