// SPDX-License-Identifier: Apache-2.0
// svg_machine_utilisation: the machine with every link coloured by its utilisation and the
// bottleneck marked (docs/reports.md#machine-picture).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "linksim/charts.hpp"
#include "linksim/units.hpp"
#include "charts/svg_axis.hpp"
#include "report/svg_machine_layout.hpp"
#include "charts/svg_text.hpp"

namespace linksim {
namespace {

using detail::MachineLayout;
using detail::PictureNode;
using detail::px;
using detail::xml_escape;

constexpr double kTopPx = 44;
constexpr std::string_view kBottleneckOutline = "#111827";

// All the links drawn as one line between two boxes of the picture.
struct PictureEdge {
  std::vector<LinkId> links;  // even (declared) directions
  double utilisation = 0;     // busiest direction of any of them
  LinkId busiest;             // the directed link with that utilisation
  bool bottleneck = false;
};

void check_utilisation(const Topology& topology, const std::vector<double>& utilisation) {
  if (utilisation.size() != topology.links().size()) {
    throw std::invalid_argument(fmt::format(
        "svg_machine_utilisation: {} utilisation values for {} directed links",
        utilisation.size(), topology.links().size()));
  }
  for (size_t i = 0; i < utilisation.size(); ++i) {
    if (std::isfinite(utilisation[i]) && utilisation[i] >= 0) continue;
    throw std::invalid_argument(fmt::format(
        "svg_machine_utilisation: link {} has utilisation {}; expected a finite value >= 0", i,
        utilisation[i]));
  }
}

std::optional<LinkId> pick_bottleneck(const Topology& topology,
                                      const std::vector<double>& utilisation,
                                      const MachinePictureOptions& options) {
  if (options.bottleneck) {
    if (options.bottleneck->value >= topology.links().size()) {
      throw std::invalid_argument(fmt::format("svg_machine_utilisation: bottleneck link {} of {}",
                                              options.bottleneck->value, topology.links().size()));
    }
    return options.bottleneck;
  }
  const auto busiest = std::max_element(utilisation.begin(), utilisation.end());
  if (busiest == utilisation.end() || *busiest <= 0) return std::nullopt;
  return LinkId{uint32_t(busiest - utilisation.begin())};
}

int host_to_detail(const Topology& topology, std::optional<LinkId> bottleneck) {
  if (!bottleneck) return 0;
  const Link& link = topology.link(*bottleneck);
  if (auto host = topology.device(link.from).host) return *host;
  if (auto host = topology.device(link.to).host) return *host;
  return 0;
}

std::string percent(double utilisation) { return detail::short_number(utilisation * 100, 3) + "%"; }

std::string link_text(const Topology& topology, LinkId id) {
  const Link& link = topology.link(id);
  return fmt::format("{} \u2192 {}", topology.display_name(link.from),
                     topology.display_name(link.to));
}

// Groups the links by the pair of boxes they join; links inside one box make `inside`.
struct EdgeSet {
  std::map<std::pair<uint32_t, uint32_t>, PictureEdge> between;
  std::vector<PictureEdge> inside;  // per node
};

EdgeSet group_links(const Topology& topology, const MachineLayout& layout,
                    const std::vector<double>& utilisation, std::optional<LinkId> bottleneck) {
  EdgeSet edges;
  edges.inside.resize(layout.nodes.size());
  const auto links = topology.links();
  for (uint32_t i = 0; i < links.size(); i += 2) {
    const uint32_t a = layout.node_of_device[links[i].from.value];
    const uint32_t b = layout.node_of_device[links[i].to.value];
    PictureEdge& edge = a == b ? edges.inside[a] : edges.between[{std::min(a, b), std::max(a, b)}];
    if (edge.links.empty()) edge.busiest = LinkId{i};
    edge.links.push_back(LinkId{i});
    for (uint32_t d : {i, i + 1}) {
      if (utilisation[d] > edge.utilisation) {
        edge.utilisation = utilisation[d];
        edge.busiest = LinkId{d};
      }
      if (bottleneck && bottleneck->value == d) edge.bottleneck = true;
    }
  }
  return edges;
}

std::string edge_tooltip(const Topology& topology, const PictureNode& a, const PictureNode& b,
                         const PictureEdge& edge, const std::vector<double>& utilisation) {
  if (edge.links.size() == 1) {
    const LinkId id = edge.links.front();
    const Link& link = topology.link(id);
    return fmt::format("{} \u2013 {}: {} x{}, {} per direction; utilisation {} \u2192, {} \u2190",
                       a.name, b.name, topology.link_type(link), link.lanes, format_bandwidth(link.bw_Bps),
                       percent(utilisation[id.value]), percent(utilisation[id.value + 1]));
  }
  return fmt::format("{} \u2013 {}: {} links; busiest {} ({})", a.name, b.name, edge.links.size(),
                     percent(edge.utilisation), link_text(topology, edge.busiest));
}

// How far above its row the control point of an arc between two boxes of one row lies; the
// arc's peak is half as high, which the row spacing and frame padding leave room for.
double arc_lift(const PictureNode& a, const PictureNode& b) {
  return std::min(40.0, 14 + std::abs(b.centre_x() - a.centre_x()) * 0.12);
}

// A straight line between rows, an arc between boxes of one row.
std::string edge_path(const PictureNode& a, const PictureNode& b) {
  if (a.row == b.row) {
    const double lift = arc_lift(a, b);
    return fmt::format("M {} {} Q {} {} {} {}", px(a.centre_x()), px(a.y),
                       px((a.centre_x() + b.centre_x()) / 2), px(a.y - lift), px(b.centre_x()),
                       px(b.y));
  }
  const PictureNode& upper = a.y < b.y ? a : b;
  const PictureNode& lower = a.y < b.y ? b : a;
  return fmt::format("M {} {} L {} {}", px(upper.centre_x()), px(upper.y + upper.height),
                     px(lower.centre_x()), px(lower.y));
}

std::string svg_edges(const Topology& topology, const MachineLayout& layout,
                      const EdgeSet& edges, const std::vector<double>& utilisation) {
  std::string out = "<g class=\"links\" fill=\"none\" stroke-linecap=\"round\">\n";
  // Idle links first so busy ones are drawn on top; the bottleneck last of all.
  std::vector<const std::pair<const std::pair<uint32_t, uint32_t>, PictureEdge>*> order;
  for (const auto& entry : edges.between) order.push_back(&entry);
  std::stable_sort(order.begin(), order.end(), [](const auto* x, const auto* y) {
    if (x->second.bottleneck != y->second.bottleneck) return y->second.bottleneck;
    return x->second.utilisation < y->second.utilisation;
  });
  for (const auto* entry : order) {
    const PictureNode& a = layout.nodes[entry->first.first];
    const PictureNode& b = layout.nodes[entry->first.second];
    const PictureEdge& edge = entry->second;
    const bool collapsed = a.shape != PictureNode::Shape::kDevice ||
                           b.shape != PictureNode::Shape::kDevice;
    const double width = edge.bottleneck ? 4.5 : (collapsed ? 3.0 : 1.8);
    const std::string path = edge_path(a, b);
    out += fmt::format("<g class=\"link{}\"><title>{}</title>", edge.bottleneck ? " bottleneck" : "",
                       xml_escape(edge_tooltip(topology, a, b, edge, utilisation)));
    if (edge.bottleneck) {
      out += fmt::format("<path d=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>", path,
                         kBottleneckOutline, px(width + 3));
    }
    out += fmt::format("<path d=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/></g>\n", path,
                       detail::utilisation_colour(edge.utilisation), px(width));
  }
  out += "</g>\n";
  return out;
}

std::string_view kind_fill(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kGpu: return "#e3f0d0";
    case DeviceKind::kCpu: return "#dde7f3";
    case DeviceKind::kPcieSwitch: return "#e6e9ef";
    case DeviceKind::kNvswitch: return "#d4ecc0";
    case DeviceKind::kNic: return "#f6e4d0";
    case DeviceKind::kNetSwitch: return "#f3dada";
  }
  return "#ffffff";
}

std::string node_tooltip(const Topology& topology, const PictureNode& node,
                         const PictureEdge& inside) {
  std::string text = node.name;
  if (node.shape == PictureNode::Shape::kDevice) {
    text += fmt::format(" ({})", to_string(node.kind));
  } else if (node.shape == PictureNode::Shape::kHost && node.hosts.size() > 1) {
    text += fmt::format(" ({} servers)", node.hosts.size());
  }
  if (node.shape != PictureNode::Shape::kDevice && !inside.links.empty()) {
    text += fmt::format("; busiest link inside: {} ({})", percent(inside.utilisation),
                        link_text(topology, inside.busiest));
  }
  return text;
}

std::string svg_nodes(const Topology& topology, const MachineLayout& layout,
                      const EdgeSet& edges) {
  std::string out = "<g class=\"devices\">\n";
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    const PictureNode& node = layout.nodes[i];
    const PictureEdge& inside = edges.inside[i];
    const bool host = node.shape == PictureNode::Shape::kHost;
    // A summarised server is filled with the colour of its busiest internal link.
    const std::string fill = host ? detail::utilisation_colour(inside.utilisation)
                                  : std::string(kind_fill(node.kind));
    const bool marked = inside.bottleneck;
    out += fmt::format("<g class=\"node\"><title>{}</title>",
                       xml_escape(node_tooltip(topology, node, inside)));
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\" fill=\"{}\" stroke=\"{}\" "
        "stroke-width=\"{}\"/>",
        px(node.x), px(node.y), px(node.width), px(node.height), host ? "6" : "3", fill,
        marked ? kBottleneckOutline : "#7b8794", marked ? "3" : "1");
    // Shrink the font until the label fits its box (9 to 11 px).
    const double font = std::clamp(node.width / (0.6 * double(node.label.size()) + 0.5), 7.0,
                                   node.shape == PictureNode::Shape::kDevice ? 10.0 : 11.0);
    const bool dark = host && inside.utilisation > 0.6;
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" dy=\"0.35em\" text-anchor=\"middle\" font-size=\"{}\" "
        "fill=\"{}\">{}</text></g>\n",
        px(node.centre_x()), px(node.centre_y()), px(font), dark ? "#ffffff" : "#1f2933",
        xml_escape(node.label));
  }
  out += "</g>\n";
  return out;
}

std::string svg_frames(const MachineLayout& layout) {
  std::string out = "<g class=\"servers\">\n";
  for (const detail::PictureFrame& frame : layout.frames) {
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"8\" fill=\"#f8fafc\" "
        "stroke=\"#cbd2d9\" stroke-width=\"1\"/>\n",
        px(frame.x), px(frame.y), px(frame.width), px(frame.height));
  }
  out += "</g>\n";
  return out;
}

// Frame labels go above the links, with a halo so crossing lines do not hide them.
std::string svg_frame_labels(const MachineLayout& layout) {
  std::string out = "<g class=\"server-labels\" font-size=\"11\" fill=\"#52606d\" "
                    "stroke=\"#f8fafc\" stroke-width=\"4\" paint-order=\"stroke\">\n";
  for (const detail::PictureFrame& frame : layout.frames) {
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", px(frame.x + 10),
                       px(frame.y + 16), xml_escape(frame.label));
  }
  out += "</g>\n";
  return out;
}

// A tag on the bottleneck line (or box) saying what it is.
std::string svg_bottleneck_tag(const MachineLayout& layout, const EdgeSet& edges,
                               double utilisation) {
  double x = 0, y = 0;
  bool found = false;
  for (const auto& [pair, edge] : edges.between) {
    if (!edge.bottleneck) continue;
    const PictureNode& a = layout.nodes[pair.first];
    const PictureNode& b = layout.nodes[pair.second];
    x = (a.centre_x() + b.centre_x()) / 2;
    y = a.row == b.row ? a.y - arc_lift(a, b) / 2
                       : (std::min(a.y, b.y) + std::max(a.y, b.y) + std::min(a.height, b.height)) / 2;
    found = true;
  }
  for (size_t i = 0; !found && i < edges.inside.size(); ++i) {
    if (!edges.inside[i].bottleneck) continue;
    x = layout.nodes[i].centre_x();
    y = layout.nodes[i].y - 12;
    found = true;
  }
  if (!found) return "";
  const std::string text = "bottleneck " + percent(utilisation);
  const double width = detail::text_width_px(text, 11) + 10;
  return fmt::format(
      "<g class=\"bottleneck-tag\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"18\" rx=\"4\" "
      "fill=\"#ffffff\" stroke=\"{}\" stroke-width=\"1.5\"/><text x=\"{}\" y=\"{}\" "
      "dy=\"0.35em\" text-anchor=\"middle\" font-size=\"11\" font-weight=\"600\" fill=\"{}\">{}"
      "</text></g>\n",
      px(x - width / 2), px(y - 9), px(width), kBottleneckOutline, px(x), px(y),
      kBottleneckOutline, xml_escape(text));
}

std::string svg_scale_legend(double top) {
  std::string out = fmt::format(
      "<g class=\"scale\" font-size=\"11\" fill=\"#3e4c59\"><text x=\"16\" y=\"{}\" "
      "dy=\"0.35em\">link utilisation</text>\n",
      px(top + 7));
  constexpr int kSteps = 11;
  constexpr double kSwatchPx = 26;
  const double left = 120;
  for (int k = 0; k < kSteps; ++k) {
    const double u = double(k) / (kSteps - 1);
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" fill=\"{}\"><title>{}</title></rect>",
        px(left + kSwatchPx * k), px(top), px(kSwatchPx), detail::utilisation_colour(u),
        percent(u));
  }
  for (int k : {0, 5, 10}) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}%</text>",
                       px(left + kSwatchPx * (k + 0.5)), px(top + 28), k * 10);
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" dy=\"0.35em\">thick dark outline: the bottleneck; boxes of "
      "servers: their busiest internal link</text></g>\n",
      px(left + kSwatchPx * kSteps + 16), px(top + 7));
  return out;
}

}  // namespace

std::string svg_machine_utilisation(const Topology& topology,
                                    const std::vector<double>& link_utilisation,
                                    const MachinePictureOptions& options) {
  check_utilisation(topology, link_utilisation);
  const std::optional<LinkId> bottleneck = pick_bottleneck(topology, link_utilisation, options);
  const MachineLayout layout =
      detail::layout_machine(topology, host_to_detail(topology, bottleneck), options, kTopPx);
  const EdgeSet edges = group_links(topology, layout, link_utilisation, bottleneck);

  std::string caption = "No link carries traffic.";
  if (bottleneck) {
    const Link& link = topology.link(*bottleneck);
    caption = fmt::format("Bottleneck: {} ({} x{}, {} per direction), utilisation {}",
                          link_text(topology, *bottleneck), topology.link_type(link), link.lanes,
                          format_bandwidth(link.bw_Bps), percent(link_utilisation[bottleneck->value]));
  }
  const double caption_y = layout.bottom + 22;
  const double legend_y = caption_y + 18;
  const int height = int(std::ceil(legend_y + 40));
  const std::string title =
      options.title.empty() ? "Link utilisation on " + topology.name() : options.title;

  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"linksim-chart machine\" width=\"{0}\" "
      "height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" {2}>\n<title>{3}</title>\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n"
      "<text x=\"{4}\" y=\"24\" font-size=\"15\" font-weight=\"600\" fill=\"#1f2933\" "
      "text-anchor=\"middle\">{3}</text>\n",
      options.width_px, height, detail::kSvgFont, xml_escape(title), px(options.width_px / 2.0));
  out += svg_frames(layout);
  out += svg_edges(topology, layout, edges, link_utilisation);
  out += svg_frame_labels(layout);
  out += svg_nodes(topology, layout, edges);
  if (bottleneck) out += svg_bottleneck_tag(layout, edges, link_utilisation[bottleneck->value]);
  out += fmt::format(
      "<text class=\"caption\" x=\"16\" y=\"{}\" font-size=\"12\" font-weight=\"600\" "
      "fill=\"#1f2933\">{}</text>\n",
      px(caption_y), xml_escape(caption));
  out += svg_scale_legend(legend_y);
  out += "</svg>\n";
  return out;
}

}  // namespace linksim
