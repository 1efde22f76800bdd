// SPDX-License-Identifier: Apache-2.0
// Where the machine picture puts each device: one server device by device, other servers as
// summary boxes, fabric switches in rows by tier (a crowded tier as one box).
#pragma once

#include <string>
#include <vector>

#include "linksim/charts.hpp"
#include "linksim/topology.hpp"

namespace linksim::detail {

/// One box of the picture: a device, a collapsed fabric tier, or a summarised server.
struct PictureNode {
  enum class Shape { kDevice, kTier, kHost };
  Shape shape = Shape::kDevice;
  DeviceKind kind = DeviceKind::kGpu;  ///< kDevice, kTier: the kind of what it stands for
  std::string label;                   ///< text inside the box
  std::string name;                    ///< for tooltips: "host0:gpu3", "leaf x64", "host5"
  std::vector<int> hosts;              ///< kHost: the servers it stands for
  int members = 1;                     ///< devices (kTier) or servers (kHost) it stands for
  double x = 0, y = 0, width = 0, height = 0;  ///< top-left corner and size, pixels
  int row = 0;                         ///< nodes of one row share y; edges inside a row arc

  double centre_x() const { return x + width / 2; }
  double centre_y() const { return y + height / 2; }
};

/// A labelled outline around the detailed server.
struct PictureFrame {
  std::string label;
  double x = 0, y = 0, width = 0, height = 0;
};

struct MachineLayout {
  std::vector<PictureNode> nodes;
  std::vector<uint32_t> node_of_device;  ///< DeviceId -> index in nodes
  std::vector<PictureFrame> frames;
  double bottom = 0;                     ///< lowest pixel used
};

/// Lays out the machine below pixel row `top`, `detailed_host` device by device.
MachineLayout layout_machine(const Topology& topology, int detailed_host,
                             const MachinePictureOptions& options, double top);

}  // namespace linksim::detail
