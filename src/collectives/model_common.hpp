// SPDX-License-Identifier: Apache-2.0
// Pieces of the closed forms that several algorithms share: NCCL's latency table, the
// protocol efficiencies, and hop latencies (docs/model.md#latency).
#pragma once

#include "collectives/comm_graph.hpp"
#include "collectives/model_params.hpp"

namespace linksim::detail {

inline const NcclLatencies kLat{};
inline const ProtocolEfficiency kEff{};
inline constexpr double kUs = 1e-6;

/// NCCL's hardware latency of one intra-server hop of class `cls`, microseconds.
double intra_hw_latency_us(HopClass cls, Protocol p, bool tree);

/// The servers' NICs as a bottleneck: `per_server_Bps` per server, 0 for all-to-all.
Bottleneck server_nics(double per_server_Bps);

}  // namespace linksim::detail
