// SPDX-License-Identifier: Apache-2.0
// Boost.Graph views of a Topology: max-flow and DOT output.
#include "topology/link_graph.hpp"

#include <boost/graph/graphviz.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <ostream>

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

// Colours and shapes for DOT (docs/routing.md#dot).
const char* family_colour(LinkFamily family) {
  switch (family) {
    case LinkFamily::kNvlink: return "#76b900";
    case LinkFamily::kPcie: return "#1f77b4";
    case LinkFamily::kSmp: return "#ff7f0e";
    case LinkFamily::kC2c: return "#9467bd";
    case LinkFamily::kNetwork: return "#d62728";
  }
  return "black";
}

const char* kind_shape(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kGpu: return "box";
    case DeviceKind::kCpu: return "ellipse";
    case DeviceKind::kPcieSwitch: return "diamond";
    case DeviceKind::kNvswitch: return "hexagon";
    case DeviceKind::kNic: return "component";
    case DeviceKind::kNetSwitch: return "octagon";
  }
  return "box";
}

/// 1 at 1 GB/s, +1.5 per decade: 25 GB/s -> 3.1, 450 GB/s -> 5.0, 3.6 TB/s -> 6.3.
double pen_width(double bw_Bps) { return 1.0 + 1.5 * std::log10(std::max(1.0, bw_Bps / 1e9)); }

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

void write_dot(std::ostream& out, const Topology& topology) {
  const UndirectedLinkGraph graph = make_undirected_link_graph(topology);
  const auto vertex_writer = [&](std::ostream& os, size_t v) {
    const DeviceId id{uint32_t(v)};
    os << fmt::format("[label=\"{}\", shape={}]", topology.display_name(id),
                      kind_shape(topology.device(id).kind));
  };
  const auto edge_writer = [&](std::ostream& os, UndirectedLinkGraph::edge_descriptor e) {
    const Link& link = topology.link(graph[e].link);
    os << fmt::format("[label=\"{} x{}\", color=\"{}\", penwidth={:.1f}, tooltip=\"{:g} GB/s\"]",
                      link.type, link.lanes, family_colour(link.family), pen_width(link.bw_Bps),
                      link.bw_Bps / 1e9);
  };
  const auto graph_writer = [&](std::ostream& os) {
    os << fmt::format("label=\"{}\";\nnode [fontsize=10];\nedge [fontsize=8];\n",
                      topology.name());
  };
  boost::write_graphviz(out, graph, vertex_writer, edge_writer, graph_writer);
}

}  // namespace linksim::detail
