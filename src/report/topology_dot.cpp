// SPDX-License-Identifier: Apache-2.0
// render_topology_dot: the machine as Graphviz DOT, servers as clusters, big machines
// collapsed to one detailed server and fabric tiers (docs/reports.md#dot).
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string_view>

#include "linksim/charts.hpp"
#include "linksim/units.hpp"

namespace linksim {
namespace {

// Colours and shapes (docs/reports.md#dot).
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

/// 1 at 1 GB/s, +1.5 per decade: 25 GB/s -> 3.1, 450 GB/s -> 5.0; at most 8.
double pen_width(double bw_Bps) {
  return std::min(8.0, 1.0 + 1.5 * std::log10(std::max(1.0, bw_Bps / kGB)));
}

// A DOT double-quoted string; "\n" in `text` stays a DOT line break.
std::string dot_quoted(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') out += "\\\"";
    else if (text[i] == '\\' && !(i + 1 < text.size() && text[i + 1] == 'n')) out += "\\\\";
    else out += text[i];
  }
  return out + "\"";
}

std::string tier_name(int tier) {
  switch (tier) {
    case 1: return "leaf";
    case 2: return "spine";
    case 3: return "core";
    default: return fmt::format("tier {}", tier);
  }
}

struct DotNode {
  std::string id;
  std::string label;
  const char* shape = "box";
  int cluster = -1;  // index into DotGraph::clusters
  std::string name;  // for tooltips: "host1:gpu3", "host1", "leaf x8"; empty = the label
  const std::string& tooltip_name() const { return name.empty() ? label : name; }
};

struct DotGraph {
  std::vector<DotNode> nodes;
  std::vector<std::string> clusters;   // host labels; the DOT id is cluster_<label>
  std::vector<uint32_t> node_of_device;
};

// All the links drawn as one edge.
struct DotEdge {
  LinkId first;
  int links = 0;
  double bw_Bps = 0;  // summed, per direction
  bool one_type = true;
};

void add_device_node(const Topology& topology, DeviceId id, int cluster, DotGraph& graph) {
  graph.node_of_device[id.value] = uint32_t(graph.nodes.size());
  const Device& device = topology.device(id);
  const std::string label = cluster >= 0 ? device.name.str() : topology.display_name(id);
  graph.nodes.push_back({fmt::format("d{}", id.value), label, kind_shape(device.kind), cluster,
                         topology.display_name(id)});
}

std::string host_composition(const Topology& topology, int host) {
  static constexpr std::array<DeviceKind, 6> kOrder = {
      DeviceKind::kGpu, DeviceKind::kNic, DeviceKind::kCpu, DeviceKind::kPcieSwitch,
      DeviceKind::kNvswitch, DeviceKind::kNetSwitch};
  std::string text;
  for (DeviceKind kind : kOrder) {
    const size_t n = topology.devices_of(host, kind).size();
    if (n == 0) continue;
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", n, to_string(kind));
  }
  return text;
}

DotGraph full_graph(const Topology& topology) {
  DotGraph graph;
  graph.node_of_device.resize(topology.devices().size());
  const bool clusters = topology.host_count() > 1;
  for (int h = 0; clusters && h < topology.host_count(); ++h) {
    graph.clusters.push_back(fmt::format("host{}", h));
  }
  for (uint32_t i = 0; i < topology.devices().size(); ++i) {
    const auto host = topology.device(DeviceId{i}).host;
    add_device_node(topology, DeviceId{i}, clusters && host ? *host : -1, graph);
  }
  return graph;
}

DotGraph collapsed_graph(const Topology& topology, const DotOptions& options) {
  DotGraph graph;
  graph.node_of_device.resize(topology.devices().size());
  graph.clusters.push_back("host0");
  const uint32_t per_host = topology.devices_per_host();
  for (uint32_t d = 0; d < per_host; ++d) add_device_node(topology, DeviceId{d}, 0, graph);
  const int own = std::min(topology.host_count() - 1, std::max(0, options.summary_hosts));
  for (int h = 1; h < topology.host_count(); ++h) {
    if (h <= own) {
      graph.clusters.push_back(fmt::format("host{}", h));
      graph.nodes.push_back({fmt::format("host{}", h), host_composition(topology, h), "box3d",
                             int(graph.clusters.size()) - 1, fmt::format("host{}", h)});
    } else if (h == own + 1) {
      const int rest = topology.host_count() - 1 - own;
      graph.nodes.push_back({"more_hosts",
                             fmt::format("{} more servers\\nhost{}..host{}", rest, h,
                                         topology.host_count() - 1),
                             "box3d", -1,
                             fmt::format("host{}..host{}", h, topology.host_count() - 1)});
    }
    for (uint32_t d = 0; d < per_host; ++d) {
      graph.node_of_device[topology.host_device_offset(h) + d] = uint32_t(graph.nodes.size() - 1);
    }
  }
  // Fabric devices: one node per (kind, tier), in order of first appearance.
  std::map<std::pair<int, int>, uint32_t> group_node;
  std::map<uint32_t, int> group_size;
  for (uint32_t i = topology.host_count() * per_host; i < topology.devices().size(); ++i) {
    const Device& device = topology.device(DeviceId{i});
    const auto key = std::make_pair(int(device.kind), int(device.tier));
    auto [it, added] = group_node.try_emplace(key, uint32_t(graph.nodes.size()));
    if (added) {
      const bool net = device.kind == DeviceKind::kNetSwitch;
      graph.nodes.push_back(
          {net ? fmt::format("tier{}", device.tier) : std::string(to_string(device.kind)),
           net ? tier_name(device.tier) : std::string(to_string(device.kind)),
           kind_shape(device.kind), -1, ""});
    }
    graph.node_of_device[i] = it->second;
    ++group_size[it->second];
  }
  for (const auto& [node, size] : group_size) {
    graph.nodes[node].label += fmt::format(" \u00d7{}", size);
  }
  return graph;
}

std::string edge_line(const Topology& topology, const DotGraph& graph, uint32_t a, uint32_t b,
                      const DotEdge& edge) {
  const Link& link = topology.link(edge.first);
  const std::string label =
      edge.links == 1 ? fmt::format("{} x{}\\n{}", topology.link_type(link), link.lanes, format_bandwidth(link.bw_Bps))
      : edge.one_type ? fmt::format("{} \u00d7 {} x{}\\n{}", edge.links, topology.link_type(link), link.lanes,
                                    format_bandwidth(edge.bw_Bps))
                      : fmt::format("{} links\\n{}", edge.links, format_bandwidth(edge.bw_Bps));
  const std::string tooltip =
      fmt::format("{} \u2013 {}: {} per direction{}", graph.nodes[a].tooltip_name(),
                  graph.nodes[b].tooltip_name(),
                  format_bandwidth(edge.bw_Bps),
                  edge.links == 1 ? "" : fmt::format(" over {} links", edge.links));
  return fmt::format("  {} -- {} [label={}, color=\"{}\", penwidth={:.1f}, tooltip={}];\n",
                     graph.nodes[a].id, graph.nodes[b].id, dot_quoted(label),
                     family_colour(link.family), pen_width(edge.bw_Bps), dot_quoted(tooltip));
}

}  // namespace

std::string render_topology_dot(const Topology& topology, const DotOptions& options) {
  const bool collapse = topology.devices().size() > options.collapse_above_devices &&
                        topology.devices_per_host() > 0;
  const DotGraph graph = collapse ? collapsed_graph(topology, options) : full_graph(topology);

  std::string out = "graph G {\n";
  out += fmt::format("  label={};\n  labelloc=t;\n  node [fontsize=10];\n  edge [fontsize=8];\n",
                     dot_quoted(collapse ? topology.name() + " (collapsed: " +
                                           std::to_string(topology.devices().size()) +
                                           " devices)"
                                     : topology.name()));
  for (size_t c = 0; c < graph.clusters.size(); ++c) {
    out += fmt::format("  subgraph cluster_{} {{\n    label={};\n    style=rounded;\n    color=\"#9aa5b1\";\n",
                       graph.clusters[c], dot_quoted(graph.clusters[c]));
    for (const DotNode& node : graph.nodes) {
      if (node.cluster != int(c)) continue;
      out += fmt::format("    {} [label={}, shape={}];\n", node.id, dot_quoted(node.label), node.shape);
    }
    out += "  }\n";
  }
  for (const DotNode& node : graph.nodes) {
    if (node.cluster >= 0) continue;
    out += fmt::format("  {} [label={}, shape={}];\n", node.id, dot_quoted(node.label), node.shape);
  }
  // Links in id order (a link and its reverse are 2k, 2k+1: one edge per even id); when
  // collapsed, links between the same two nodes merge and links inside one node are left out.
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, DotEdge>> edges;
  std::map<std::pair<uint32_t, uint32_t>, size_t> edge_index;
  const auto links = topology.links();
  for (uint32_t i = 0; i < links.size(); i += 2) {
    const uint32_t a = graph.node_of_device[links[i].from.value];
    const uint32_t b = graph.node_of_device[links[i].to.value];
    if (a == b) continue;
    const auto key = collapse ? std::make_pair(std::min(a, b), std::max(a, b)) : std::make_pair(a, b);
    auto [it, added] = edge_index.try_emplace(key, edges.size());
    if (added || !collapse) {
      if (!added) it->second = edges.size();
      edges.push_back({key, DotEdge{LinkId{i}, 0, 0, true}});
    }
    DotEdge& edge = edges[it->second].second;
    ++edge.links;
    edge.bw_Bps += links[i].bw_Bps;
    if (topology.link_type(links[i]) != topology.link_type(links[edge.first.value])) edge.one_type = false;
  }
  for (const auto& [key, edge] : edges) out += edge_line(topology, graph, key.first, key.second, edge);
  out += "}\n";
  return out;
}

}  // namespace linksim
