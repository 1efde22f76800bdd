// SPDX-License-Identifier: Apache-2.0
// Routes between ranks of different servers from a table per route shape: the in-server legs
// (the PXN hand-over, the GPU/NIC legs) as link ids within a server block, offset by each
// end's server, around the fabric leg between the two NICs, which alone is routed per pair.
// Servers are identical blocks (the layout contract of linksim/topology.hpp), so a pair of
// local GPUs has the same legs on every pair of servers.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "collectives/route_caps.hpp"
#include "collectives/transfer_paths.hpp"
#include "linksim/routing.hpp"

namespace linksim::detail {

class CommGraph;

/// For a lowering that routes many pairs in turn (a tree's edges): the paths
/// CommGraph::route_paths answers, and RouteCaps::cap's value for them, without the router's
/// walk per pair. Each shape (source and destination GPU as ids within their servers) is
/// built from the router's host-0 tables (Router::host_route, Router::nics) and the route's
/// PXN choice, then checked once against CommGraph::route_paths on the first pair it
/// answers: a shape that differs is never used. Not thread-safe: one per pass.
class RouteShapes {
 public:
  /// REQUIRES: `graph` outlives this. Answers nothing unless the graph's topology tells
  /// network legs by link id (CommGraph::network_legs_by_link_id).
  explicit RouteShapes(const CommGraph& graph);

  /// Writes the paths of the route from rank `from` to rank `to` into `*out`, those of
  /// CommGraph::route_paths's route, its vectors' room reused, and RouteCaps::cap's value for
  /// that route into `*cap_Bps` (decided once per shape and GPUDirect case of its NICs).
  /// False, `*out` unspecified,
  /// for a pair the table does not answer: ranks of one server or outside the server blocks,
  /// a topology without legs by link id, a shape that failed its check, or a pair whose
  /// fabric does not join its NICs (the router's rail fallback, docs/routing.md#planes):
  /// the caller routes it itself. REQUIRES: ranks of the graph; `caps` built for the graph's
  /// topology, calibration and GPUDirect NICs.
  bool route(int from, int to, RouteCaps& caps, TransferPaths* out, double* cap_Bps);
  /// As above, the whole route written into `*out` as CommGraph::route_paths would (src,
  /// dst, class, transport, proxy and paths; no summary: bw_Bps, latency_s and bottleneck
  /// zero), its vectors' room reused.
  bool route(int from, int to, RouteCaps& caps, Route* out, double* cap_Bps);

  /// The shapes built so far (usable or not).
  size_t shapes() const { return shapes_.size(); }

 private:
  static constexpr uint32_t kNone = ~uint32_t{0};
  /// A path of a shape: links_[send_begin, send_end) are the source server's (the hand-over
  /// path, then the leg to the sending NIC), links_[recv_begin, recv_end) the destination's
  /// (the leg from the receiving NIC), all host-0 ids; the fabric leg between NIC pair
  /// `pair` (an index into pairs_) goes in between.
  struct ShapePath {
    uint32_t send_begin = 0;
    uint32_t send_end = 0;
    uint32_t recv_begin = 0;
    uint32_t recv_end = 0;
    uint32_t pair = 0;
    double share = 1.0;
  };
  /// The two NICs a fabric leg joins, as host-0 device ids.
  struct NicPair {
    uint32_t send_nic = 0;
    uint32_t recv_nic = 0;
  };
  struct Shape {
    enum class State : uint8_t { kUnchecked, kChecked, kUnusable };
    State state = State::kUnchecked;
    uint32_t proxy = kNone;  ///< the PXN proxy's host-0 device id, kNone when sent directly
    uint32_t first_pair = 0;
    uint32_t pair_count = 0;
    uint32_t first_path = 0;
    uint32_t path_count = 0;
    /// The NICs RouteCaps reads the GPUDirect flags of (where the first path's send leg
    /// ends, where its receive leg starts), host-0 ids; kNone for an empty leg.
    uint32_t send_gdr_nic = kNone;
    uint32_t recv_gdr_nic = kNone;
    /// Every NIC pair's two NICs are their own only NICs (Router::nics), so each fabric leg
    /// is Router::fabric_leg's, without routing the pair through Router::route_paths.
    bool own_nics = false;
    std::array<bool, 4> decided{};
    std::array<double, 4> cap_Bps{};
  };

  /// route()'s answer: the shape that wrote `*out`, nullptr for a pair it does not answer.
  const Shape* answer(int from, int to, RouteCaps& caps, TransferPaths* out, double* cap_Bps);
  /// The shape of the pair (`from`, `to`) on servers `src_host` != `dst_host`, built now.
  Shape build(int from, int to, uint32_t src_host, uint32_t dst_host);
  /// Writes the paths of the shape's route between the two servers into `*out`; false when
  /// a fabric leg is not the fabric's alone (the router would take its rail fallback).
  bool generate(const Shape& shape, uint32_t src_host, uint32_t dst_host, TransferPaths* out);
  /// The route of `paths`, generated for the shape from `src` to `dst` (as
  /// CommGraph::route_paths writes it: no summary), into `*out`.
  void write_route(const Shape& shape, DeviceId src, DeviceId dst, uint32_t src_host,
                   const TransferPaths& paths, Route* out) const;
  /// Whether `a` and `b` have the same paths, ends, class, transport and proxy.
  static bool same_paths(const Route& a, const Route& b);

  const CommGraph& graph_;
  bool enabled_ = false;
  uint32_t devices_per_host_ = 0;
  uint32_t links_per_host_ = 0;
  uint32_t block_devices_ = 0;  ///< devices of all server blocks
  uint32_t block_links_ = 0;    ///< links of all server blocks: the fabric's come after
  std::vector<Shape> shapes_;
  /// By source GPU's host-0 id: (destination GPU's host-0 id, index into shapes_) of the
  /// shapes built from it, scanned (a rank sends to few local GPUs: a tree's or ring's
  /// neighbours on one rail, at most its server's GPUs); sized at the first shape.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> shape_of_;
  std::vector<ShapePath> paths_;
  std::vector<NicPair> pairs_;
  std::vector<LinkId> links_;
  std::vector<uint32_t> fabric_ends_;  ///< generate's scratch: per NIC pair, its end in fabric_
  std::vector<LinkId> fabric_;         ///< generate's scratch: the fabric legs, pair by pair
  Route leg_;                          ///< generate's scratch: one fabric leg
  Route generated_;                    ///< a generated route, to check or cap
  TransferPaths paths_scratch_;        ///< route()'s paths on the way to a Route
  Route check_;                        ///< the router's route a shape is checked against
};

}  // namespace linksim::detail
