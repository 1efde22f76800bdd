// SPDX-License-Identifier: Apache-2.0
// The loader's check that a server routes: the router's reachability rule
// (topology/server_tree.hpp, detail::reaches) applied to one instance of the server template,
// so that a machine that loads also routes and a machine that cannot is refused at a device's
// declaration (docs/topology-format.md#reachability).
#pragma once

#include "common/yaml_reader.hpp"
#include "topology/server_template.hpp"

namespace linksim::detail {

/// Throws ConfigError, at the later device's declaration, for the first pair of GPUs without a
/// route between them and for a NIC that no GPU reaches. A route is NVLink (a direct link, or
/// through one NVSwitch) or PCIe: up from each end through PCIe switches to its nearest CPU
/// (PCIe and NVLink-C2C links), meeting on the way (peer-to-peer, for GPUs that allow it)
/// or staged through host memory between CPUs joined by socket links. GPUs and NICs carry no
/// traffic through themselves.
void check_server_reach(const YamlValue& node, const ServerTemplate& server,
                        const Catalog& catalog);

}  // namespace linksim::detail
