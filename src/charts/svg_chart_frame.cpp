// SPDX-License-Identifier: Apache-2.0
// Root element, axes and legend shared by the line and bar charts.
#include "charts/svg_chart_frame.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "charts/svg_text.hpp"

namespace linksim::detail {
namespace {

constexpr size_t kMaxLegendChars = 32;
constexpr double kLegendRowPx = 20;

std::string shortened(const std::string& name) {
  if (name.size() <= kMaxLegendChars) return name;
  return name.substr(0, kMaxLegendChars - 3) + "...";
}

}  // namespace

std::string svg_open(int width_px, int height_px, const std::string& kind,
                     const std::string& title) {
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"linksim-chart {}\" width=\"{}\" "
      "height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" {}>\n",
      xml_escape(kind), width_px, height_px, width_px, height_px, kSvgFont);
  out += fmt::format("<title>{}</title>\n", xml_escape(title));
  out += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
                     width_px, height_px);
  out += fmt::format(
      "<text x=\"{}\" y=\"24\" font-size=\"{}\" font-weight=\"600\" fill=\"#1f2933\" "
      "text-anchor=\"middle\">{}</text>\n",
      px(width_px / 2.0), px(kTitleFontPx), xml_escape(title));
  return out;
}

std::string svg_axes(const PlotArea& area, const AxisLayout* x, const AxisLayout& y) {
  std::string out = "<g class=\"axes\" font-size=\"" + px(kTickFontPx) + "\" fill=\"#3e4c59\">\n";
  for (double tick : y.ticks) {
    const std::string py = px(y.map(tick));
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e4e7eb\" stroke-width=\"1\"/>\n",
        px(area.left), py, px(area.right), py);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dy=\"0.35em\">{}</text>\n",
                       px(area.left - 6), py, xml_escape(y.tick_label(tick)));
  }
  if (x != nullptr) {
    for (double tick : x->ticks) {
      const std::string px_x = px(x->map(tick));
      out += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e4e7eb\" "
          "stroke-width=\"1\"/>\n",
          px_x, px(area.top), px_x, px(area.bottom));
      out += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#52606d\" "
          "stroke-width=\"1\"/>\n",
          px_x, px(area.bottom), px_x, px(area.bottom + 4));
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px_x,
                         px(area.bottom + 17), xml_escape(x->tick_label(tick)));
    }
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"{}\" fill=\"#1f2933\">{}"
        "</text>\n",
        px((area.left + area.right) / 2), px(area.bottom + 38), px(kAxisTitleFontPx),
        xml_escape(x->title));
  }
  out += fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#52606d\" stroke-width=\"1\"/>\n",
      px(area.left), px(area.top), px(area.bottom));
  out += fmt::format(
      "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#52606d\" stroke-width=\"1\"/>\n",
      px(area.left), px(area.right), px(area.bottom));
  const double title_x = 18;
  const double title_y = (area.top + area.bottom) / 2;
  out += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" transform=\"rotate(-90 {0} {1})\" text-anchor=\"middle\" "
      "font-size=\"{2}\" fill=\"#1f2933\">{3}</text>\n",
      px(title_x), px(title_y), px(kAxisTitleFontPx), xml_escape(y.title));
  out += "</g>\n";
  return out;
}

double legend_width_px(const std::vector<LegendEntry>& entries) {
  double widest = 0;
  for (const LegendEntry& entry : entries) {
    widest = std::max(widest, text_width_px(shortened(entry.name), kLegendFontPx));
  }
  return widest + 34;
}

std::string svg_legend(const std::vector<LegendEntry>& entries, double left, double top) {
  std::string out = "<g class=\"legend\" font-size=\"" + px(kLegendFontPx) + "\" fill=\"#1f2933\">\n";
  for (size_t i = 0; i < entries.size(); ++i) {
    const LegendEntry& entry = entries[i];
    const double y = top + double(i) * kLegendRowPx;
    out += "<g>";
    out += fmt::format("<title>{}</title>", xml_escape(entry.name));
    if (entry.swatch) {
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"12\" fill=\"{}\"/>",
                         px(left + 4), px(y - 6), entry.colour);
    } else {
      out += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{}/>",
          px(left), px(y), px(left + 22), px(y), entry.colour,
          entry.dashed ? " stroke-dasharray=\"6 4\"" : "");
      if (!entry.dashed) {
        out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"/>", px(left + 11),
                           px(y), entry.colour);
      }
    }
    out += fmt::format("<text x=\"{}\" y=\"{}\" dy=\"0.35em\">{}</text></g>\n", px(left + 28),
                       px(y), xml_escape(shortened(entry.name)));
  }
  out += "</g>\n";
  return out;
}

}  // namespace linksim::detail
