// SPDX-License-Identifier: Apache-2.0
// svg_line_chart: named (x, y) series with tooltips, optional log axes and a dashed ideal
// line (docs/reports.md#line-charts).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "charts/charts.hpp"
#include "charts/svg_axis.hpp"
#include "charts/svg_chart_frame.hpp"
#include "charts/svg_text.hpp"

namespace linksim {
namespace {

using detail::AxisLayout;
using detail::px;
using detail::xml_escape;

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
};

void check_value(double value, const Axis& axis, const char* which, const ChartSeries& series,
                 size_t index) {
  const bool log = axis.scale != AxisScale::kLinear;
  if (std::isfinite(value) && (!log || value > 0)) return;
  throw std::invalid_argument(fmt::format(
      "svg_line_chart: series '{}' point {} has {} = {}; expected a finite value{}", series.name,
      index, which, value, log ? " > 0 on a log axis" : ""));
}

// Validates every point and returns the x and y ranges over all series.
std::pair<Range, Range> data_ranges(const LineChart& chart) {
  Range x, y;
  const auto visit = [&](const ChartSeries& series) {
    for (size_t i = 0; i < series.points.size(); ++i) {
      const ChartPoint& p = series.points[i];
      check_value(p.x, chart.x, "x", series, i);
      check_value(p.y, chart.y, "y", series, i);
      x.lo = std::min(x.lo, p.x);
      x.hi = std::max(x.hi, p.x);
      y.lo = std::min(y.lo, p.y);
      y.hi = std::max(y.hi, p.y);
      if (p.y_low && p.y_high) {
        check_value(*p.y_low, chart.y, "y_low", series, i);
        check_value(*p.y_high, chart.y, "y_high", series, i);
        y.lo = std::min(y.lo, *p.y_low);
        y.hi = std::max(y.hi, *p.y_high);
      }
    }
  };
  for (const ChartSeries& series : chart.series) visit(series);
  if (chart.ideal) visit(*chart.ideal);
  // No points at all: an empty frame over a unit range.
  const auto fallback = [](Range& r, const Axis& axis) {
    if (r.lo <= r.hi) return;
    r.lo = axis.scale == AxisScale::kLinear ? 0 : 1;
    r.hi = axis.scale == AxisScale::kLinear ? 1 : 10;
  };
  fallback(x, chart.x);
  fallback(y, chart.y);
  return {x, y};
}

std::string svg_series(const ChartSeries& series, const std::string& colour, bool dashed,
                       const AxisLayout& x, const AxisLayout& y) {
  std::string out = fmt::format("<g class=\"series\" data-series=\"{}\">\n", xml_escape(series.name));
  if (series.points.size() >= 2) {
    std::string points;
    for (const ChartPoint& p : series.points) {
      if (!points.empty()) points += ' ';
      points += px(x.map(p.x)) + "," + px(y.map(p.y));
    }
    out += fmt::format(
        "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" "
        "stroke-linejoin=\"round\"{}/>\n",
        points, colour, dashed ? "1.5" : "2.2", dashed ? " stroke-dasharray=\"6 4\"" : "");
  }
  // Error bands: a vertical whisker with short caps at each point that has one.
  for (const ChartPoint& p : series.points) {
    if (!p.y_low || !p.y_high) continue;
    const std::string cx = px(x.map(p.x)), left = px(x.map(p.x) - 3), right = px(x.map(p.x) + 3);
    const std::string lo = px(y.map(*p.y_low)), hi = px(y.map(*p.y_high));
    out += fmt::format(
        "<path class=\"band\" d=\"M{cx},{lo}V{hi}M{l},{lo}H{r}M{l},{hi}H{r}\" stroke=\"{c}\" "
        "stroke-width=\"1\" stroke-opacity=\"0.55\" fill=\"none\"><title>{n}: {t} from {a} to "
        "{b}</title></path>\n",
        fmt::arg("cx", cx), fmt::arg("lo", lo), fmt::arg("hi", hi), fmt::arg("l", left),
        fmt::arg("r", right), fmt::arg("c", colour), fmt::arg("n", xml_escape(series.name)),
        fmt::arg("t", xml_escape(y.title)), fmt::arg("a", xml_escape(y.value_text(*p.y_low))),
        fmt::arg("b", xml_escape(y.value_text(*p.y_high))));
  }
  for (const ChartPoint& p : series.points) {
    out += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"1\">"
        "<title>{}: {} = {}, {} = {}</title></circle>\n",
        px(x.map(p.x)), px(y.map(p.y)), dashed ? "2.5" : "3.5", colour,
        xml_escape(series.name), xml_escape(x.title), xml_escape(x.value_text(p.x)),
        xml_escape(y.title), xml_escape(y.value_text(p.y)));
  }
  out += "</g>\n";
  return out;
}

}  // namespace

std::string svg_line_chart(const LineChart& chart) {
  const auto [x_range, y_range] = data_ranges(chart);
  AxisLayout x = detail::make_axis(chart.x, x_range.lo, x_range.hi);
  AxisLayout y = detail::make_axis(chart.y, y_range.lo, y_range.hi);

  std::vector<detail::LegendEntry> legend;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    legend.push_back({chart.series[i].name, std::string(detail::series_colour(i)), false, false});
  }
  if (chart.ideal) legend.push_back({chart.ideal->name, std::string(detail::kIdealColour), true});

  detail::PlotArea area;
  area.left = 40 + detail::widest_tick_label_px(y, detail::kTickFontPx);
  area.top = 44;
  area.bottom = chart.height_px - 52;
  area.right = chart.width_px - 16 - (legend.empty() ? 0 : detail::legend_width_px(legend));
  constexpr double kLogInsetPx = 10;
  detail::place_axis(x, area.left, area.right, kLogInsetPx);
  detail::place_axis(y, area.bottom, area.top, kLogInsetPx);

  std::string out = detail::svg_open(chart.width_px, chart.height_px, "line-chart", chart.title);
  out += detail::svg_axes(area, &x, y);
  if (chart.ideal) {
    out += svg_series(*chart.ideal, std::string(detail::kIdealColour), true, x, y);
  }
  for (size_t i = 0; i < chart.series.size(); ++i) {
    out += svg_series(chart.series[i], std::string(detail::series_colour(i)), false, x, y);
  }
  out += detail::svg_legend(legend, area.right + 16, area.top + 6);
  out += "</svg>\n";
  return out;
}

}  // namespace linksim
