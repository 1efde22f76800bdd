// SPDX-License-Identifier: Apache-2.0
// The parts every x-y chart draws the same way: the root element and title, grid lines,
// tick labels and axis titles, and a legend on the right.
#pragma once

#include <string>
#include <vector>

#include "charts/svg_axis.hpp"

namespace linksim::detail {

inline constexpr double kTitleFontPx = 15;
inline constexpr double kTickFontPx = 11;
inline constexpr double kAxisTitleFontPx = 12;
inline constexpr double kLegendFontPx = 12;

/// "<svg ...>" with a viewBox of width x height, the font, a white background and the title.
/// `kind` becomes the class "linksim-chart <kind>".
std::string svg_open(int width_px, int height_px, const std::string& kind,
                     const std::string& title);

/// Plot box: x from left to right pixel, y from top to bottom pixel.
struct PlotArea {
  double left = 0;
  double top = 0;
  double right = 0;
  double bottom = 0;
};

/// Horizontal grid lines and labels for the y ticks, vertical ones for the x ticks, the two
/// axis lines and both axis titles. `x` may be null for a category axis (bars).
std::string svg_axes(const PlotArea& area, const AxisLayout* x, const AxisLayout& y);

struct LegendEntry {
  std::string name;
  std::string colour;
  bool dashed = false;   ///< reference line
  bool swatch = false;   ///< a filled square (bars) instead of a line with a dot
};

/// Width the legend needs for these names (names longer than 32 characters are shortened).
double legend_width_px(const std::vector<LegendEntry>& entries);

/// The legend as a column starting at (left, top).
std::string svg_legend(const std::vector<LegendEntry>& entries, double left, double top);

}  // namespace linksim::detail
