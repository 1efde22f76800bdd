// SPDX-License-Identifier: Apache-2.0
// NCCL's tuner (NCCL src/graph/tuning.cc, ncclTopoGetAlgoTime): the least predicted time.
#include "collectives/tuner.hpp"

#include <fmt/core.h>

#include <algorithm>
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

Choice choose(const CommGraph& g, const CollectiveQuery& q,
              std::vector<TunerCandidate>* considered) {
  const auto candidates = candidate_algorithms(g, q.op);
  if (q.algorithm != Algorithm::kAuto &&
      std::find(candidates.begin(), candidates.end(), q.algorithm) == candidates.end()) {
    throw ConfigError(fmt::format(
        "algorithm '{}' is not available for {} on these {} GPUs; "
        "expected one of: auto, {}",
        to_string(q.algorithm), to_string(q.op), g.ranks().size(), join_algorithms(candidates)));
  }
  Choice best;
  double best_time = std::numeric_limits<double>::infinity();
  size_t best_index = 0;
  std::string last_reason;
  for (Algorithm a : candidates) {
    if (q.algorithm != Algorithm::kAuto && a != q.algorithm) continue;
    for (Protocol p : kProtocols) {
      if (q.protocol != Protocol::kAuto && p != q.protocol) continue;
      CostModel m = cost_model(g, q.op, a, p, q.size_bytes);
      if (considered != nullptr) {
        TunerCandidate c{a, p, m.eligible, m.why_not};
        if (m.eligible) {
          c.latency_s = m.latency_s;
          c.fill_s = m.fill_s;
          c.wire_factor = m.wire_factor;
          c.bw_Bps = m.bw_Bps;
          c.time_s = m.time_s(q.size_bytes);
        }
        considered->push_back(std::move(c));
      }
      if (!m.eligible) {
        last_reason = m.why_not;
        continue;
      }
      const double t = m.time_s(q.size_bytes);
      if (t < best_time) {
        best_time = t;
        best = {a, p, m};
        if (considered != nullptr) best_index = considered->size() - 1;
      }
    }
  }
  if (best_time == std::numeric_limits<double>::infinity()) {
    throw ConfigError(fmt::format("protocol '{}' cannot be used with algorithm '{}' here: {}",
                                  to_string(q.protocol), to_string(q.algorithm), last_reason));
  }
  if (considered != nullptr) (*considered)[best_index].chosen = true;
  return best;
}

}  // namespace linksim::detail
