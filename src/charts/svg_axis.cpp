// SPDX-License-Identifier: Apache-2.0
// Axis ranges, ticks and labels for the SVG charts (docs/reports.md#axes).
#include "charts/svg_axis.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "linksim/units.hpp"
#include "charts/svg_text.hpp"

namespace linksim {
namespace {

constexpr size_t kMaxLinearTicks = 10;
constexpr size_t kMaxLogTicks = 12;

// Removes a trailing fractional part made only of zeros: "1.50" -> "1.5", "2.00" -> "2".
std::string trim_zeros(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

std::vector<double> linear_ticks(double lo, double hi) {
  if (!(hi > lo)) return {lo};
  const double magnitude = std::pow(10.0, std::floor(std::log10((hi - lo) / 8)));
  double step = magnitude;
  for (double factor : {1.0, 2.0, 5.0, 10.0, 20.0}) {
    step = factor * magnitude;
    if ((hi - lo) / step <= double(kMaxLinearTicks) - 1) break;
  }
  std::vector<double> ticks;
  // Multiples of the step (k * step, not repeated addition, so 0.3 stays 0.3).
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi * (1 + 1e-12) + 1e-300; ++k) {
    const double tick = k * step;
    ticks.push_back(std::abs(tick) < step * 1e-9 ? 0.0 : tick);
  }
  return ticks;
}

std::vector<double> log10_ticks(double lo, double hi) {
  const int first = int(std::floor(std::log10(lo) + 1e-12));
  const int last = int(std::ceil(std::log10(hi) - 1e-12));
  const auto collect = [&](std::initializer_list<double> mantissas, int every) {
    std::vector<double> ticks;
    for (int decade = first; decade <= last; ++decade) {
      if (decade % every != 0) continue;
      for (double m : mantissas) {
        const double tick = m * std::pow(10.0, decade);
        if (tick >= lo * (1 - 1e-12) && tick <= hi * (1 + 1e-12)) ticks.push_back(tick);
      }
    }
    return ticks;
  };
  std::vector<double> ticks = collect({1, 2, 5}, 1);
  if (ticks.size() <= kMaxLogTicks) return ticks;
  for (int every : {1, 2, 5, 10, 20, 50}) {
    ticks = collect({1}, every);
    if (ticks.size() <= kMaxLogTicks) return ticks;
  }
  return ticks;
}

std::vector<double> log2_ticks(double lo, double hi) {
  const int first = int(std::ceil(std::log2(lo) - 1e-12));
  const int last = int(std::floor(std::log2(hi) + 1e-12));
  std::vector<double> ticks;
  for (int step : {1, 2, 5, 10, 20, 50, 100}) {
    ticks.clear();
    for (int e = first; e <= last; ++e) {
      if (e % step == 0) ticks.push_back(std::ldexp(1.0, e));
    }
    if (ticks.size() <= kMaxLogTicks) break;
  }
  return ticks;
}

// The nearest value of the 1-2-5 sequence at or below (at or above) a positive value, so a
// log-10 axis begins and ends on a labelled tick.
double floor_125(double value) {
  const double decade = std::pow(10.0, std::floor(std::log10(value)));
  for (double m : {5.0, 2.0, 1.0}) {
    if (m * decade <= value * (1 + 1e-12)) return m * decade;
  }
  return decade;
}

double ceil_125(double value) {
  const double decade = std::pow(10.0, std::floor(std::log10(value)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * decade >= value * (1 - 1e-12)) return m * decade;
  }
  return 10 * decade;
}

// On a crowded log-10 axis the ticks are decades only; the 1-2-5 ends of the range are
// labelled too when they are at least a quarter decade from the nearest tick.
void label_log_ends(std::vector<double>& ticks, double lo, double hi) {
  constexpr double kMinGapDecades = 0.25;
  if (ticks.empty()) return;
  if (std::log10(ticks.front() / lo) >= kMinGapDecades) ticks.insert(ticks.begin(), lo);
  if (std::log10(hi / ticks.back()) >= kMinGapDecades) ticks.push_back(hi);
}

// One unit for a whole time axis, chosen from its largest value.
double seconds_unit_for(double largest_s) {
  if (largest_s >= 1) return 1;
  if (largest_s >= 1e-3) return 1e-3;
  if (largest_s >= 1e-6) return 1e-6;
  return 1e-9;
}

std::string_view seconds_unit_name(double unit) {
  if (unit == 1) return "s";
  if (unit == 1e-3) return "ms";
  if (unit == 1e-6) return "us";
  return "ns";
}

std::string title_with_unit(const std::string& title, AxisUnit unit, double seconds_unit) {
  switch (unit) {
    case AxisUnit::kGigabytes: return title + " (GB)";
    case AxisUnit::kBandwidth: return title + " (GB/s)";
    case AxisUnit::kSeconds: return fmt::format("{} ({})", title, seconds_unit_name(seconds_unit));
    case AxisUnit::kNumber:
    case AxisUnit::kBytes:
    case AxisUnit::kFraction: return title;
  }
  return title;
}

}  // namespace

std::vector<double> axis_ticks(AxisScale scale, double lo, double hi) {
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi)) {
    throw std::invalid_argument(fmt::format("axis_ticks: bad range [{}, {}]", lo, hi));
  }
  if (scale != AxisScale::kLinear && !(lo > 0)) {
    throw std::invalid_argument(fmt::format("axis_ticks: log range must be > 0, got {}", lo));
  }
  switch (scale) {
    case AxisScale::kLinear: return linear_ticks(lo, hi);
    case AxisScale::kLog10: return log10_ticks(lo, hi);
    case AxisScale::kLog2: return log2_ticks(lo, hi);
  }
  return {};
}

std::string format_tick(double value, AxisUnit unit, double seconds_unit) {
  using detail::short_number;
  const auto with_suffix = [](double v, double base) {
    const double a = std::abs(v);
    if (a >= base * base * base) return short_number(v / (base * base * base)) + "G";
    if (a >= base * base) return short_number(v / (base * base)) + "M";
    if (a >= base) return short_number(v / base) + "K";
    return short_number(v);
  };
  switch (unit) {
    case AxisUnit::kNumber: return with_suffix(value, 1000);
    case AxisUnit::kBytes: {
      if (std::abs(value) >= 1024.0 * 1024 * 1024 * 1024) {
        return short_number(value / (1024.0 * 1024 * 1024 * 1024)) + "T";
      }
      return with_suffix(value, 1024);
    }
    case AxisUnit::kGigabytes: return short_number(value / kGB);
    case AxisUnit::kBandwidth: return short_number(value / kGB);
    case AxisUnit::kSeconds: return short_number(value / seconds_unit);
    case AxisUnit::kFraction: return short_number(value * 100) + "%";
  }
  return short_number(value);
}

namespace detail {

std::string short_number(double value, int significant) {
  if (value == 0 || !std::isfinite(value)) return value == 0 ? "0" : fmt::format("{}", value);
  const int exponent = int(std::floor(std::log10(std::abs(value))));
  const int decimals = std::clamp(significant - 1 - exponent, 0, 9);
  std::string text = trim_zeros(fmt::format("{:.{}f}", value, decimals));
  return text == "-0" ? "0" : text;
}

double AxisLayout::map(double value) const {
  const auto position = [this](double v) {
    return scale == AxisScale::kLinear ? v : std::log(v);
  };
  const double from = position(lo);
  const double to = position(hi);
  const double t = to > from ? (position(value) - from) / (to - from) : 0.5;
  return pixel_lo + t * (pixel_hi - pixel_lo);
}

std::string AxisLayout::value_text(double value) const {
  switch (unit) {
    case AxisUnit::kNumber: return short_number(value, 4);
    case AxisUnit::kBytes: return format_size(value);
    case AxisUnit::kGigabytes: return short_number(value / kGB, 4) + " GB";
    case AxisUnit::kBandwidth: return short_number(value / kGB, 5) + " GB/s";
    case AxisUnit::kSeconds: return format_duration(value);
    case AxisUnit::kFraction: return short_number(value * 100, 3) + "%";
  }
  return short_number(value, 4);
}

AxisLayout make_axis(const Axis& axis, double data_lo, double data_hi) {
  AxisLayout layout;
  layout.scale = axis.scale;
  layout.unit = axis.unit;
  double lo = std::min(data_lo, axis.min.value_or(data_lo));
  double hi = std::max(data_hi, axis.max.value_or(data_hi));
  if (axis.scale == AxisScale::kLinear) {
    if (!axis.min) lo = std::min(lo, 0.0);
    if (!(hi > lo)) hi = lo + 1;
    const std::vector<double> ticks = linear_ticks(lo, hi);
    const double step = ticks.size() >= 2 ? ticks[1] - ticks[0] : 1;
    if (!axis.max && ticks.back() < hi * (1 - 1e-12)) hi = ticks.back() + step;
    if (!axis.min && lo < 0 && ticks.front() > lo) lo = ticks.front() - step;
  } else {
    if (!(hi > lo)) {
      lo /= 2;
      hi *= 2;
    }
    if (axis.scale == AxisScale::kLog10) {
      if (!axis.min) lo = floor_125(lo);
      if (!axis.max) hi = ceil_125(hi);
    }
  }
  layout.lo = lo;
  layout.hi = hi;
  layout.ticks = axis_ticks(axis.scale, lo, hi);
  if (axis.scale == AxisScale::kLog10) label_log_ends(layout.ticks, lo, hi);
  if (layout.ticks.size() < 2 && axis.scale != AxisScale::kLinear) layout.ticks = {lo, hi};
  layout.seconds_unit = seconds_unit_for(std::max(std::abs(lo), std::abs(hi)));
  layout.title = title_with_unit(axis.title, axis.unit, layout.seconds_unit);
  return layout;
}

void place_axis(AxisLayout& layout, double pixel_lo, double pixel_hi, double inset_px) {
  const double inset = layout.scale == AxisScale::kLinear ? 0 : inset_px;
  const double direction = pixel_hi >= pixel_lo ? 1 : -1;
  layout.pixel_lo = pixel_lo + direction * inset;
  layout.pixel_hi = pixel_hi - direction * inset;
}

double widest_tick_label_px(const AxisLayout& layout, double font_px) {
  double widest = 0;
  for (double tick : layout.ticks) {
    widest = std::max(widest, text_width_px(layout.tick_label(tick), font_px));
  }
  return widest;
}

}  // namespace detail
}  // namespace linksim
