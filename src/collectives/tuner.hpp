// SPDX-License-Identifier: Apache-2.0
// NCCL's tuner over the closed forms: the fastest eligible (algorithm, protocol) for a query.
#pragma once

#include <vector>

#include "collectives/analytic.hpp"
#include "linksim/explain.hpp"

namespace linksim::detail {

struct Choice {
  Algorithm algo = Algorithm::kRing;
  Protocol proto = Protocol::kSimple;
  CostModel model;
};

/// Among the pairs the query allows, the one with the least closed-form time (ties: the
/// earlier in the algorithm table, then LL, LL128, Simple). `considered`, when given, receives
/// every pair the query allows, in that order, with its time or why it is not eligible.
/// Throws ConfigError for an algorithm or protocol the collective or machine cannot use.
Choice choose(const CommGraph& graph, const CollectiveQuery& query,
              std::vector<TunerCandidate>* considered = nullptr);

}  // namespace linksim::detail
