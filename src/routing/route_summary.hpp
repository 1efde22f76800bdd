// SPDX-License-Identifier: Apache-2.0
// Filling a Route's summary (bottleneck bandwidth, latency, bottleneck link) from its paths.
#pragma once

#include "linksim/routing.hpp"

namespace linksim::routing_detail {

/// Sets bw_Bps = min over paths of (min link bw / share), bottleneck = the link attaining it,
/// latency_s = the largest sum of link latencies over the paths. A route without paths (self)
/// gets bw_Bps = +inf and latency 0.
void summarize(const Topology& topology, Route* route);

}  // namespace linksim::routing_detail
