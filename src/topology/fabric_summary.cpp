// SPDX-License-Identifier: Apache-2.0
// Planes and tiers of a generated fabric, read back from its switches.
#include "linksim/fabric_summary.hpp"

#include <fmt/core.h>

#include <boost/pending/disjoint_sets.hpp>

namespace linksim {
namespace {

bool is_fabric_switch(const Device& device) {
  return device.kind == DeviceKind::kNetSwitch && !device.host;
}

}  // namespace

FabricSummary summarize_fabric(const Topology& topology) {
  FabricSummary summary;
  const auto devices = topology.devices();
  // Union-find over device ids: the switches linked to each other form one plane.
  boost::disjoint_sets_with_storage<> sets(devices.size());
  // Links that touch a fabric device come after every server block (topology.hpp layout
  // contract): the servers' own links never reach a fabric switch.
  const auto fabric_links =
      topology.links().subspan(topology.host_link_offset(topology.host_count()));
  for (const Link& link : fabric_links) {
    if (is_fabric_switch(devices[link.from.value]) && is_fabric_switch(devices[link.to.value])) {
      sets.union_set(link.from.value, link.to.value);
    }
  }
  std::vector<int> rail_of_plane(devices.size(), -1);  // by plane root: the NIC index seen
  bool per_rail = true;
  for (const Link& link : fabric_links) {
    const Device& from = devices[link.from.value];
    if (from.kind != DeviceKind::kNic || !is_fabric_switch(devices[link.to.value])) continue;
    ++summary.nics;
    int& rail = rail_of_plane[sets.find_set(link.to.value)];
    if (rail == -1) rail = from.index;
    else if (rail != from.index) per_rail = false;
  }
  for (uint32_t i = 0; i < devices.size(); ++i) {
    if (!is_fabric_switch(devices[i])) continue;
    const int tier = std::max(1, int(devices[i].tier));
    if (int(summary.switches_by_tier.size()) < tier) summary.switches_by_tier.resize(size_t(tier));
    ++summary.switches_by_tier[size_t(tier - 1)];
    summary.tiers = std::max(summary.tiers, tier);
    if (sets.find_set(i) == i) ++summary.planes;
  }
  summary.plane_per_rail = per_rail && summary.planes > 1;
  return summary;
}

std::string fabric_tier_name(int tier) {
  switch (tier) {
    case 1: return "leaf";
    case 2: return "spine";
    case 3: return "core";
    case 4: return "super-core";
    default: return fmt::format("tier {}", tier);
  }
}

std::string describe_fabric(const FabricSummary& summary) {
  if (summary.planes == 0) return "none";
  std::string text =
      summary.planes == 1
          ? "1 plane"
          : fmt::format("{} planes{}", summary.planes,
                        summary.plane_per_rail ? " (one per rail)" : "");
  text += fmt::format(" of {} tier{}:", summary.tiers, summary.tiers == 1 ? "" : "s");
  for (size_t t = 0; t < summary.switches_by_tier.size(); ++t) {
    const int count = summary.switches_by_tier[t];
    const std::string name = fabric_tier_name(int(t) + 1);
    const std::string plural = count == 1 ? name : name == "leaf" ? "leaves" : name + "s";
    text += fmt::format("{} {} {}", t == 0 ? "" : ",", count, plural);
  }
  return summary.planes > 1 ? text + " in all" : text;
}

}  // namespace linksim
