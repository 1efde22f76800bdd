// SPDX-License-Identifier: Apache-2.0
// Axis layout shared by the charts: value range, value -> pixel mapping, ticks, labels.
#pragma once

#include <string>
#include <vector>

#include "charts/charts.hpp"

namespace linksim::detail {

/// An axis placed on the page: maps values in [lo, hi] to pixels in [pixel_lo, pixel_hi]
/// (pixel_hi < pixel_lo for a vertical axis, whose values grow upwards).
struct AxisLayout {
  AxisScale scale = AxisScale::kLinear;
  AxisUnit unit = AxisUnit::kNumber;
  double lo = 0;
  double hi = 1;
  double pixel_lo = 0;
  double pixel_hi = 1;
  double seconds_unit = 1;    ///< kSeconds: 1, 1e-3, 1e-6 or 1e-9
  std::vector<double> ticks;
  std::string title;          ///< with its unit: "busbw (GB/s)"

  double map(double value) const;
  std::string tick_label(double value) const { return format_tick(value, unit, seconds_unit); }
  /// The value with more precision and its unit, for tooltips: "1 MiB", "371.52 GB/s".
  std::string value_text(double value) const;
};

/// The range of an axis holding values in [data_lo, data_hi], widened by axis.min/max.
/// Linear axes start at 0 (or below, for negative data) and end on a tick; log-10 axes widen
/// to the nearest 1-2-5 values (0.07 .. 480 becomes 0.05 .. 500, both labelled); log-2 axes
/// keep the data range. The pixel range is set later by the chart (place_axis).
AxisLayout make_axis(const Axis& axis, double data_lo, double data_hi);

/// Sets the pixel range of `layout`, keeping `inset_px` free at both ends of a log axis.
void place_axis(AxisLayout& layout, double pixel_lo, double pixel_hi, double inset_px);

/// Width in pixels of the widest tick label at `font_px`.
double widest_tick_label_px(const AxisLayout& layout, double font_px);

/// Shortest decimal text of `value` with `significant` digits, never in exponent form and
/// without trailing zeros: 512, 1.5, 0.001, 12345.
std::string short_number(double value, int significant = 3);

}  // namespace linksim::detail
