// SPDX-License-Identifier: Apache-2.0
#include "serve/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace linksim::serve_detail {

double WorkloadRandom::unit() {
  // The top 53 bits of one draw, scaled into [0, 1).
  return double(engine_() >> 11) * 0x1.0p-53;
}

double WorkloadRandom::exponential(double rate) { return -std::log1p(-unit()) / rate; }

double WorkloadRandom::standard_normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double u1 = 1 - unit();  // (0, 1]: the logarithm stays finite
  const double u2 = unit();
  const double radius = std::sqrt(-2 * std::log(u1));
  const double angle = 2 * std::numbers::pi * u2;
  spare_ = radius * std::sin(angle);
  has_spare_ = true;
  return radius * std::cos(angle);
}

int WorkloadRandom::length(const LengthDistribution& d, int max_tokens) {
  double x = d.a;
  switch (d.kind) {
    case LengthDistribution::Kind::kFixed: break;
    case LengthDistribution::Kind::kUniform:
      x = d.a + std::floor(unit() * (d.b - d.a + 1));
      break;
    case LengthDistribution::Kind::kNormal: x = d.a + d.b * standard_normal(); break;
    case LengthDistribution::Kind::kLognormal: x = std::exp(d.a + d.b * standard_normal()); break;
  }
  return int(std::clamp(std::round(x), 1.0, double(max_tokens)));
}

}  // namespace linksim::serve_detail
