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
      : topology_(topology), spec_(spec), trunk_(trunk) {}

  DeviceId add_switch(const std::string& prefix, int index, int tier, int group) {
    Device device;
    device.name = fmt::format("{}{}", prefix, index);
    device.kind = DeviceKind::kNetSwitch;
    device.index = index;
    device.reduction = spec_.reduction;
    device.tier = tier;
    device.group = group;
    device.where = spec_.where;
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
  for (uint32_t i = 0; i < devices.size(); ++i) {
    const Device& device = devices[i];
    if (device.kind != DeviceKind::kNic || !device.host) continue;
    const LinkType* type = catalog.find_link_type(device.model);
    if (type == nullptr) {
      throw ConfigError(device.where,
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

/// Leaves per pod of a three-tier fabric: spines with half their ports down, rounded to
/// whole runs of `pod_granularity` (a rail group) when they fit.
int pod_size_for(int radix, int pod_granularity) {
  const int spine_down = radix / 2;
  if (pod_granularity > 1 && spine_down >= pod_granularity) {
    return spine_down / pod_granularity * pod_granularity;
  }
  return spine_down;
}

/// Throws when `leaf_count` leaves need more than three tiers of radix-port switches.
void check_tiers(const FabricSpec& spec, long leaf_count, int pod_granularity, long nic_count) {
  const int radix = spec.radix;
  if (leaf_count <= radix) return;
  const int pod_size = pod_size_for(radix, pod_granularity);
  if (pod_size < 1 || (leaf_count + pod_size - 1) / pod_size > radix) {
    const long capacity = long(radix) * pod_size * leaf_ports(spec).down;
    throw ConfigError(spec.where,
                      fmt::format("expected at most {} NICs for radix {} with three tiers, got {}",
                                  capacity, radix, nic_count));
  }
}

/// Spines (and cores if the radix demands) above `leaves`, which are ordered so that
/// consecutive runs of `pod_granularity` belong together in a pod.
void build_upper_tiers(FabricWriter& writer, const std::vector<DeviceId>& leaves, int uplinks,
                       int pod_granularity, size_t nic_count) {
  const int radix = writer.spec().radix;
  const int leaf_count = int(leaves.size());
  if (leaf_count <= 1) return;
  int next_spine = 0;
  std::vector<int> cables;
  if (leaf_count <= radix) {
    join_upward(writer, leaves, uplinks, radix, "spine", &next_spine, 2, -1, &cables);
    return;
  }
  // Three tiers: pods of leaves under spines with half their ports down, half up to cores.
  check_tiers(writer.spec(), leaf_count, pod_granularity, long(nic_count));
  const int spine_down = radix / 2;
  const int pod_size = pod_size_for(radix, pod_granularity);
  const int pods = ceil_div(leaf_count, pod_size);
  std::vector<std::vector<DeviceId>> pod_spines;  // [pod][spine index in pod]
  std::vector<int> spine_uplinks;                 // per spine index: cables down = cables up
  for (int pod = 0; pod < pods; ++pod) {
    const auto first = leaves.begin() + pod * pod_size;
    const auto last = leaves.begin() + std::min(leaf_count, (pod + 1) * pod_size);
    std::vector<DeviceId> pod_leaves(first, last);
    pod_spines.push_back(join_upward(writer, pod_leaves, uplinks, spine_down, "spine",
                                     &next_spine, 2, pod, &cables));
    for (size_t j = 0; j < cables.size(); ++j) {
      if (spine_uplinks.size() <= j) spine_uplinks.push_back(0);
      spine_uplinks[j] = std::max(spine_uplinks[j], cables[j] * int(pod_leaves.size()));
    }
  }
  // Core group j joins spine j of every pod (non-blocking above the leaves).
  int next_core = 0;
  for (size_t j = 0; j < spine_uplinks.size(); ++j) {
    std::vector<DeviceId> spines;
    for (const auto& in_pod : pod_spines) {
      if (j < in_pod.size()) spines.push_back(in_pod[j]);
    }
    join_upward(writer, spines, spine_uplinks[j], radix, "core", &next_core, 3, -1, &cables);
  }
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
  build_upper_tiers(writer, leaves, ports.up, 1, nics.size());
}

void build_rail_optimized(FabricWriter& writer, const std::vector<NicRef>& nics) {
  const Topology& topology = writer.topology();
  const int hosts = std::max(1, topology.host_count());
  const int rails = int(nics.size()) / hosts;  // NICs per server; identical host blocks
  const LeafPorts ports = leaf_ports(writer.spec());
  const int leaves_per_rail = ceil_div(hosts, ports.down);
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
  // Pods hold the k-th leaf of every rail together (a scalable unit), so order leaves by k.
  std::vector<DeviceId> pod_order;
  for (int k = 0; k < leaves_per_rail; ++k) {
    for (int rail = 0; rail < rails; ++rail) {
      pod_order.push_back(leaves[size_t(rail * leaves_per_rail + k)]);
    }
  }
  build_upper_tiers(writer, pod_order, ports.up, rails, nics.size());
}

}  // namespace

namespace {

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

}  // namespace

void check_fabric_size(const FabricSpec& spec, int hosts, int nics_per_host) {
  check_spec(spec);
  const long nics = long(hosts) * nics_per_host;
  if (nics == 0) return;  // build_fabric names the missing NICs
  const long down = leaf_ports(spec).down;
  switch (spec.kind) {
    case FabricKind::kSingleSwitch: check_single_switch(spec, nics); break;
    case FabricKind::kFatTree: check_tiers(spec, (nics + down - 1) / down, 1, nics); break;
    case FabricKind::kRailOptimized:
      check_tiers(spec, long(nics_per_host) * ((hosts + down - 1) / down), nics_per_host, nics);
      break;
  }
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
    case FabricKind::kFatTree: build_fat_tree(writer, nics); break;
    case FabricKind::kRailOptimized: build_rail_optimized(writer, nics); break;
  }
}

}  // namespace linksim::detail
