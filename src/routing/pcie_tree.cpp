// SPDX-License-Identifier: Apache-2.0
// PCIe chains, nvidia-smi PCIe classes and PCIe / host-memory paths (docs/routing.md).
#include "routing/pcie_tree.hpp"

namespace linksim::routing_detail {
namespace {

void append_reversed_down(const Topology& topology, const UpChain& chain, size_t upto,
                          std::vector<LinkId>* links) {
  // The way down from hops[upto] to the chain's device: reverse links, last first.
  for (size_t i = upto + 1; i-- > 0;) links->push_back(Topology::reverse(chain.links[i]));
}

}  // namespace

PcieMeeting meet(const Topology& topology, const UpChain& a, const UpChain& b) {
  PcieMeeting meeting;
  const detail::ChainMeeting shared = detail::chains_meet(a, b);
  meeting.a_hop = shared.a_hop;
  meeting.b_hop = shared.b_hop;
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
  auto across = detail::smp_path(topology, a.hops.back(), b.hops.back());
  if (!across) return std::nullopt;
  std::vector<LinkId> links = a.links;
  links.insert(links.end(), across->begin(), across->end());
  append_reversed_down(topology, b, b.links.size() - 1, &links);
  return links;
}

}  // namespace linksim::routing_detail
