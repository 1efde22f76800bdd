// SPDX-License-Identifier: Apache-2.0
// PCIe chains, nvidia-smi PCIe classes and PCIe / host-memory paths (docs/routing.md).
#include "routing/pcie_tree.hpp"

#include <deque>

namespace linksim::routing_detail {
namespace {

bool is_pcie_like(LinkFamily family) {
  return family == LinkFamily::kPcie || family == LinkFamily::kC2c;
}

/// Walks BFS parents back from `target` into the ordered links from the source.
std::vector<LinkId> unwind(const Topology& topology, const std::vector<std::optional<LinkId>>& via,
                           DeviceId target) {
  std::vector<LinkId> links;
  for (DeviceId at = target; via[at.value]; at = topology.link(*via[at.value]).from) {
    links.insert(links.begin(), *via[at.value]);
  }
  return links;
}

void append_reversed_down(const Topology& topology, const UpChain& chain, size_t upto,
                          std::vector<LinkId>* links) {
  // The way down from hops[upto] to the chain's device: reverse links, last first.
  for (size_t i = upto + 1; i-- > 0;) links->push_back(topology.link(chain.links[i]).reverse);
}

}  // namespace

UpChain find_up_chain(const Topology& topology, DeviceId device) {
  std::vector<std::optional<LinkId>> via(topology.devices().size());
  std::vector<bool> seen(topology.devices().size(), false);
  std::deque<DeviceId> queue{device};
  seen[device.value] = true;
  while (!queue.empty()) {
    const DeviceId at = queue.front();
    queue.pop_front();
    if (topology.device(at).kind == DeviceKind::kCpu) {
      UpChain chain;
      chain.links = unwind(topology, via, at);
      for (LinkId id : chain.links) chain.hops.push_back(topology.link(id).to);
      const Link& entry = topology.link(chain.links.back());
      chain.bridge = entry.host_bridge >= 0 ? entry.host_bridge : -1 - long(entry.from.value);
      return chain;
    }
    if (at != device && topology.device(at).kind != DeviceKind::kPcieSwitch) continue;
    for (LinkId id : topology.out_links(at)) {
      const Link& link = topology.link(id);
      if (!is_pcie_like(link.family) || seen[link.to.value]) continue;
      seen[link.to.value] = true;
      via[link.to.value] = id;
      queue.push_back(link.to);
    }
  }
  return {};
}

PcieMeeting meet(const Topology& topology, const UpChain& a, const UpChain& b) {
  PcieMeeting meeting;
  for (size_t i = 0; i < a.hops.size() && !meeting.a_hop; ++i) {
    for (size_t j = 0; j < b.hops.size(); ++j) {
      if (a.hops[i] != b.hops[j]) continue;
      meeting.a_hop = i;
      meeting.b_hop = j;
      break;
    }
  }
  if (!meeting.a_hop) {
    meeting.cls = PathClass::kSys;
    return meeting;
  }
  const Device& common = topology.device(a.hops[*meeting.a_hop]);
  if (common.kind == DeviceKind::kCpu) {
    meeting.cls = a.bridge == b.bridge ? PathClass::kPhb : PathClass::kNode;
  } else {
    // PIX: both directly below the same switch (one bridge on the path); else PXB.
    meeting.cls = (*meeting.a_hop == 0 && *meeting.b_hop == 0) ? PathClass::kPix : PathClass::kPxb;
  }
  return meeting;
}

std::optional<std::vector<LinkId>> smp_path(const Topology& topology, DeviceId from, DeviceId to) {
  std::vector<std::optional<LinkId>> via(topology.devices().size());
  std::vector<bool> seen(topology.devices().size(), false);
  std::deque<DeviceId> queue{from};
  seen[from.value] = true;
  while (!queue.empty()) {
    const DeviceId at = queue.front();
    queue.pop_front();
    if (at == to) return unwind(topology, via, to);
    for (LinkId id : topology.out_links(at)) {
      const Link& link = topology.link(id);
      if (link.family != LinkFamily::kSmp || seen[link.to.value]) continue;
      seen[link.to.value] = true;
      via[link.to.value] = id;
      queue.push_back(link.to);
    }
  }
  return std::nullopt;
}

std::optional<std::vector<LinkId>> pcie_path(const Topology& topology, const UpChain& a,
                                             const UpChain& b, const PcieMeeting& meeting) {
  if (!meeting.a_hop) return staged_path(topology, a, b);
  std::vector<LinkId> links(a.links.begin(), a.links.begin() + long(*meeting.a_hop) + 1);
  append_reversed_down(topology, b, *meeting.b_hop, &links);
  return links;
}

std::optional<std::vector<LinkId>> staged_path(const Topology& topology, const UpChain& a,
                                               const UpChain& b) {
  if (a.links.empty() || b.links.empty()) return std::nullopt;
  auto across = smp_path(topology, a.hops.back(), b.hops.back());
  if (!across) return std::nullopt;
  std::vector<LinkId> links = a.links;
  links.insert(links.end(), across->begin(), across->end());
  append_reversed_down(topology, b, b.links.size() - 1, &links);
  return links;
}

}  // namespace linksim::routing_detail
