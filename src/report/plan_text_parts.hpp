// SPDX-License-Identifier: Apache-2.0
// Small text pieces shared by the planner's renderings.
#pragma once

#include <fmt/core.h>
#include <string>

#include "linksim/plan_memory.hpp"

namespace linksim::report_text {

/// "tp=4 pp=2 dp=8 cp=1 ep=1", with " etp=N" when N > 1 and " vpp=N" when N > 1.
inline std::string layout_text(const ParallelLayout& layout) {
  std::string text = fmt::format("tp={} pp={} dp={} cp={} ep={}", layout.tp, layout.pp,
                                 layout.dp, layout.cp, layout.ep);
  if (layout.etp > 1) text += fmt::format(" etp={}", layout.etp);
  if (layout.vpp > 1) text += fmt::format(" vpp={}", layout.vpp);
  return text;
}

/// A fraction as a percentage: 0.0712 -> "7.1 %"; whole numbers from 10 % up: "31 %".
inline std::string percent_text(double fraction) {
  const double percent = fraction * 100;
  if (percent >= 10 || percent <= -10) return fmt::format("{:.0f} %", percent);
  return fmt::format("{:.1f} %", percent);
}

/// FLOP/s as TFLOP/s (1e12): "412.3 TFLOP/s".
inline std::string tflops_text(double flops) { return fmt::format("{:.1f} TFLOP/s", flops / 1e12); }

}  // namespace linksim::report_text
