// SPDX-License-Identifier: Apache-2.0
// The PCIe side of one server: each device's way up to its CPU, nvidia-smi's PCIe classes
// (PIX, PXB, PHB, NODE, SYS) and the PCIe / host-memory paths between two devices.
// See docs/routing.md#pcie-classes.
#pragma once

#include <optional>
#include <vector>

#include "linksim/routing.hpp"
#include "linksim/topology.hpp"

namespace linksim::routing_detail {

/// A device's way up the PCIe tree (PCIe or C2C links through PCIe switches) to the nearest
/// CPU, found breadth-first. Empty when no CPU is reachable that way.
struct UpChain {
  std::vector<LinkId> links;    ///< device -> switch -> ... -> cpu
  std::vector<DeviceId> hops;   ///< the device each link reaches; hops.back() is the CPU
  /// Identity of the host bridge the chain enters the CPU through: Link::host_bridge when
  /// set, else a value unique to the entering link (a host bridge of its own).
  long bridge = 0;
};

UpChain find_up_chain(const Topology& topology, DeviceId device);

/// How two chains meet: the nvidia-smi class and where (indexes into each chain's hops).
struct PcieMeeting {
  PathClass cls = PathClass::kSys;
  std::optional<size_t> a_hop;  ///< index of the common device in a's hops, if any
  std::optional<size_t> b_hop;
};

PcieMeeting meet(const Topology& topology, const UpChain& a, const UpChain& b);

/// Shortest chain of SMP links (UPI / xGMI) from one CPU to another; empty if the same CPU.
/// nullopt when they are not joined.
std::optional<std::vector<LinkId>> smp_path(const Topology& topology, DeviceId from, DeviceId to);

/// The PCIe peer-to-peer path: up from a to where the chains meet, down to b; through the
/// CPU(s) when they meet there or not at all. nullopt when there is no such path.
std::optional<std::vector<LinkId>> pcie_path(const Topology& topology, const UpChain& a,
                                             const UpChain& b, const PcieMeeting& meeting);

/// The path staged through host memory: a all the way up to its CPU, over the SMP link(s) to
/// b's CPU if different, then down to b. nullopt when either has no CPU or they are not joined.
std::optional<std::vector<LinkId>> staged_path(const Topology& topology, const UpChain& a,
                                               const UpChain& b);

}  // namespace linksim::routing_detail
