// SPDX-License-Identifier: Apache-2.0
// Random draws for the workload: std::mt19937_64 and our own transforms (inverse CDF,
// Box-Muller), so a seed gives the same requests with any standard library.
#pragma once

#include <cstdint>
#include <random>

#include "linksim/serve.hpp"

namespace linksim::serve_detail {

class WorkloadRandom {
 public:
  explicit WorkloadRandom(std::uint64_t seed) : engine_(seed) {}
  /// Uniform in [0, 1) with 53 random bits.
  double unit();
  /// Exponential with the given rate (mean 1 / rate).
  double exponential(double rate);
  /// Standard normal (Box-Muller; the second value of each pair is kept for the next call).
  double standard_normal();
  /// A length drawn from `d`, rounded to whole tokens and clamped to [1, max_tokens].
  int length(const LengthDistribution& d, int max_tokens);

 private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0;
};

}  // namespace linksim::serve_detail
