// SPDX-License-Identifier: Apache-2.0
// Escaping, number formatting and colours for the SVG and HTML writers.
#include "charts/svg_text.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace linksim::detail {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string px(double value) {
  std::string text = fmt::format("{:.1f}", value);
  return text == "-0.0" ? "0.0" : text;
}

std::string_view series_colour(size_t index) {
  // Tableau 10 (Tableau Software's default categorical palette, 2016 revision).
  static constexpr std::array<std::string_view, 10> kPalette = {
      "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return kPalette[index % kPalette.size()];
}

std::string utilisation_colour(double utilisation) {
  // Stops of ColorBrewer's sequential YlOrRd (colorbrewer2.org), preceded by a neutral grey
  // for idle links so that a busy link stands out at a glance.
  struct Stop {
    double at;
    int r, g, b;
  };
  static constexpr std::array<Stop, 5> kStops = {{{0.0, 0xcf, 0xd4, 0xdb},
                                                  {0.25, 0xfe, 0xd9, 0x76},
                                                  {0.5, 0xfd, 0x8d, 0x3c},
                                                  {0.75, 0xe3, 0x1a, 0x1c},
                                                  {1.0, 0x80, 0x00, 0x26}}};
  const double u = std::isfinite(utilisation) ? std::clamp(utilisation, 0.0, 1.0) : 0.0;
  size_t i = 1;
  while (i + 1 < kStops.size() && u > kStops[i].at) ++i;
  const Stop& a = kStops[i - 1];
  const Stop& b = kStops[i];
  const double t = (u - a.at) / (b.at - a.at);
  const auto mix = [t](int from, int to) { return int(std::lround(from + (to - from) * t)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
}

double text_width_px(std::string_view text, double font_px) {
  return 0.6 * font_px * double(text.size());
}

}  // namespace linksim::detail
