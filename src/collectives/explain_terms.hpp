// SPDX-License-Identifier: Apache-2.0
// Building blocks of a closed form's derivation (CostTrace): terms in SI units with their
// sources, and the terms that describe what limits a bandwidth (docs/explain.md).
#pragma once

#include <string>
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
/// effective capacity (and, with `ring_load`, the share of each rank's bytes the rings put on
/// it); for host staging, the route's slowest PCIe leg and SMP link with the staging
/// efficiencies; for NVLS or the servers' NICs, the rate that binds.
void add_bottleneck_terms(const CommGraph& graph, const Bottleneck& bottleneck,
                          std::vector<ExplainTerm>& terms, bool ring_load = false);

}  // namespace linksim::detail
