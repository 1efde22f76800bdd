// SPDX-License-Identifier: Apache-2.0
// Rate sweeps and the highest rate meeting an SLO (docs/serving.md#max-rate).
#include <cmath>
#include <fmt/core.h>

#include "linksim/error.hpp"
#include "linksim/serve.hpp"

namespace linksim {
namespace {

constexpr double kMaxRateTolerance = 0.01;  // relative width of the final bracket
constexpr double kFirstProbe_per_s = 1;
constexpr double kHighestProbe_per_s = 1e6;

}  // namespace

std::vector<ServeResult> ServeSimulator::sweep(double from, double to, double step) {
  if (!(from > 0) || !(to >= from) || !(step > 0)) {
    throw ConfigError(fmt::format("rate sweep: expected 0 < from <= to and step > 0, got {:g}:{:g}:{:g}",
                                  from, to, step));
  }
  const long points = long(std::floor((to - from) / step + 1e-9)) + 1;
  std::vector<ServeResult> out;
  out.reserve(size_t(points));
  for (long i = 0; i < points; ++i) out.push_back(run_at_rate(from + double(i) * step));
  return out;
}

MaxRateResult ServeSimulator::max_rate() {
  if (!request().slo) throw ConfigError("max rate: expected an SLO (ttft and/or tpot), got none");
  MaxRateResult out;
  double lo = 0, hi = kFirstProbe_per_s;
  // Double until a rate misses the SLO, then bisect the bracket [lo, hi].
  while (hi <= kHighestProbe_per_s) {
    ServeResult r = run_at_rate(hi);
    ++out.probes;
    if (!r.slo_met) break;
    lo = hi;
    out.at = std::move(r);
    hi *= 2;
  }
  if (lo == 0) {
    // Even the first probe misses: bisect below it.
    hi = kFirstProbe_per_s;
  }
  while (hi - lo > kMaxRateTolerance * hi) {
    const double mid = lo > 0 ? 0.5 * (lo + hi) : hi / 2;
    ServeResult r = run_at_rate(mid);
    ++out.probes;
    if (r.slo_met) {
      lo = mid;
      out.at = std::move(r);
    } else {
      hi = mid;
    }
    if (lo == 0 && hi < 1e-4) break;  // nothing meets the SLO
  }
  out.rate_requests_per_s = lo;
  return out;
}

}  // namespace linksim
