// SPDX-License-Identifier: Apache-2.0
// svg_stacked_bars: one bar per label stacked from named segments, an optional capacity rule
// (docs/reports.md#stacked-bars).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "charts/charts.hpp"
#include "charts/svg_axis.hpp"
#include "charts/svg_chart_frame.hpp"
#include "charts/svg_text.hpp"

namespace linksim {
namespace {

using detail::px;
using detail::xml_escape;


void check_shape(const StackedBars& chart) {
  if (chart.values.size() != chart.bar_labels.size()) {
    throw std::invalid_argument(fmt::format("svg_stacked_bars: {} bar labels but {} rows of values",
                                            chart.bar_labels.size(), chart.values.size()));
  }
  for (size_t i = 0; i < chart.values.size(); ++i) {
    if (chart.values[i].size() != chart.segment_names.size()) {
      throw std::invalid_argument(fmt::format(
          "svg_stacked_bars: bar '{}' has {} values for {} segments", chart.bar_labels[i],
          chart.values[i].size(), chart.segment_names.size()));
    }
    for (size_t j = 0; j < chart.values[i].size(); ++j) {
      const double v = chart.values[i][j];
      if (std::isfinite(v) && v >= 0) continue;
      throw std::invalid_argument(fmt::format(
          "svg_stacked_bars: bar '{}' segment '{}' is {}; expected a finite value >= 0",
          chart.bar_labels[i], chart.segment_names[j], v));
    }
  }
  if (chart.capacity && !(std::isfinite(*chart.capacity) && *chart.capacity >= 0)) {
    throw std::invalid_argument(
        fmt::format("svg_stacked_bars: capacity is {}; expected a finite value >= 0",
                    *chart.capacity));
  }
}

constexpr std::string_view kCapacityColour = "#c81e1e";

std::string capacity_text(const StackedBars& chart, const detail::AxisLayout& y) {
  return (chart.capacity_label.empty() ? std::string("capacity") : chart.capacity_label) + " " +
         y.value_text(*chart.capacity);
}

// The capacity rule; its name is in the legend, its value in the tooltip.
std::string svg_capacity(const StackedBars& chart, const detail::AxisLayout& y,
                         const detail::PlotArea& area) {
  const std::string py = px(y.map(*chart.capacity));
  const std::string label = capacity_text(chart, y);
  std::string out = "<g class=\"capacity\">";
  out += fmt::format("<title>{}</title>", xml_escape(label));
  out += fmt::format(
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\" "
      "stroke-dasharray=\"6 4\"/></g>\n",
      px(area.left), py, px(area.right), py, kCapacityColour);
  return out;
}

}  // namespace

std::string svg_stacked_bars(const StackedBars& chart) {
  check_shape(chart);
  std::vector<double> totals;
  for (const auto& row : chart.values) totals.push_back(std::accumulate(row.begin(), row.end(), 0.0));
  double largest = totals.empty() ? 0 : *std::max_element(totals.begin(), totals.end());
  if (chart.capacity) largest = std::max(largest, *chart.capacity);
  Axis value_axis = chart.value_axis;
  value_axis.scale = AxisScale::kLinear;
  value_axis.min.reset();
  // Room above the tallest bar for its total label.
  detail::AxisLayout y = detail::make_axis(value_axis, 0, largest * 1.08);

  std::vector<detail::LegendEntry> legend;
  for (size_t j = 0; j < chart.segment_names.size(); ++j) {
    legend.push_back({chart.segment_names[j], std::string(detail::series_colour(j)), false, true});
  }
  if (chart.capacity) legend.push_back({capacity_text(chart, y), std::string(kCapacityColour), true});

  detail::PlotArea area;
  area.left = 40 + detail::widest_tick_label_px(y, detail::kTickFontPx);
  area.top = 44;
  area.right = chart.width_px - 16 - (legend.empty() ? 0 : detail::legend_width_px(legend));
  const size_t bars = chart.bar_labels.size();
  const double slot = bars == 0 ? 0 : (area.right - area.left) / double(bars);
  double widest_label = 0;
  for (const std::string& label : chart.bar_labels) {
    widest_label = std::max(widest_label, detail::text_width_px(label, detail::kTickFontPx));
  }
  // Labels wider than their slot are turned by 30 degrees; the plot gives up height for them.
  const bool turned = widest_label > slot - 6;
  const double label_room = turned ? std::min(widest_label * 0.5, 120.0) + 20 : 24;
  area.bottom = chart.height_px - 8 - label_room;
  detail::place_axis(y, area.bottom, area.top, 0);

  std::string out = detail::svg_open(chart.width_px, chart.height_px, "stacked-bars", chart.title);
  out += detail::svg_axes(area, nullptr, y);
  const double bar_width = std::min(slot * 0.62, 90.0);
  for (size_t i = 0; i < bars; ++i) {
    const double centre = area.left + slot * (double(i) + 0.5);
    const double x = centre - bar_width / 2;
    out += fmt::format("<g class=\"bar\" data-bar=\"{}\">\n", xml_escape(chart.bar_labels[i]));
    double base = 0;
    for (size_t j = 0; j < chart.segment_names.size(); ++j) {
      const double value = chart.values[i][j];
      const double top = y.map(base + value);
      const double share = totals[i] > 0 ? value / totals[i] : 0;
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
          "<title>{}: {} {} ({}% of {})</title></rect>\n",
          px(x), px(top), px(bar_width), px(y.map(base) - top), detail::series_colour(j),
          xml_escape(chart.bar_labels[i]), xml_escape(chart.segment_names[j]),
          xml_escape(y.value_text(value)), detail::short_number(share * 100, 3),
          xml_escape(y.value_text(totals[i])));
      base += value;
    }
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\" fill=\"#1f2933\" "
        "stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">{}</text>\n",
        px(centre), px(y.map(totals[i]) - 5), xml_escape(y.value_text(totals[i])));
    const double label_y = area.bottom + 16;
    if (turned) {
      out += fmt::format(
          "<text x=\"{0}\" y=\"{1}\" transform=\"rotate(-30 {0} {1})\" text-anchor=\"end\" "
          "font-size=\"11\" fill=\"#3e4c59\">{2}</text>\n",
          px(centre + 4), px(label_y - 4), xml_escape(chart.bar_labels[i]));
    } else {
      out += fmt::format(
          "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\" fill=\"#3e4c59\">{}"
          "</text>\n",
          px(centre), px(label_y), xml_escape(chart.bar_labels[i]));
    }
    out += "</g>\n";
  }
  if (chart.capacity) out += svg_capacity(chart, y, area);
  out += detail::svg_legend(legend, area.right + 16, area.top + 6);
  out += "</svg>\n";
  return out;
}

}  // namespace linksim
