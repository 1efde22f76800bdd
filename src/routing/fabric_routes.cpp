// SPDX-License-Identifier: Apache-2.0
// Up/down fabric routing with destination-mod-k uplink choice (docs/routing.md#fabric).
#include "routing/fabric_routes.hpp"

#include <algorithm>

namespace linksim::routing_detail {
namespace {

bool is_switch(const Topology& topology, DeviceId id) {
  return topology.device(id).kind == DeviceKind::kNetSwitch;
}

/// The links from `from` to network switches of a higher tier (going up).
std::vector<LinkId> uplinks(const Topology& topology, DeviceId from) {
  std::vector<LinkId> found;
  const int tier = topology.device(from).tier;
  for (LinkId id : topology.out_links(from)) {
    const DeviceId to = topology.link(id).to;
    if (is_switch(topology, to) && topology.device(to).tier > tier) found.push_back(id);
  }
  return found;
}

}  // namespace

FabricRoutes::FabricRoutes(const Topology& topology)
    : topology_(topology), ancestors_(topology.devices().size()) {
  const auto devices = topology.devices();
  std::vector<uint32_t> seen_for(devices.size(), 0);  // leaf id + 1 that last marked a switch
  for (uint32_t i = 0; i < devices.size(); ++i) {
    if (devices[i].kind != DeviceKind::kNic) continue;
    const auto up = uplink_of(DeviceId{i});
    if (!up) continue;
    const DeviceId leaf = topology.link(*up).to;
    std::vector<uint32_t>& above = ancestors_[leaf.value];
    if (!above.empty() || uplinks(topology, leaf).empty()) continue;
    // Breadth-first upward; tiers strictly increase, so this ends.
    std::vector<DeviceId> frontier{leaf};
    while (!frontier.empty()) {
      std::vector<DeviceId> next;
      for (DeviceId at : frontier) {
        for (LinkId id : uplinks(topology, at)) {
          const DeviceId to = topology.link(id).to;
          if (seen_for[to.value] == leaf.value + 1) continue;
          seen_for[to.value] = leaf.value + 1;
          above.push_back(to.value);
          next.push_back(to);
        }
      }
      frontier = std::move(next);
    }
    std::sort(above.begin(), above.end());
  }
}

std::optional<LinkId> FabricRoutes::uplink_of(DeviceId nic) const {
  for (LinkId id : topology_.out_links(nic)) {
    const Link& link = topology_.link(id);
    if (link.family == LinkFamily::kNetwork && is_switch(topology_, link.to)) return id;
  }
  return std::nullopt;
}

bool FabricRoutes::reaches(DeviceId upper, DeviceId leaf) const {
  if (upper == leaf) return true;
  const auto& above = ancestors_[leaf.value];
  return std::binary_search(above.begin(), above.end(), upper.value);
}

bool FabricRoutes::descend(DeviceId from, DeviceId leaf, uint32_t key,
                           std::vector<LinkId>* links) const {
  DeviceId at = from;
  while (at != leaf) {
    std::vector<LinkId> down;
    const int tier = topology_.device(at).tier;
    for (LinkId id : topology_.out_links(at)) {
      const DeviceId to = topology_.link(id).to;
      if (is_switch(topology_, to) && topology_.device(to).tier < tier && reaches(to, leaf)) {
        down.push_back(id);
      }
    }
    if (down.empty()) return false;
    const LinkId chosen = down[key % down.size()];
    links->push_back(chosen);
    at = topology_.link(chosen).to;
  }
  return true;
}

std::optional<std::vector<LinkId>> FabricRoutes::route(DeviceId src, DeviceId dst) const {
  const auto up = uplink_of(src);
  const auto down_up = uplink_of(dst);
  if (!up || !down_up) return std::nullopt;
  const DeviceId dst_leaf = topology_.link(*down_up).to;
  // Static destination-based choice, as InfiniBand's D-mod-k: every source picks the same
  // uplink index for a given destination NIC.
  const uint32_t key = dst.value;
  std::vector<LinkId> links{*up};
  DeviceId at = topology_.link(*up).to;
  while (!reaches(at, dst_leaf)) {
    std::vector<LinkId> candidates = uplinks(topology_, at);
    std::vector<LinkId> toward;
    for (LinkId id : candidates) {
      if (reaches(topology_.link(id).to, dst_leaf)) toward.push_back(id);
    }
    if (!toward.empty()) candidates = std::move(toward);
    if (candidates.empty()) return std::nullopt;
    const LinkId chosen = candidates[key % candidates.size()];
    links.push_back(chosen);
    at = topology_.link(chosen).to;
  }
  if (!descend(at, dst_leaf, key, &links)) return std::nullopt;
  links.push_back(topology_.link(*down_up).reverse);
  return links;
}

}  // namespace linksim::routing_detail
