// SPDX-License-Identifier: Apache-2.0
// Boost.Graph views of a Topology (internal: Boost never appears in include/linksim/), used
// for max-flow (bisection bandwidth).
#pragma once

#include <boost/graph/adjacency_list.hpp>

#include <vector>

#include "linksim/topology.hpp"

namespace linksim::detail {

struct LinkEdge {
  LinkId link;  ///< for an undirected view: the even (from -> to as declared) direction
};

/// One vertex per device (vertex i = DeviceId i), one edge per full-duplex link.
using UndirectedLinkGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                                  boost::no_property, LinkEdge>;

UndirectedLinkGraph make_undirected_link_graph(const Topology& topology);

/// Maximum flow in bytes/s from the devices in `sources` to those in `sinks`, each directed
/// link a capacity of its bw_Bps (push-relabel). REQUIRES: the two sets are disjoint and
/// non-empty. O(V^2 sqrt(E)) worst case: keep it to small and mid-size topologies.
double max_flow_Bps(const Topology& topology, const std::vector<DeviceId>& sources,
                    const std::vector<DeviceId>& sinks);

}  // namespace linksim::detail
