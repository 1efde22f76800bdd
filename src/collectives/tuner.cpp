// SPDX-License-Identifier: Apache-2.0
#include "collectives/tuner.hpp"

#include <algorithm>
#include <fmt/core.h>
#include <limits>
#include <string>

#include "linksim/error.hpp"

namespace linksim::detail {
namespace {

constexpr Protocol kProtocols[] = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};

std::string join_algorithms(const std::vector<Algorithm>& algos) {
  std::string out;
  for (Algorithm a : algos) out += (out.empty() ? "" : ", ") + std::string(to_string(a));
  return out;
}

}  // namespace

Choice choose(const CommGraph& g, const CollectiveQuery& q, std::vector<TriedPair>* tried) {
  const auto candidates = candidate_algorithms(g, q.op);
  if (q.algorithm != Algorithm::kAuto &&
      std::find(candidates.begin(), candidates.end(), q.algorithm) == candidates.end()) {
    throw ConfigError(fmt::format("algorithm '{}' is not available for {} on these {} GPUs; "
                                  "expected one of: auto, {}",
                                  to_string(q.algorithm), to_string(q.op), g.ranks().size(),
                                  join_algorithms(candidates)));
  }
  const NcclLists& lists = g.options().nccl_lists;
  Choice best;
  double best_time = std::numeric_limits<double>::infinity();
  std::string last_reason;
  for (Algorithm a : candidates) {
    if (q.algorithm != Algorithm::kAuto && a != q.algorithm) continue;
    for (Protocol p : kProtocols) {
      if (q.protocol != Protocol::kAuto && p != q.protocol) continue;
      if (!lists.allows(q.op, a) || !lists.allows(q.op, p)) {
        CostModel off;
        off.why_not = fmt::format("left out by {}", lists.restriction(q.op));
        if (tried != nullptr) tried->push_back({a, p, std::move(off), {}});
        continue;
      }
      CostModel m = cost_model(g, q.op, a, p, q.size_bytes);
      const NcclEstimate e = nccl_estimate(g, q.op, a, p, m);
      if (tried != nullptr) tried->push_back({a, p, m, e});
      if (!m.eligible || !e.enabled) {
        if (m.eligible) last_reason = "NCCL's tuner gives it no bandwidth here";
        else last_reason = std::move(m.why_not);  // m is not kept
        continue;
      }
      const double t = e.time_s(q.size_bytes);
      if (t < best_time) {
        best_time = t;
        best = {a, p, m, e};
      }
    }
  }
  if (best_time == std::numeric_limits<double>::infinity()) {
    if (const std::string restriction = lists.restriction(q.op); !restriction.empty()) {
      throw ConfigError(fmt::format("{} left {} no algorithm and protocol linksim can run on "
                                    "these {} GPUs (NCCL: \"no algorithm/protocol available\"){}",
                                    restriction, to_string(q.op), g.ranks().size(),
                                    last_reason.empty() ? "" : "; of those it allows: " +
                                                                   last_reason));
    }
    throw ConfigError(fmt::format("protocol '{}' cannot be used with algorithm '{}' here: {}",
                                  to_string(q.protocol), to_string(q.algorithm), last_reason));
  }
  return best;
}

}  // namespace linksim::detail
