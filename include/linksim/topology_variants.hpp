// SPDX-License-Identifier: Apache-2.0
// What-if variants of a machine: the same devices and links with some link classes faster.
#pragma once

#include <functional>
#include <string_view>

#include "linksim/topology.hpp"

namespace linksim {

/// The classes of links a capacity planner upgrades as one: every NVLink, every PCIe link, the
/// socket links, the NICs' ports, the network fabric between switches.
enum class LinkClass { kNvlink, kNvlinkC2c, kPcie, kSocket, kNic, kFabric };
std::string_view to_string(LinkClass link_class);  ///< "NVLink", "PCIe", "socket link", "NIC", ...
LinkClass link_class(const Topology& topology, const Link& link);

/// A copy of `topology` whose links of class `which` have `factor` times their bandwidth.
/// Device and link ids are unchanged. REQUIRES: factor > 0.
Topology with_faster_links(const Topology& topology, LinkClass which, double factor);

}  // namespace linksim
