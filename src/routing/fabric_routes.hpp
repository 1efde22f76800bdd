// SPDX-License-Identifier: Apache-2.0
// Up/down routing through the network switches between servers, with InfiniBand-style static
// destination-mod-k choice among equal uplinks. See docs/routing.md#fabric.
#pragma once

#include <optional>
#include <vector>

#include "linksim/topology.hpp"

namespace linksim::routing_detail {

/// Precomputed, for every leaf switch (a network switch a NIC is attached to), the switches
/// above it that can reach it going down. Immutable after construction; thread-safe to read.
class FabricRoutes {
 public:
  explicit FabricRoutes(const Topology& topology);

  /// The fabric links from NIC `src` to NIC `dst` (both with a network port): NIC -> leaf,
  /// up to the lowest common ancestor, down to dst's leaf, leaf -> NIC. nullopt when the NICs
  /// are not connected. Cost: O(tiers x switch degree).
  std::optional<std::vector<LinkId>> route(DeviceId src, DeviceId dst) const;

 private:
  std::optional<LinkId> uplink_of(DeviceId nic) const;
  bool reaches(DeviceId upper, DeviceId leaf) const;
  bool descend(DeviceId from, DeviceId leaf, uint32_t key, std::vector<LinkId>* links) const;

  const Topology& topology_;
  /// leaf device id -> sorted ids of the switches that reach it downward (empty if not a leaf)
  std::vector<std::vector<uint32_t>> ancestors_;
};

}  // namespace linksim::routing_detail
