// SPDX-License-Identifier: Apache-2.0
// The rate caps of many routes between servers (route_rate_cap, link_efficiency.hpp), each
// decided once per route shape instead of by reading every link of every route: servers are
// identical blocks (the layout contract of linksim/topology.hpp), so the cap of a shape repeats.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "collectives/link_efficiency.hpp"

namespace linksim::detail {

/// Whether a network route's GPU/NIC legs (the links before its first and after its last link
/// of the network family) can be told by link id alone: the topology has two or more server
/// blocks, no link of host 0's block is of the network family (nor, the blocks being
/// identical, of any block), and every link after the blocks (the fabric's) is. Reads host 0's
/// links and the fabric's once.
bool network_legs_by_link_id(const Topology& topology);

/// route_rate_cap for the routes of one pass (a lowering, a ring plan), with its answers kept
/// per route shape. A shape is a network route's two GPU/NIC legs as link ids within their
/// servers (the source and destination GPUs, the PXN hand-over, the NIC pair and so the
/// fabric plane) and whether each leg's NIC is in `gdr_nics`: with identical server blocks
/// (faults apply to every server, linksim/faults.hpp) two routes of one shape read the same
/// links, devices and platforms, so their caps are the same doubles. Any other route (inside
/// a server, host-staged SHM, or a topology where network_legs_by_link_id is false) is
/// answered by route_rate_cap itself. Not thread-safe: one per pass.
class RouteCaps {
 public:
  /// `by_shape`: network_legs_by_link_id(topology), which the caller keeps. `topology`,
  /// `calibration` and `gdr_nics` (may be null, as route_rate_cap's) outlive this.
  RouteCaps(const Topology& topology, const ModelCalibration& calibration,
            const GdrNics* gdr_nics, bool by_shape);

  /// route_rate_cap(topology, route, calibration, why, gdr_nics): the same value and `why`.
  double cap(const Route& route, Bottleneck* why = nullptr);

  /// The shapes decided so far.
  size_t shapes() const { return shapes_.size(); }

 private:
  static constexpr uint32_t kNoNic = ~uint32_t{0};
  /// One shape's answers, by the GPUDirect flags of its two NICs (gdr_case).
  struct Shape {
    uint32_t send_nic = kNoNic;  ///< the send leg's NIC, its id in host 0's block
    uint32_t recv_nic = kNoNic;  ///< the receive leg's NIC, likewise
    std::array<bool, 4> decided{};
    std::array<bool, 4> staged{};          ///< route_rate_cap wrote `why`
    std::array<bool, 4> crosses_socket{};  ///< the staged copy crosses the socket link
    std::array<double, 4> cap_Bps{};
  };
  struct KeyHash {
    size_t operator()(const std::vector<uint32_t>& key) const;
  };

  /// Writes the shape key of `route`'s first path into key_ and the hosts of its two legs;
  /// false when the route is not one route_rate_cap answers by shape.
  bool shape_key(const Route& route, uint32_t* send_host, uint32_t* recv_host);
  /// 0..3: bit 0 the send NIC in gdr_nics, bit 1 the receive NIC.
  size_t gdr_case(const Shape& shape, uint32_t send_host, uint32_t recv_host) const;
  bool in_gdr(uint32_t nic) const;

  const Topology& topology_;
  const ModelCalibration& calibration_;
  const GdrNics* gdr_nics_;
  bool by_shape_;
  uint32_t links_per_host_ = 0;
  uint32_t devices_per_host_ = 0;
  uint32_t block_links_ = 0;  ///< the first link id after the server blocks
  std::unordered_map<std::vector<uint32_t>, Shape, KeyHash> shapes_;
  std::vector<uint32_t> key_;  ///< shape_key's scratch: no allocation per route
};

}  // namespace linksim::detail
