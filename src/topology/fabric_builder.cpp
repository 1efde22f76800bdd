// SPDX-License-Identifier: Apache-2.0
// Builds single-switch, fat-tree and rail-optimized networks between the servers.
// The construction (port counts, tiers, parallel cables) is documented in docs/fabrics.md.
#include "topology/fabric_builder.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/core.h>

namespace linksim::detail {
namespace {

/// Per-direction bandwidth of one cable of a fixed-rate or default-width link type, bytes/s.
double cable_bw_Bps(const LinkType& type) {
  return type.lanes_key.empty() ? type.lane_bw_Bps : type.lane_bw_Bps * type.default_lanes;
}

int ceil_div(long a, long b) { return int((a + b - 1) / b); }

/// Splits `total` cables over `parts` as evenly as possible (the first ones get the extra).
int even_share(int total, int parts, int index) {
  return total / parts + (index < total % parts ? 1 : 0);
}

/// Adds switches and links to a topology; holds what every step needs.
class FabricWriter {
 public:
  FabricWriter(Topology& topology, const FabricSpec& spec, const LinkType& trunk)
      : topology_(topology),
        spec_(spec),
        trunk_(trunk),
        details_(topology.add_details(DeviceDetails{.where = spec.where})) {}

  DeviceId add_switch(const std::string& prefix, int index, int tier, int group) {
    Device device;
    device.name = fmt::format("{}{}", prefix, index);
    device.kind = DeviceKind::kNetSwitch;
    device.index = index;
    device.reduction = spec_.reduction;
    device.tier = int8_t(tier);
    device.group = group;
    device.details = details_;
    return topology_.add_device(std::move(device));
  }

  /// `cables` parallel switch-to-switch cables become one link (lanes = cables, bw summed).
  void add_trunk(DeviceId lower, DeviceId upper, int cables) {
    if (cables <= 0) return;
    topology_.add_link(lower, upper, trunk_, cables, cables * cable_bw_Bps(trunk_),
                       trunk_.latency_s, spec_.where);
  }

  void add_nic_link(DeviceId nic, DeviceId leaf, const LinkType& type) {
    topology_.add_link(nic, leaf, type, 1, cable_bw_Bps(type), type.latency_s, spec_.where);
  }

  Topology& topology() { return topology_; }
  const FabricSpec& spec() const { return spec_; }

 private:
  Topology& topology_;
  const FabricSpec& spec_;
  const LinkType& trunk_;
  uint32_t details_;  ///< the switches' shared details entry: declared at spec.where
};

/// Joins `lowers` (each with `uplinks` spare ports) to new switches of `upper_radix` down
/// ports each: every upper switch gets the same number of cables from every lower one.
/// Returns the upper switches; `cables_up[j]` receives the cables each lower sends to upper j.
std::vector<DeviceId> join_upward(FabricWriter& writer, const std::vector<DeviceId>& lowers,
                                  int uplinks, int upper_radix, const std::string& prefix,
                                  int* next_index, int tier, int group,
                                  std::vector<int>* cables_up) {
  const int lower_count = int(lowers.size());
  // c cables per (lower, upper) pair keep each upper within its ports: lower_count * c <= radix.
  const int per_pair = std::clamp(upper_radix / lower_count, 1, uplinks);
  const int uppers = ceil_div(uplinks, per_pair);
  std::vector<DeviceId> result;
  cables_up->assign(size_t(uppers), 0);
  for (int j = 0; j < uppers; ++j) {
    DeviceId upper = writer.add_switch(prefix, (*next_index)++, tier, group);
    result.push_back(upper);
    (*cables_up)[size_t(j)] = even_share(uplinks, uppers, j);
  }
  for (DeviceId lower : lowers) {
    for (int j = 0; j < uppers; ++j) {
      writer.add_trunk(lower, result[size_t(j)], (*cables_up)[size_t(j)]);
    }
  }
  return result;
}

struct NicRef {
  DeviceId id;
  const LinkType* type;
};

std::vector<NicRef> collect_nics(const Topology& topology, const Catalog& catalog) {
  std::vector<NicRef> nics;
  const auto devices = topology.devices();
  // Every server's NICs repeat host 0's few models: one catalog lookup per distinct model
  // (interned, so equal models compare as one pointer), not one per NIC.
  std::vector<std::pair<InternedString, const LinkType*>> type_of_model;
  for (uint32_t i = 0; i < devices.size(); ++i) {
    const Device& device = devices[i];
    if (device.kind != DeviceKind::kNic || !device.host) continue;
    auto known = std::find_if(type_of_model.begin(), type_of_model.end(),
                              [&](const auto& entry) { return entry.first == device.model; });
    if (known == type_of_model.end()) {
      known = type_of_model.insert(known, {device.model, catalog.find_link_type(device.model)});
    }
    const LinkType* type = known->second;
    if (type == nullptr) {
      throw ConfigError(topology.details(device).where,
                        fmt::format("expected a network link type for nic '{}', got '{}'",
                                    device.name, device.model));
    }
    nics.push_back({DeviceId{i}, type});
  }
  return nics;
}

struct LeafPorts {
  int down = 1;  ///< NIC ports per leaf
  int up = 1;    ///< uplink ports per leaf
};

/// d = radix * o / (o + 1) downlinks, u = d / o uplinks (docs/fabrics.md#leaves).
LeafPorts leaf_ports(const FabricSpec& spec) {
  const double o = spec.oversubscription;
  LeafPorts ports;
  ports.down = std::clamp(int(double(spec.radix) * o / (o + 1.0)), 1, spec.radix - 1);
  ports.up = std::clamp(int(double(ports.down) / o), 1, spec.radix - ports.down);
  return ports;
}

/// Leaves per pod when a spine tier cannot join them all: spines with half their ports down,
/// rounded to whole runs of `pod_granularity` (a rail group) when they fit.
int pod_size_for(int radix, int pod_granularity) {
  const int spine_down = radix / 2;
  if (pod_granularity > 1 && spine_down >= pod_granularity) {
    return spine_down / pod_granularity * pod_granularity;
  }
  return std::max(1, spine_down);
}

/// Switch tiers a plane of `leaf_count` leaves needs (docs/fabrics.md#tiers): 1 for one leaf,
/// 2 while one spine tier joins them (leaves <= radix), then one more tier each time the
/// groups of the tier below (pods of `pod_size` leaves, then blocks of radix / 2) still
/// outnumber the radix. Returns kMaxFabricTiers + 1 when four tiers do not suffice.
int tiers_for(long leaf_count, int radix, int pod_size) {
  if (leaf_count <= 1) return 1;
  long groups = leaf_count;
  int block = pod_size;
  for (int tiers = 2; tiers <= kMaxFabricTiers; ++tiers) {
    if (groups <= radix) return tiers;
    groups = (groups + block - 1) / block;
    block = std::max(1, radix / 2);
  }
  return kMaxFabricTiers + 1;
}

/// Leaves a plane of kMaxFabricTiers tiers holds: radix x pod size x (radix / 2)^(tiers - 3).
long max_leaves(int radix, int pod_size) {
  long leaves = long(radix) * pod_size;
  for (int t = 3; t < kMaxFabricTiers; ++t) leaves *= std::max(1, radix / 2);
  return leaves;
}

const char* tier_prefix(int tier) {
  switch (tier) {
    case 2: return "spine";
    case 3: return "core";
    default: return "super";
  }
}

/// Joins `lowers` (each with `uplinks` spare ports) under switches of tier `tier` and above
/// (docs/fabrics.md#tiers): directly when one tier of radix-port switches can join them all;
/// otherwise in blocks (runs of `block` lowers) under switches with half their ports down,
/// the j-th switch of every block then joined the same way one tier up, each sending up as
/// many cables as it receives (non-blocking above the leaves).
void join_tiers(FabricWriter& writer, const std::vector<DeviceId>& lowers, int uplinks,
                int block, int tier, std::vector<int>* next_index) {
  const int radix = writer.spec().radix;
  const int count = int(lowers.size());
  std::vector<int> cables;
  if (count <= radix) {
    join_upward(writer, lowers, uplinks, radix, tier_prefix(tier), &(*next_index)[size_t(tier)],
                tier, -1, &cables);
    return;
  }
  const int blocks = ceil_div(count, block);
  std::vector<std::vector<DeviceId>> block_uppers;  // [block][upper index in block]
  std::vector<int> upper_uplinks;                   // per upper index: cables down = cables up
  for (int b = 0; b < blocks; ++b) {
    const auto first = lowers.begin() + long(b) * block;
    const auto last = lowers.begin() + std::min(count, (b + 1) * block);
    const std::vector<DeviceId> members(first, last);
    block_uppers.push_back(join_upward(writer, members, uplinks, std::max(1, radix / 2),
                                       tier_prefix(tier), &(*next_index)[size_t(tier)], tier, b,
                                       &cables));
    for (size_t j = 0; j < cables.size(); ++j) {
      if (upper_uplinks.size() <= j) upper_uplinks.push_back(0);
      upper_uplinks[j] = std::max(upper_uplinks[j], cables[j] * int(members.size()));
    }
  }
  for (size_t j = 0; j < upper_uplinks.size(); ++j) {
    std::vector<DeviceId> group;
    for (const auto& in_block : block_uppers) {
      if (j < in_block.size()) group.push_back(in_block[j]);
    }
    if (group.size() > 1) {
      join_tiers(writer, group, upper_uplinks[j], std::max(1, radix / 2), tier + 1, next_index);
    }
  }
}

/// Spines (and higher tiers if the radix demands) above `leaves`, which are ordered so that
/// consecutive runs of `pod_granularity` belong together in a pod.
void build_upper_tiers(FabricWriter& writer, const std::vector<DeviceId>& leaves, int uplinks,
                       int pod_granularity, std::vector<int>* next_index) {
  if (leaves.size() <= 1) return;
  join_tiers(writer, leaves, uplinks, pod_size_for(writer.spec().radix, pod_granularity), 2,
             next_index);
}

void check_single_switch(const FabricSpec& spec, long nic_count) {
  if (nic_count > spec.radix) {
    throw ConfigError(spec.where,
                      fmt::format("expected a radix of at least {} for a single_switch fabric "
                                  "(one port per NIC), got {}",
                                  nic_count, spec.radix));
  }
}

void build_single_switch(FabricWriter& writer, const std::vector<NicRef>& nics) {
  check_single_switch(writer.spec(), long(nics.size()));
  DeviceId hub = writer.add_switch("switch", 0, 1, -1);
  for (const NicRef& nic : nics) writer.add_nic_link(nic.id, hub, *nic.type);
}

void build_fat_tree(FabricWriter& writer, const std::vector<NicRef>& nics) {
  const LeafPorts ports = leaf_ports(writer.spec());
  const int leaf_count = ceil_div(long(nics.size()), ports.down);
  std::vector<DeviceId> leaves;
  for (int i = 0; i < leaf_count; ++i) leaves.push_back(writer.add_switch("leaf", i, 1, -1));
  for (size_t n = 0; n < nics.size(); ++n) {
    writer.add_nic_link(nics[n].id, leaves[n / size_t(ports.down)], *nics[n].type);
  }
  std::vector<int> next_index(kMaxFabricTiers + 1, 0);
  build_upper_tiers(writer, leaves, ports.up, 1, &next_index);
}

void build_rail_optimized(FabricWriter& writer, const std::vector<NicRef>& nics) {
  const Topology& topology = writer.topology();
  const int hosts = std::max(1, topology.host_count());
  const int rails = int(nics.size()) / hosts;  // NICs per server; identical host blocks
  const LeafPorts ports = leaf_ports(writer.spec());
  const int leaves_per_rail = ceil_div(hosts, ports.down);
  const FabricLayout layout = plan_fabric(writer.spec(), hosts, rails);
  // leaf id = rail * leaves_per_rail + k; NIC r of host h sits on leaf k = h / down of rail r.
  std::vector<DeviceId> leaves;
  for (int rail = 0; rail < rails; ++rail) {
    for (int k = 0; k < leaves_per_rail; ++k) {
      leaves.push_back(writer.add_switch("leaf", rail * leaves_per_rail + k, 1, rail));
    }
  }
  for (size_t n = 0; n < nics.size(); ++n) {
    const int host = int(n) / rails;
    const int rail = int(n) % rails;
    const DeviceId leaf = leaves[size_t(rail * leaves_per_rail + host / ports.down)];
    writer.add_nic_link(nics[n].id, leaf, *nics[n].type);
  }
  std::vector<int> next_index(kMaxFabricTiers + 1, 0);
  if (layout.planes > 1) {
    // One plane per rail: rail r's leaves and the tiers above them touch no other rail.
    for (int rail = 0; rail < rails; ++rail) {
      const auto first = leaves.begin() + long(rail) * leaves_per_rail;
      build_upper_tiers(writer, std::vector<DeviceId>(first, first + leaves_per_rail), ports.up,
                        1, &next_index);
    }
    return;
  }
  // Pods hold the k-th leaf of every rail together (a scalable unit), so order leaves by k.
  std::vector<DeviceId> pod_order;
  for (int k = 0; k < leaves_per_rail; ++k) {
    for (int rail = 0; rail < rails; ++rail) {
      pod_order.push_back(leaves[size_t(rail * leaves_per_rail + k)]);
    }
  }
  build_upper_tiers(writer, pod_order, ports.up, rails, &next_index);
}

void check_spec(const FabricSpec& spec) {
  if (spec.radix < 2) {
    throw ConfigError(spec.where,
                      fmt::format("expected a radix of at least 2, got {}", spec.radix));
  }
  if (!(spec.oversubscription >= 1.0)) {
    throw ConfigError(spec.where, fmt::format("expected an oversubscription of at least 1, got {}",
                                              spec.oversubscription));
  }
}

/// `planes` planes of `leaves` leaves each; throws when four tiers cannot join a plane.
FabricLayout tree_layout(const FabricSpec& spec, int planes, long leaves, int pod_size,
                         long capacity_nics, long nics) {
  FabricLayout layout;
  layout.planes = planes;
  layout.leaves_per_plane = int(leaves);
  layout.tiers = tiers_for(leaves, spec.radix, pod_size);
  if (layout.tiers > kMaxFabricTiers) {
    throw ConfigError(spec.where,
                      fmt::format("expected at most {} NICs for radix {} with four tiers, got {}",
                                  capacity_nics, spec.radix, nics));
  }
  return layout;
}

}  // namespace

FabricLayout plan_fabric(const FabricSpec& spec, int hosts, int nics_per_host) {
  check_spec(spec);
  const long nics = long(hosts) * nics_per_host;
  if (nics == 0) return {};  // build_fabric names the missing NICs
  const long down = leaf_ports(spec).down;
  const int radix = spec.radix;
  switch (spec.kind) {
    case FabricKind::kSingleSwitch: check_single_switch(spec, nics); return {};
    case FabricKind::kFatTree: {
      const int pod = pod_size_for(radix, 1);
      return tree_layout(spec, 1, (nics + down - 1) / down, pod, max_leaves(radix, pod) * down,
                         nics);
    }
    case FabricKind::kRailOptimized: break;
  }
  const long per_rail = (hosts + down - 1) / down;
  const int single_pod = pod_size_for(radix, nics_per_host);
  const bool split =
      nics_per_host > 1 &&
      (spec.planes == FabricPlanes::kPerRail ||
       (spec.planes == FabricPlanes::kAuto &&
        tiers_for(per_rail * nics_per_host, radix, single_pod) > 3));
  if (!split) {
    return tree_layout(spec, 1, per_rail * nics_per_host, single_pod,
                       max_leaves(radix, single_pod) * down, nics);
  }
  const int pod = pod_size_for(radix, 1);
  return tree_layout(spec, nics_per_host, per_rail, pod,
                     nics_per_host * max_leaves(radix, pod) * down, nics);
}

void build_fabric(Topology& topology, const FabricSpec& spec, const Catalog& catalog) {
  check_spec(spec);
  const std::vector<NicRef> nics = collect_nics(topology, catalog);
  if (nics.empty()) {
    throw ConfigError(spec.where,
                      "expected at least one nic in the servers for a fabric, got none");
  }
  const LinkType& trunk = spec.link != nullptr ? *spec.link : *nics.front().type;
  FabricWriter writer(topology, spec, trunk);
  switch (spec.kind) {
    case FabricKind::kSingleSwitch: build_single_switch(writer, nics); break;
    case FabricKind::kFatTree:
      plan_fabric(spec, 1, int(nics.size()));
      build_fat_tree(writer, nics);
      break;
    case FabricKind::kRailOptimized: build_rail_optimized(writer, nics); break;
  }
}

}  // namespace linksim::detail
