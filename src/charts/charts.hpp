// SPDX-License-Identifier: Apache-2.0
// The chart kit of the renderers: axes with ticks and unit labels, line charts and stacked
// bars as SVG text (docs/reports.md). Internal to src/report/, not public API. Rendering
// only: the callers pass computed values; these functions lay them out, scale them and write
// text. Deterministic (the same input gives the same bytes) and stateless (thread-safe).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace linksim {

/// How an axis maps values to pixels.
enum class AxisScale {
  kLinear,
  kLog10,  ///< ticks 1-2-5 per decade (fewer when the range is wide)
  kLog2,   ///< ticks at powers of two (every 1st, 2nd, 5th, ... exponent)
};

/// What an axis' values are, which decides the tick labels and the unit in the axis title.
/// Values are always SI (bytes, bytes/s, seconds); only the labels convert.
enum class AxisUnit {
  kNumber,     ///< plain; 1.5K, 2M, 3G (decimal) from 1000 up: GPUs, tokens/s, speedup
  kBytes,      ///< message sizes: 1K, 64K, 1M, 1G in powers of 1024 (nccl-tests' convention)
  kGigabytes,  ///< memory: bytes shown in GB (1e9), "(GB)" appended to the title
  kBandwidth,  ///< bytes/s shown in GB/s (1e9), "(GB/s)" appended to the title
  kSeconds,    ///< one unit for the whole axis (s, ms, us or ns), appended to the title
  kFraction,   ///< 0..1 shown as percent, "(%)" appended to the title
};

struct Axis {
  std::string title;                 ///< "message size", "busbw"; the unit is appended
  AxisScale scale = AxisScale::kLinear;
  AxisUnit unit = AxisUnit::kNumber;
  std::optional<double> min;         ///< forces the range; default: from the data
  std::optional<double> max;         ///< (linear axes include 0 unless min is given)
};

struct ChartPoint {
  double x = 0;
  double y = 0;
  /// A range around y drawn as a whisker (a prediction's error band); none when unset.
  /// REQUIRES: y_low <= y <= y_high when set.
  std::optional<double> y_low = std::nullopt;
  std::optional<double> y_high = std::nullopt;
};

struct ChartSeries {
  std::string name;                  ///< legend and tooltip text (escaped on output)
  std::vector<ChartPoint> points;    ///< drawn in this order, joined by a line
};

/// Several named series of (x, y) points: busbw against message size, step time or speedup
/// against GPU count. `ideal`, when set, is drawn as a dashed grey line with its own legend
/// entry (its points carry tooltips too).
struct LineChart {
  std::string title;
  Axis x;
  Axis y;
  std::vector<ChartSeries> series;
  std::optional<ChartSeries> ideal;
  int width_px = 880;
  int height_px = 420;
};

/// One bar per label, stacked from segments. values[i][j] = bar i, segment j, in the value
/// axis' unit; REQUIRES values[i].size() == segment_names.size() and every value >= 0.
struct StackedBars {
  std::string title;
  Axis value_axis;                   ///< linear; its min is 0
  std::vector<std::string> bar_labels;
  std::vector<std::string> segment_names;
  std::vector<std::vector<double>> values;
  std::optional<double> capacity;    ///< a dashed red horizontal rule (memory capacity)
  std::string capacity_label;        ///< legend text, "H100 capacity"; the value is appended
  int width_px = 880;
  int height_px = 420;
};

/// The line chart as one <svg> element. Every point is a circle with a <title> tooltip
/// "series: x, y" in the axes' units. Throws std::invalid_argument when a value is not
/// finite or is <= 0 on a log axis, naming the series and the point.
std::string svg_line_chart(const LineChart& chart);

/// The stacked bars as one <svg>: a <title> tooltip on every segment ("bar: segment value
/// (share of the bar)") and the total above each bar. Throws std::invalid_argument on a
/// shape mismatch or a negative or non-finite value.
std::string svg_stacked_bars(const StackedBars& chart);

/// The tick values of an axis over [lo, hi] (exposed for tests). Linear: multiples of a 1-2-5
/// step, 4 to 10 ticks. Log10: 1, 2, 5 per decade, or 1 per decade (every 2nd, 5th, ...
/// decade on wide ranges). Log2: powers of two whose exponent is a multiple of the smallest
/// step in {1, 2, 5, 10, 20} that gives at most 12 ticks. REQUIRES lo <= hi (lo > 0 on log).
std::vector<double> axis_ticks(AxisScale scale, double lo, double hi);

/// The tick label of `value` on an axis of `unit` ("1K", "512M", "450", "20%"). For kSeconds
/// the value is shown in `seconds_unit` (1e-3 for ms, ...).
std::string format_tick(double value, AxisUnit unit, double seconds_unit = 1);

}  // namespace linksim
