// SPDX-License-Identifier: Apache-2.0
// Means and percentiles of the simulated latencies: exact over per-request values, and over a
// log-binned histogram for inter-token gaps (tens of millions of them in a long run).
#pragma once

#include <vector>

#include "linksim/serve.hpp"

namespace linksim::serve_detail {

/// Mean and p50/p90/p99 of `values` (linear interpolation between order statistics, as
/// numpy's default); zeros when empty. Reorders `values`.
LatencyStats latency_stats(std::vector<double>& values);

/// Gaps between tokens in bins 0.1 % wide from 1 us up: percentiles within 0.1 %, the mean
/// exact.
class GapHistogram {
 public:
  GapHistogram();
  void add(double gap_s);
  LatencyStats stats() const;

 private:
  double quantile(double q) const;
  std::vector<long> bins_;
  long count_ = 0;
  double sum_ = 0;
  double last_gap_s_ = -1;
  size_t last_bin_ = 0;
};

}  // namespace linksim::serve_detail
