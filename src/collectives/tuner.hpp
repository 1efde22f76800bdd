// SPDX-License-Identifier: Apache-2.0
// NCCL's tuner: among the allowed (algorithm, protocol) pairs, the one NCCL's own estimate
// (nccl_tuner_model.hpp: its search speeds and tuning tables) makes fastest for the size
// (NCCL enqueue.cc topoGetAlgoInfo, tuning.cc ncclTopoGetAlgoTime); the chosen pair's time is
// then linksim's realized closed form (analytic.hpp). docs/model.md#tuner.
#pragma once

#include <vector>

#include "collectives/analytic.hpp"
#include "collectives/nccl_tuner_model.hpp"

namespace linksim::detail {

struct Choice {
  Algorithm algo = Algorithm::kRing;
  Protocol proto = Protocol::kSimple;
  CostModel model;        ///< the realized model: what the call takes
  NcclEstimate estimate;  ///< NCCL's estimate: why it was chosen
};

/// One pair the tuner tried, in its order of trial (candidate algorithms, then LL, LL128,
/// Simple), with its model: eligible or why not.
struct TriedPair {
  Algorithm algo = Algorithm::kRing;
  Protocol proto = Protocol::kSimple;
  CostModel model;
  NcclEstimate estimate;  ///< enabled when the model is eligible
};

/// The allowed pair NCCL's estimate makes fastest for `q` (q.algorithm / q.protocol restrict
/// the candidates); ties go to the earlier pair in the order of trial.
/// `tried`, when given, receives every pair considered. Throws ConfigError for an algorithm
/// the collective cannot use here, or when no allowed pair is eligible.
Choice choose(const CommGraph& g, const CollectiveQuery& q,
              std::vector<TriedPair>* tried = nullptr);

}  // namespace linksim::detail
