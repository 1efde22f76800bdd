// SPDX-License-Identifier: Apache-2.0
// Generators for the network between servers: single switch, fat tree, rail-optimized fat tree.
#pragma once

#include <string>

#include "linksim/catalog.hpp"
#include "linksim/topology.hpp"

namespace linksim::detail {

enum class FabricKind { kSingleSwitch, kFatTree, kRailOptimized };

/// How a rail-optimized fabric is split (docs/fabrics.md#planes): `kAuto` keeps one plane
/// while three tiers hold it, else one plane per rail; `kSingle` adds a fourth tier instead.
enum class FabricPlanes { kAuto, kSingle, kPerRail };

/// The most switch tiers a generated fabric has (leaf, spine, core, super-core).
inline constexpr int kMaxFabricTiers = 4;

/// A validated `fabric:` section (docs/topology-format.md#fabrics).
struct FabricSpec {
  FabricKind kind = FabricKind::kSingleSwitch;
  int radix = 64;                    ///< ports per switch, >= 2
  double oversubscription = 1.0;     ///< leaf downlinks : uplinks, >= 1
  const LinkType* link = nullptr;    ///< switch-to-switch link type; nullptr = the NICs' type
  bool reduction = false;            ///< SHARP-capable switches
  FabricPlanes planes = FabricPlanes::kAuto;  ///< rail_optimized only
  SourceLocation where;              ///< the `fabric:` key, for errors
};

/// What build_fabric makes of a spec for a given cluster.
struct FabricLayout {
  int planes = 1;            ///< disjoint fat trees (one per rail when > 1)
  int leaves_per_plane = 1;
  int tiers = 1;             ///< switch tiers of each plane, 1 to kMaxFabricTiers
};

/// The size checks of build_fabric, made before any server is built, and the layout it will
/// build for `hosts` servers of `nics_per_host` NICs each. Throws the same ConfigError
/// build_fabric would (a radix below 2, an oversubscription below 1, more NICs than one
/// switch or four tiers can hold).
FabricLayout plan_fabric(const FabricSpec& spec, int hosts, int nics_per_host);

/// Adds the fabric's switches and links to `topology`: every NIC of every host gets one link
/// (its own type) to a leaf. Call after the host blocks are laid out, before finalize().
/// Sets Device::tier (1 leaf, 2 spine, 3 core, 4 super-core) and Device::group (rail or pod).
/// Throws ConfigError at spec.where when the radix cannot hold the NICs (single switch) or
/// a fourth tier would still not suffice.
void build_fabric(Topology& topology, const FabricSpec& spec, const Catalog& catalog);

}  // namespace linksim::detail
