// SPDX-License-Identifier: Apache-2.0
// The renderings of a TopologySummary (linksim/topology_summary.hpp): the text `linksim topo
// show` prints and its JSON (docs/cli.md). Rendering only.
#pragma once

#include <string>

#include "linksim/topology_summary.hpp"

namespace linksim {

/// The text of `topo show`: "<name>  (<file>)", servers, host platform, fabric (with more
/// than one server), devices by kind, links by type, one line per GPU of server 0 and the
/// bisection bandwidth. '\n' after every line.
std::string render_topology_summary_text(const TopologySummary& summary);

/// One JSON object, pretty-printed with a 2-space indent, then '\n': {"name", "servers",
/// "host": {platform, vendor, p2p_level, host_staging_GBps, host_staging_cross_socket_GBps},
/// "fabric": {planes, plane_per_rail, tiers, switches_by_tier} (more than one server),
/// "devices": {kind: count}, "links": [{type, lanes, bw_GBps, count}], "gpus": [{name,
/// device, model, nvlink_lanes, nvlink_GBps, pcie_path, pcie_GBps, nearest_nic}],
/// "bisection_GBps" (null when not computed)}. GB = 1e9 bytes, rates per direction.
std::string render_topology_summary_json(const TopologySummary& summary);

}  // namespace linksim
