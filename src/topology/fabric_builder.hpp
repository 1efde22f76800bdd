// SPDX-License-Identifier: Apache-2.0
// Generators for the network between servers: single switch, fat tree, rail-optimized fat tree.
#pragma once

#include <string>

#include "linksim/catalog.hpp"
#include "linksim/topology.hpp"

namespace linksim::detail {

enum class FabricKind { kSingleSwitch, kFatTree, kRailOptimized };

/// A validated `fabric:` section (docs/topology-format.md#fabrics).
struct FabricSpec {
  FabricKind kind = FabricKind::kSingleSwitch;
  int radix = 64;                    ///< ports per switch, >= 2
  double oversubscription = 1.0;     ///< leaf downlinks : uplinks, >= 1
  const LinkType* link = nullptr;    ///< switch-to-switch link type; nullptr = the NICs' type
  bool reduction = false;            ///< SHARP-capable switches
  SourceLocation where;              ///< the `fabric:` key, for errors
};

/// The size checks of build_fabric, made before any server is built: throws the same
/// ConfigError build_fabric would for `hosts` servers of `nics_per_host` NICs each (a radix
/// below 2, an oversubscription below 1, more NICs than one switch or three tiers can hold).
void check_fabric_size(const FabricSpec& spec, int hosts, int nics_per_host);

/// Adds the fabric's switches and links to `topology`: every NIC of every host gets one link
/// (its own type) to a leaf. Call after the host blocks are laid out, before finalize().
/// Sets Device::tier (1 leaf, 2 spine, 3 core) and Device::group (rail or pod).
/// Throws ConfigError at spec.where when the radix cannot hold the NICs (single switch) or
/// a third tier would still not suffice.
void build_fabric(Topology& topology, const FabricSpec& spec, const Catalog& catalog);

}  // namespace linksim::detail
