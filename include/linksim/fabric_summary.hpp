// SPDX-License-Identifier: Apache-2.0
// What a topology's network fabric is, read back from its switches: planes, tiers and switch
// counts, so `topo show` can say what the generator chose (docs/fabrics.md#planes).
#pragma once

#include <string>
#include <vector>

#include "linksim/topology.hpp"

namespace linksim {

struct FabricSummary {
  int planes = 0;       ///< disjoint groups of network switches joined by switch links
  int tiers = 0;        ///< highest Device::tier of a network switch
  int nics = 0;         ///< NICs with a link to a network switch
  std::vector<int> switches_by_tier;  ///< [tier - 1], all planes together
  /// Every plane's leaves hold NICs of one index only (one plane per rail).
  bool plane_per_rail = false;
};

/// Reads the fabric of `topology` (network switches outside the servers). O(devices + links).
FabricSummary summarize_fabric(const Topology& topology);

/// "8 planes (one per rail) of 3 tiers: 4096 leaves, 4096 spines, 2048 cores in all";
/// "none" without network switches.
std::string describe_fabric(const FabricSummary& summary);

/// The name of switch tier `tier`: "leaf", "spine", "core", "super-core".
std::string fabric_tier_name(int tier);

}  // namespace linksim
