// SPDX-License-Identifier: Apache-2.0
// Building blocks of a closed form's derivation (CostTrace): terms in SI units with their
// sources, and the terms that describe what limits a bandwidth (docs/explain.md).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collectives/comm_graph.hpp"
#include "linksim/explain.hpp"

namespace linksim::detail {

/// A latency given in microseconds (NCCL's tables), as a term in seconds.
ExplainTerm us_term(std::string symbol, double us, std::string source);

/// A pure number (a count, a factor, an efficiency).
ExplainTerm count_term(std::string symbol, double value, std::string source);

/// A rate in bytes/s.
ExplainTerm rate_term(std::string symbol, double Bps, std::string source);

/// The terms behind a bottleneck: for a link, its catalog entry, raw rate, efficiency and
/// effective capacity, and `load` when given (the bytes it carries per byte each rank sends);
/// for host staging, B_copy, B_mem, B_socket and B_measured and which of them bounds B_shm;
/// for NVLS or the servers' NICs, the rate that binds.
void add_bottleneck_terms(const CommGraph& graph, const Bottleneck& bottleneck,
                          std::vector<ExplainTerm>& terms,
                          std::optional<double> load = std::nullopt);

/// The load of `link` among `loads` (StreamSet::loads, CommGraph::ring_link_loads); nullopt if absent.
std::optional<double> load_of(const std::vector<std::pair<LinkId, double>>& loads, LinkId link);

}  // namespace linksim::detail
