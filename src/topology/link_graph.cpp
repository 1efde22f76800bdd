// SPDX-License-Identifier: Apache-2.0
// Boost.Graph views of a Topology: max-flow.
#include "topology/link_graph.hpp"

#include <boost/graph/push_relabel_max_flow.hpp>

#include <algorithm>

namespace linksim::detail {
namespace {

using FlowTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, double,
                    boost::property<boost::edge_residual_capacity_t, double,
                                    boost::property<boost::edge_reverse_t,
                                                    FlowTraits::edge_descriptor>>>>;

void add_flow_edge(FlowGraph& graph, size_t from, size_t to, double capacity) {
  auto forward = boost::add_edge(from, to, graph).first;
  auto backward = boost::add_edge(to, from, graph).first;
  boost::put(boost::edge_capacity, graph, forward, capacity);
  boost::put(boost::edge_capacity, graph, backward, 0.0);
  boost::put(boost::edge_reverse, graph, forward, backward);
  boost::put(boost::edge_reverse, graph, backward, forward);
}

}  // namespace

UndirectedLinkGraph make_undirected_link_graph(const Topology& topology) {
  UndirectedLinkGraph graph(topology.devices().size());
  const auto links = topology.links();
  for (uint32_t i = 0; i < links.size(); i += 2) {
    boost::add_edge(links[i].from.value, links[i].to.value, LinkEdge{LinkId{i}}, graph);
  }
  return graph;
}

double max_flow_Bps(const Topology& topology, const std::vector<DeviceId>& sources,
                    const std::vector<DeviceId>& sinks) {
  const size_t devices = topology.devices().size();
  const size_t source = devices;
  const size_t sink = devices + 1;
  FlowGraph graph(devices + 2);
  double total_Bps = 0;
  for (const Link& link : topology.links()) {
    add_flow_edge(graph, link.from.value, link.to.value, link.bw_Bps);
    total_Bps += link.bw_Bps;
  }
  // Terminal edges only need to exceed any cut: the sum of all capacities does.
  for (DeviceId id : sources) add_flow_edge(graph, source, id.value, total_Bps);
  for (DeviceId id : sinks) add_flow_edge(graph, id.value, sink, total_Bps);
  return boost::push_relabel_max_flow(graph, source, sink);
}

}  // namespace linksim::detail
