// SPDX-License-Identifier: Apache-2.0
// NCCL's tuner: among the allowed (algorithm, protocol) pairs, the one whose closed form
// (analytic.hpp) predicts the least time for the size (NCCL enqueue.cc, topoGetAlgoInfo).
#pragma once

#include <vector>

#include "collectives/analytic.hpp"

namespace linksim::detail {

struct Choice {
  Algorithm algo = Algorithm::kRing;
  Protocol proto = Protocol::kSimple;
  CostModel model;
};

/// One pair the tuner tried, in its order of trial (candidate algorithms, then LL, LL128,
/// Simple), with its model: eligible or why not.
struct TriedPair {
  Algorithm algo = Algorithm::kRing;
  Protocol proto = Protocol::kSimple;
  CostModel model;
};

/// The fastest allowed pair for `q` (q.algorithm / q.protocol restrict the candidates).
/// `tried`, when given, receives every pair considered. Throws ConfigError for an algorithm
/// the collective cannot use here, or when no allowed pair is eligible.
Choice choose(const CommGraph& g, const CollectiveQuery& q,
              std::vector<TriedPair>* tried = nullptr);

}  // namespace linksim::detail
