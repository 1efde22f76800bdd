// SPDX-License-Identifier: Apache-2.0
// The CollectiveQuery most tests ask: one operation on `bytes` bytes, the algorithm, protocol
// and mode chosen or left to the tuner.
#pragma once

#include "linksim/collectives.hpp"

namespace linksim::testing {

inline CollectiveQuery collective_query(CollectiveOp op, double bytes,
                                        Algorithm algorithm = Algorithm::kAuto,
                                        Protocol protocol = Protocol::kAuto,
                                        SimMode mode = SimMode::kAnalytic) {
  CollectiveQuery q;
  q.op = op;
  q.size_bytes = bytes;
  q.algorithm = algorithm;
  q.protocol = protocol;
  q.mode = mode;
  return q;
}

}  // namespace linksim::testing
