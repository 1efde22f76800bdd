// SPDX-License-Identifier: Apache-2.0
// The PCIe side of one server's routes: nvidia-smi's PCIe classes (PIX, PXB, PHB, NODE, SYS)
// and the PCIe / host-memory paths between two devices, over the server tree's up chains
// (topology/server_tree.hpp).
// See docs/routing.md#pcie-classes.
#pragma once

#include <optional>
#include <vector>

#include "linksim/routing.hpp"
#include "linksim/topology.hpp"
#include "topology/server_tree.hpp"

namespace linksim::routing_detail {

using detail::UpChain;

/// How two chains meet: the nvidia-smi class and where (indexes into each chain's hops).
struct PcieMeeting {
  PathClass cls = PathClass::kSys;
  std::optional<size_t> a_hop;  ///< index of the common device in a's hops, if any
  std::optional<size_t> b_hop;
};

PcieMeeting meet(const Topology& topology, const UpChain& a, const UpChain& b);

/// The PCIe peer-to-peer path: up from a to where the chains meet, down to b; through the
/// CPU(s) when they meet there or not at all. nullopt when there is no such path.
std::optional<std::vector<LinkId>> pcie_path(const Topology& topology, const UpChain& a,
                                             const UpChain& b, const PcieMeeting& meeting);

/// The path staged through host memory: a all the way up to its CPU, over the SMP link(s) to
/// b's CPU if different, then down to b. nullopt when either has no CPU or they are not joined.
std::optional<std::vector<LinkId>> staged_path(const Topology& topology, const UpChain& a,
                                               const UpChain& b);

}  // namespace linksim::routing_detail
