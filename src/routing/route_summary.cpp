// SPDX-License-Identifier: Apache-2.0
// Route summaries and the names of path classes and transports (nvidia-smi's legend).
#include "routing/route_summary.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <limits>

namespace linksim {

std::string_view to_string(PathClass cls) {
  switch (cls) {
    case PathClass::kSelf: return "X";
    case PathClass::kNvlink: return "NV";
    case PathClass::kPix: return "PIX";
    case PathClass::kPxb: return "PXB";
    case PathClass::kPhb: return "PHB";
    case PathClass::kNode: return "NODE";
    case PathClass::kSys: return "SYS";
    case PathClass::kNet: return "NET";
  }
  return "?";
}

std::string_view to_string(Transport transport) {
  switch (transport) {
    case Transport::kP2p: return "p2p";
    case Transport::kShm: return "shm";
    case Transport::kNet: return "net";
  }
  return "?";
}

void Route::begin_network(DeviceId from, DeviceId to) {
  src = from;
  dst = to;
  cls = PathClass::kNet;
  nvlinks = 0;
  transport = Transport::kNet;
  bw_Bps = 0;
  latency_s = 0;
  bottleneck = LinkId{};
  proxy.reset();
}

std::string Route::label() const {
  if (cls == PathClass::kNvlink) return fmt::format("NV{}", nvlinks);
  return std::string(to_string(cls));
}

namespace routing_detail {

void summarize(const Topology& topology, Route* route) {
  route->bw_Bps = std::numeric_limits<double>::infinity();
  route->latency_s = 0;
  for (const Path& path : route->paths) {
    double latency_s = 0;
    for (LinkId id : path.links) {
      const Link& link = topology.link(id);
      latency_s += link.latency_s;
      const double route_bw_Bps = link.bw_Bps / path.share;
      if (route_bw_Bps < route->bw_Bps) {
        route->bw_Bps = route_bw_Bps;
        route->bottleneck = id;
      }
    }
    route->latency_s = std::max(route->latency_s, latency_s);
  }
}

}  // namespace routing_detail
}  // namespace linksim
