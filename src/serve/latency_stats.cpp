// SPDX-License-Identifier: Apache-2.0
#include "serve/latency_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace linksim::serve_detail {
namespace {

constexpr double kGapFloor_s = 1e-6;
constexpr double kGapBinRatio = 1.001;
constexpr int kGapBins = 23100;  // up to 1e-6 x 1.001^23100 ~ 1e4 s

double order_statistic(std::vector<double>& v, double q) {
  // Linear interpolation between the two order statistics around rank q (n - 1).
  const double rank = q * double(v.size() - 1);
  const size_t lo = size_t(std::floor(rank));
  const size_t hi = std::min(v.size() - 1, lo + 1);
  std::nth_element(v.begin(), v.begin() + long(lo), v.end());
  const double a = v[lo];
  if (hi == lo) return a;
  const double b = *std::min_element(v.begin() + long(lo) + 1, v.end());
  return a + (rank - double(lo)) * (b - a);
}

}  // namespace

LatencyStats latency_stats(std::vector<double>& values) {
  LatencyStats s;
  if (values.empty()) return s;
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
  s.p50 = order_statistic(values, 0.50);
  s.p90 = order_statistic(values, 0.90);
  s.p99 = order_statistic(values, 0.99);
  return s;
}

GapHistogram::GapHistogram() : bins_(kGapBins, 0) {}

void GapHistogram::add(double gap_s) {
  ++count_;
  sum_ += gap_s;
  // Most gaps of one iteration are equal (the sequences that decoded in the last one too):
  // the logarithm is taken once for them.
  if (gap_s == last_gap_s_) {
    ++bins_[last_bin_];
    return;
  }
  last_gap_s_ = gap_s;
  const double x = std::max(gap_s, kGapFloor_s);
  const int bin = int(std::log(x / kGapFloor_s) / std::log(kGapBinRatio));
  last_bin_ = size_t(std::clamp(bin, 0, kGapBins - 1));
  ++bins_[last_bin_];
}

double GapHistogram::quantile(double q) const {
  const double target = q * double(count_ - 1);
  long seen = 0;
  for (size_t i = 0; i < bins_.size(); ++i) {
    seen += bins_[i];
    if (double(seen) > target) {
      // The bin's geometric middle.
      return kGapFloor_s * std::pow(kGapBinRatio, double(i) + 0.5);
    }
  }
  return 0;
}

LatencyStats GapHistogram::stats() const {
  LatencyStats s;
  if (count_ == 0) return s;
  s.mean = sum_ / double(count_);
  s.p50 = quantile(0.50);
  s.p90 = quantile(0.90);
  s.p99 = quantile(0.99);
  return s;
}

}  // namespace linksim::serve_detail
