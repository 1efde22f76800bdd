// SPDX-License-Identifier: Apache-2.0
// One description of a server's PCIe / NVLink tree and of the rules by which two of its
// devices reach each other (docs/routing.md#the-server-tree). The router, the loader's
// reachability check, verify, lint, the NCCL XML export and the matrix all read it.
#pragma once

#include <optional>
#include <vector>

#include "linksim/topology.hpp"

namespace linksim::detail {

/// A device's way up the PCIe tree (PCIe or C2C links through PCIe switches) to the nearest
/// CPU, found breadth-first in out_links order. Empty when no CPU is reachable that way.
struct UpChain {
  std::vector<LinkId> links;    ///< device -> switch -> ... -> cpu
  std::vector<DeviceId> hops;   ///< the device each link reaches; hops.back() is the CPU
  /// Identity of the host bridge the chain enters the CPU through: Link::host_bridge when
  /// set, else a value unique to the entering link (a host bridge of its own).
  long bridge = 0;

  std::optional<DeviceId> cpu() const {
    return hops.empty() ? std::nullopt : std::optional<DeviceId>(hops.back());
  }
};

UpChain find_up_chain(const Topology& topology, DeviceId device);

/// Where two up chains first share a device: the index of that device in each chain's hops;
/// both empty when they share none.
struct ChainMeeting {
  std::optional<size_t> a_hop;
  std::optional<size_t> b_hop;
};

ChainMeeting chains_meet(const UpChain& a, const UpChain& b);

/// Shortest chain of SMP links (UPI / xGMI) from one CPU to another; empty if the same CPU.
/// nullopt when they are not joined.
std::optional<std::vector<LinkId>> smp_path(const Topology& topology, DeviceId from, DeviceId to);

/// One NVLink way from a GPU to another: the direct bond, or up to an NVSwitch and down.
struct NvlinkBond {
  std::vector<LinkId> links;  ///< one link (direct) or two (through a switch)
  int lanes = 0;              ///< lanes of the first link (the GPU's own)
};

/// Every NVLink way from a to b, the direct bond first, then one per NVSwitch both reach, in
/// a's out_links order.
std::vector<NvlinkBond> nvlink_bonds(const Topology& topology, DeviceId a, DeviceId b);

/// The reachability rule the router routes by and the loader checks: a route from a to b
/// inside a server is NVLink (GPU pairs with an NVLink bond), host staging (both below a CPU,
/// the CPUs the same or joined by socket links), or PCIe peer to peer where the chains meet at
/// a switch below the CPU (for GPU pairs, both must allow P2P).
bool reaches(const Topology& topology, DeviceId a, const UpChain& chain_a, DeviceId b,
             const UpChain& chain_b);

/// The tree of one server, each vector indexed by global device id (entries of other servers
/// are left empty). A device's parent is the first hop of its up chain; PCIe children are
/// listed in the parent's out_links order.
struct ServerTree {
  std::vector<UpChain> chains;                   ///< per device (CPUs: empty)
  std::vector<std::optional<LinkId>> down_link;  ///< parent -> device PCIe/C2C link
  std::vector<std::vector<DeviceId>> children;   ///< below each device, PCIe links only
  std::vector<int> depth;                        ///< links up to the CPU; CPUs 0; -1 unreached
  std::vector<int> nvlink_component;             ///< equal for devices joined by NVLinks

  std::optional<DeviceId> home_cpu(DeviceId device) const { return chains[device.value].cpu(); }
};

ServerTree build_server_tree(const Topology& topology, int host);

}  // namespace linksim::detail
