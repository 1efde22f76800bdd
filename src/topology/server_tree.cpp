// SPDX-License-Identifier: Apache-2.0
// The server's PCIe / NVLink tree and its reachability rule (docs/routing.md#the-server-tree).
#include "topology/server_tree.hpp"

#include <deque>

namespace linksim::detail {
namespace {

bool is_pcie_like(LinkFamily family) {
  return family == LinkFamily::kPcie || family == LinkFamily::kC2c;
}

/// Breadth-first from `from` over the links `follow` accepts, into devices `passes` lets the
/// search continue from (the start always does), until `done` holds for a device. Returns
/// the links from `from` to that device, or nullopt.
template <class Follow, class Passes, class Done>
std::optional<std::vector<LinkId>> search(const Topology& topology, DeviceId from, Follow follow,
                                          Passes passes, Done done) {
  std::vector<std::optional<LinkId>> via(topology.devices().size());
  std::vector<bool> seen(topology.devices().size(), false);
  std::deque<DeviceId> queue{from};
  seen[from.value] = true;
  while (!queue.empty()) {
    const DeviceId at = queue.front();
    queue.pop_front();
    if (done(at)) {
      std::vector<LinkId> links;
      for (DeviceId d = at; via[d.value]; d = topology.link(*via[d.value]).from) {
        links.insert(links.begin(), *via[d.value]);
      }
      return links;
    }
    if (at != from && !passes(at)) continue;
    for (LinkId id : topology.out_links(at)) {
      const Link& link = topology.link(id);
      if (!follow(link) || seen[link.to.value]) continue;
      seen[link.to.value] = true;
      via[link.to.value] = id;
      queue.push_back(link.to);
    }
  }
  return std::nullopt;
}

}  // namespace

UpChain find_up_chain(const Topology& topology, DeviceId device) {
  const auto links = search(
      topology, device, [](const Link& link) { return is_pcie_like(link.family); },
      [&](DeviceId at) { return topology.device(at).kind == DeviceKind::kPcieSwitch; },
      [&](DeviceId at) { return topology.device(at).kind == DeviceKind::kCpu; });
  UpChain chain;
  if (!links || links->empty()) return chain;
  chain.links = *links;
  for (LinkId id : chain.links) chain.hops.push_back(topology.link(id).to);
  const Link& entry = topology.link(chain.links.back());
  chain.bridge = entry.host_bridge >= 0 ? entry.host_bridge : -1 - long(entry.from.value);
  return chain;
}

ChainMeeting chains_meet(const UpChain& a, const UpChain& b) {
  for (size_t i = 0; i < a.hops.size(); ++i) {
    for (size_t j = 0; j < b.hops.size(); ++j) {
      if (a.hops[i] == b.hops[j]) return {i, j};
    }
  }
  return {};
}

std::optional<std::vector<LinkId>> smp_path(const Topology& topology, DeviceId from, DeviceId to) {
  return search(
      topology, from, [](const Link& link) { return link.family == LinkFamily::kSmp; },
      [](DeviceId) { return true; }, [&](DeviceId at) { return at == to; });
}

std::vector<NvlinkBond> nvlink_bonds(const Topology& topology, DeviceId a, DeviceId b) {
  std::vector<NvlinkBond> bonds;
  for (LinkId id : topology.out_links(a)) {
    const Link& link = topology.link(id);
    if (link.family != LinkFamily::kNvlink) continue;
    if (link.to == b) {
      bonds.push_back({{id}, link.lanes});
      continue;
    }
    if (topology.device(link.to).kind != DeviceKind::kNvswitch) continue;
    for (LinkId out : topology.out_links(link.to)) {
      const Link& down = topology.link(out);
      if (down.to == b && down.family == LinkFamily::kNvlink) bonds.push_back({{id, out}, link.lanes});
    }
  }
  return bonds;
}

bool reaches(const Topology& topology, DeviceId a, const UpChain& chain_a, DeviceId b,
             const UpChain& chain_b) {
  const Device& da = topology.device(a);
  const Device& db = topology.device(b);
  const bool gpus = da.kind == DeviceKind::kGpu && db.kind == DeviceKind::kGpu;
  if (gpus && !nvlink_bonds(topology, a, b).empty()) return true;
  if (chain_a.cpu() && chain_b.cpu() &&
      (chain_a.cpu() == chain_b.cpu() || smp_path(topology, *chain_a.cpu(), *chain_b.cpu()))) {
    return true;  // staged through host memory
  }
  const ChainMeeting meeting = chains_meet(chain_a, chain_b);
  const bool below_cpu =
      meeting.a_hop && topology.device(chain_a.hops[*meeting.a_hop]).kind != DeviceKind::kCpu;
  return below_cpu && (!gpus || (da.p2p && db.p2p));
}

ServerTree build_server_tree(const Topology& topology, int host) {
  const size_t count = topology.devices().size();
  ServerTree tree;
  tree.chains.resize(count);
  tree.down_link.assign(count, std::nullopt);
  tree.children.resize(count);
  tree.depth.assign(count, -1);
  tree.nvlink_component.assign(count, -1);
  std::vector<DeviceId> members;
  for (uint32_t i = 0; i < count; ++i) {
    if (topology.devices()[i].host == host) members.push_back(DeviceId{i});
  }
  for (DeviceId d : members) {
    if (topology.device(d).kind == DeviceKind::kCpu) {
      tree.depth[d.value] = 0;
      continue;
    }
    UpChain& chain = tree.chains[d.value] = find_up_chain(topology, d);
    if (chain.links.empty()) continue;
    tree.depth[d.value] = int(chain.links.size());
    tree.down_link[d.value] = Topology::reverse(chain.links.front());
  }
  for (DeviceId parent : members) {
    for (LinkId id : topology.out_links(parent)) {
      const Link& link = topology.link(id);
      if (link.family == LinkFamily::kPcie && tree.down_link[link.to.value] == id) {
        tree.children[parent.value].push_back(link.to);
      }
    }
  }
  int next = 0;
  for (DeviceId start : members) {
    if (tree.nvlink_component[start.value] >= 0) continue;
    tree.nvlink_component[start.value] = next;
    std::deque<DeviceId> queue{start};
    while (!queue.empty()) {
      const DeviceId at = queue.front();
      queue.pop_front();
      for (LinkId id : topology.out_links(at)) {
        const Link& link = topology.link(id);
        if (link.family != LinkFamily::kNvlink || tree.nvlink_component[link.to.value] >= 0) continue;
        tree.nvlink_component[link.to.value] = next;
        queue.push_back(link.to);
      }
    }
    ++next;
  }
  return tree;
}

}  // namespace linksim::detail
