// SPDX-License-Identifier: Apache-2.0
// Layout of the machine picture (docs/reports.md#machine-picture).
#include "report/svg_machine_layout.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <span>
#include <utility>

namespace linksim::detail {
namespace {

constexpr double kMarginPx = 16;
constexpr double kRowPitchPx = 66;     // vertical distance between rows of boxes
constexpr double kDeviceHeightPx = 24;
constexpr double kMinSlotPx = 46;      // narrower slots wrap a row of devices
constexpr double kMaxDeviceWidthPx = 84;
constexpr double kSummaryBoxWidthPx = 112;
constexpr double kSummaryBoxHeightPx = 30;
constexpr double kFramePaddingPx = 14;
// A kind with more devices than this in the detailed server (GB200 NVL72: 72 GPUs, 72 NICs,
// 36 CPUs) is one box, so its links to the other rows stay countable.
constexpr size_t kMaxDevicesOfKindInDetail = 24;

std::string tier_name(int tier) {
  switch (tier) {
    case 1: return "leaf";
    case 2: return "spine";
    case 3: return "core";
    default: return fmt::format("tier {}", tier);
  }
}

// Places `count` boxes of equal size evenly across [left, right] at y, wrapping into rows
// when a slot would be narrower than kMinSlotPx. Returns the y below the last row.
double place_row(std::vector<PictureNode>& nodes, size_t first, size_t count, double left,
                 double right, double y, double max_width, double height, int& row) {
  const size_t per_row = std::max<size_t>(1, size_t((right - left) / kMinSlotPx));
  for (size_t start = 0; start < count; start += per_row) {
    const size_t in_row = std::min(per_row, count - start);
    const double slot = (right - left) / double(in_row);
    const double width = std::min(max_width, slot - 8);
    for (size_t k = 0; k < in_row; ++k) {
      PictureNode& node = nodes[first + start + k];
      node.width = width;
      node.height = height;
      node.x = left + slot * (double(k) + 0.5) - width / 2;
      node.y = y;
      node.row = row;
    }
    ++row;
    y += kRowPitchPx;
  }
  return y;
}

// Fabric devices grouped by (kind, tier): network switches by tier from the top one down,
// then other fabric kinds.
std::vector<std::vector<DeviceId>> fabric_groups(const Topology& topology) {
  std::map<std::pair<int, int>, std::vector<DeviceId>> groups;  // (order key, tier)
  const auto devices = topology.devices();
  for (uint32_t i = 0; i < devices.size(); ++i) {
    const Device& device = devices[i];
    if (device.host) continue;
    const bool net = device.kind == DeviceKind::kNetSwitch;
    const int order = net ? -device.tier : 100 + int(device.kind);
    groups[{order, net ? device.tier : 0}].push_back(DeviceId{i});
  }
  std::vector<std::vector<DeviceId>> rows;
  for (auto& [key, ids] : groups) rows.push_back(std::move(ids));
  return rows;
}

std::string group_name(const Topology& topology, const std::vector<DeviceId>& ids) {
  const Device& first = topology.device(ids.front());
  const std::string what = first.kind == DeviceKind::kNetSwitch ? tier_name(first.tier)
                                                                : std::string(to_string(first.kind));
  return fmt::format("{} \u00d7{}", what, ids.size());
}

// The rows of one server, top first. With a fabric above, NICs come first (nearest their
// switches); without one they share the GPUs' row, under the PCIe switches they hang from.
std::vector<std::vector<DeviceKind>> host_rows(bool fabric) {
  if (fabric) {
    return {{DeviceKind::kNic}, {DeviceKind::kCpu}, {DeviceKind::kPcieSwitch},
            {DeviceKind::kGpu}, {DeviceKind::kNvswitch}, {DeviceKind::kNetSwitch}};
  }
  return {{DeviceKind::kCpu}, {DeviceKind::kPcieSwitch}, {DeviceKind::kGpu, DeviceKind::kNic},
          {DeviceKind::kNvswitch}, {DeviceKind::kNetSwitch}};
}

// Orders a row under the rows already placed: each device at the mean x of its placed
// neighbours (the barycentre heuristic of layered graph drawing, Sugiyama et al. 1981), which
// puts GPUs under their PCIe switch and keeps lines short. Devices without placed neighbours
// keep their even share of the row; ties keep the input order.
void order_by_neighbours(const Topology& topology, const std::vector<double>& placed_x,
                         double left, double right, std::vector<DeviceId>& ids) {
  std::vector<std::pair<double, size_t>> keys;
  for (size_t k = 0; k < ids.size(); ++k) {
    double sum = 0;
    int n = 0;
    for (LinkId l : topology.out_links(ids[k])) {
      const double x = placed_x[topology.link(l).to.value];
      if (x < 0) continue;
      sum += x;
      ++n;
    }
    const double even = left + (right - left) * (double(k) + 0.5) / double(ids.size());
    keys.push_back({n > 0 ? sum / n : even, k});
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<DeviceId> sorted;
  for (const auto& key : keys) sorted.push_back(ids[key.second]);
  ids = std::move(sorted);
}

double layout_fabric(const Topology& topology, const MachinePictureOptions& options,
                     MachineLayout& layout, double y, int& row) {
  const double left = kMarginPx;
  const double right = options.width_px - kMarginPx;
  for (const std::vector<DeviceId>& ids : fabric_groups(topology)) {
    const size_t first = layout.nodes.size();
    if (int(ids.size()) > options.max_switches_per_tier) {
      PictureNode node;
      node.shape = PictureNode::Shape::kTier;
      node.kind = topology.device(ids.front()).kind;
      node.name = node.label = group_name(topology, ids);
      node.members = int(ids.size());
      layout.nodes.push_back(node);
      for (DeviceId id : ids) layout.node_of_device[id.value] = uint32_t(first);
      y = place_row(layout.nodes, first, 1, left, right, y, 160, 28, row);
      continue;
    }
    for (DeviceId id : ids) {
      PictureNode node;
      node.kind = topology.device(id).kind;
      node.name = node.label = topology.display_name(id);
      layout.node_of_device[id.value] = uint32_t(layout.nodes.size());
      layout.nodes.push_back(node);
    }
    y = place_row(layout.nodes, first, ids.size(), left, right, y, 110, 28, row);
  }
  return y;
}

double layout_detailed_host(const Topology& topology, int host, double left, double right,
                            MachineLayout& layout, double y, int& row) {
  const double frame_top = y;
  y += kFramePaddingPx + 18;
  const bool fabric = topology.devices().size() >
                      size_t(topology.host_count()) * topology.devices_per_host();
  std::vector<double> placed_x(topology.devices().size(), -1.0);
  for (uint32_t d = 0; d < topology.devices().size(); ++d) {  // the fabric, laid out above
    if (!topology.device(DeviceId{d}).host) {
      placed_x[d] = layout.nodes[layout.node_of_device[d]].centre_x();
    }
  }
  const double row_left = left + kFramePaddingPx;
  const double row_right = right - kFramePaddingPx;
  for (const std::vector<DeviceKind>& kinds : host_rows(fabric)) {
    std::vector<DeviceId> ids;
    std::vector<std::vector<DeviceId>> crowds;  // kinds with too many devices: one box each
    for (DeviceKind kind : kinds) {
      const std::vector<DeviceId> of_kind = topology.devices_of(host, kind);
      if (of_kind.size() > kMaxDevicesOfKindInDetail) {
        crowds.push_back(of_kind);
      } else {
        ids.insert(ids.end(), of_kind.begin(), of_kind.end());
      }
    }
    if (ids.empty() && crowds.empty()) continue;
    order_by_neighbours(topology, placed_x, row_left, row_right, ids);
    const size_t first = layout.nodes.size();
    for (const std::vector<DeviceId>& crowd : crowds) {
      PictureNode node;
      node.shape = PictureNode::Shape::kTier;
      node.kind = topology.device(crowd.front()).kind;
      node.label = fmt::format("{} \u00d7{}", to_string(node.kind), crowd.size());
      node.name = fmt::format("host{}: {}", host, node.label);
      node.members = int(crowd.size());
      for (DeviceId id : crowd) layout.node_of_device[id.value] = uint32_t(layout.nodes.size());
      layout.nodes.push_back(node);
    }
    for (DeviceId id : ids) {
      PictureNode node;
      node.kind = topology.device(id).kind;
      node.label = topology.device(id).name;
      node.name = topology.display_name(id);
      layout.node_of_device[id.value] = uint32_t(layout.nodes.size());
      layout.nodes.push_back(node);
    }
    const size_t count = layout.nodes.size() - first;
    y = place_row(layout.nodes, first, count, row_left, row_right, y,
                  crowds.empty() ? kMaxDeviceWidthPx : 140, kDeviceHeightPx, row);
    for (const std::vector<DeviceId>& placed : crowds) ids.insert(ids.end(), placed.begin(), placed.end());
    for (DeviceId id : ids) {
      placed_x[id.value] = layout.nodes[layout.node_of_device[id.value]].centre_x();
    }
  }
  const double bottom = y - kRowPitchPx + kDeviceHeightPx + kFramePaddingPx;
  const std::string label =
      topology.host_count() > 1
          ? fmt::format("host{} (drawn in detail; {} servers)", host, topology.host_count())
          : fmt::format("{} (one server)", topology.name());
  layout.frames.push_back({label, left, frame_top, right - left, bottom - frame_top});
  return bottom;
}

double layout_summary_hosts(const Topology& topology, int detailed_host,
                            const MachinePictureOptions& options, double left, double right,
                            MachineLayout& layout, double y, int& row) {
  std::vector<int> others;
  for (int h = 0; h < topology.host_count(); ++h) {
    if (h != detailed_host) others.push_back(h);
  }
  const size_t own_boxes =
      others.size() <= size_t(options.max_summary_hosts) + 1 ? others.size()
                                                              : size_t(options.max_summary_hosts);
  const size_t first = layout.nodes.size();
  for (size_t k = 0; k < own_boxes; ++k) {
    PictureNode node;
    node.shape = PictureNode::Shape::kHost;
    node.hosts = {others[k]};
    node.name = node.label = fmt::format("host{}", others[k]);
    layout.nodes.push_back(node);
  }
  if (own_boxes < others.size()) {
    PictureNode node;
    node.shape = PictureNode::Shape::kHost;
    node.hosts.assign(others.begin() + long(own_boxes), others.end());
    node.members = int(node.hosts.size());
    node.label = fmt::format("{} more servers", node.hosts.size());
    node.name = fmt::format("host{}..host{}", node.hosts.front(), node.hosts.back());
    layout.nodes.push_back(node);
  }
  const size_t boxes = layout.nodes.size() - first;
  constexpr size_t kColumns = 2;
  const double column_width = (right - left) / double(kColumns);
  const double pitch = kSummaryBoxHeightPx + 12;
  const double frame_top = y;
  y += kFramePaddingPx + 18;
  for (size_t k = 0; k < boxes; ++k) {
    PictureNode& node = layout.nodes[first + k];
    node.width = std::min(kSummaryBoxWidthPx, column_width - 12);
    node.height = kSummaryBoxHeightPx;
    node.x = left + column_width * (double(k % kColumns) + 0.5) - node.width / 2;
    node.y = y + pitch * double(k / kColumns);
    node.row = row + int(k / kColumns);
  }
  row += int((boxes + kColumns - 1) / kColumns);
  for (PictureNode& node : std::span(layout.nodes).subspan(first)) {
    for (int h : node.hosts) {
      const uint32_t begin = topology.host_device_offset(h);
      for (uint32_t d = 0; d < topology.devices_per_host(); ++d) {
        layout.node_of_device[begin + d] = uint32_t(&node - layout.nodes.data());
      }
    }
  }
  const double bottom = y + pitch * double((boxes + kColumns - 1) / kColumns) - 12 +
                       kFramePaddingPx;
  layout.frames.push_back({"other servers", left, frame_top, right - left, bottom - frame_top});
  return bottom;
}

}  // namespace

MachineLayout layout_machine(const Topology& topology, int detailed_host,
                             const MachinePictureOptions& options, double top) {
  MachineLayout layout;
  layout.node_of_device.assign(topology.devices().size(), 0);
  int row = 0;
  double y = layout_fabric(topology, options, layout, top, row);
  if (y > top) y += 6;  // a little more air between the fabric and the servers
  const double left = kMarginPx;
  const double right = options.width_px - kMarginPx;
  if (topology.host_count() <= 1) {
    layout.bottom = layout_detailed_host(topology, detailed_host, left, right, layout, y, row);
    return layout;
  }
  const double split = left + (right - left) * 0.7;
  const double detailed_bottom =
      layout_detailed_host(topology, detailed_host, left, split - 8, layout, y, row);
  const double summary_bottom =
      layout_summary_hosts(topology, detailed_host, options, split + 8, right, layout, y, row);
  layout.bottom = std::max(detailed_bottom, summary_bottom);
  return layout;
}

}  // namespace linksim::detail
