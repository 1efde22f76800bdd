// SPDX-License-Identifier: Apache-2.0
// Small pieces shared by the SVG and HTML writers: escaping, fixed-precision numbers, the
// series palette, the utilisation colour scale and a text-width estimate for layout.
#pragma once

#include <string>
#include <string_view>

namespace linksim::detail {

/// Escapes & < > " ' for use in XML/HTML text and attribute values.
std::string xml_escape(std::string_view text);

/// A pixel coordinate with one decimal ("12.5"); -0 is written as "0".
std::string px(double value);

/// Colour of series i (Tableau 10, cycled): distinguishable and readable on white.
std::string_view series_colour(size_t index);

/// Colour of the dashed reference ("ideal") series.
inline constexpr std::string_view kIdealColour = "#555555";

/// Utilisation 0..1 (clamped) to a colour: grey when idle, then yellow, orange, red.
std::string utilisation_colour(double utilisation);

/// Approximate width in pixels of `text` in the report's sans-serif font at `font_px`:
/// 0.6 em per character, enough to keep labels from overlapping.
double text_width_px(std::string_view text, double font_px);

/// Common font settings for every chart's root <svg> element.
inline constexpr std::string_view kSvgFont =
    "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif\"";

}  // namespace linksim::detail
