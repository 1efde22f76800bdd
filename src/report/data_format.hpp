// SPDX-License-Identifier: Apache-2.0
// Number and field formatting shared by the data renderings (JSON, CSV).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace linksim::report_data {

/// RFC 4180: quotes a field holding a comma, a quote or a line break; doubles inner quotes.
/// A text field a spreadsheet would run as a formula (first character =, +, -, @, tab or
/// carriage return: names come from user files) is quoted and begins with a ' that makes it
/// text (OWASP, "CSV Injection"). Numbers are never written through this function.
inline std::string csv_field(std::string_view text) {
  const bool formula =
      !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos;
  if (!formula && text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
  std::string quoted = formula ? "\"'" : "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

/// Unit conversion leaves binary noise (25.5e-6 s / 1e-6 = 25.499999999999996 us); ten
/// significant digits are far beyond any model's accuracy and print as people wrote them.
inline double round_to_10_digits(double value) {
  if (!std::isfinite(value)) return value;
  const std::string text = fmt::format("{:.10g}", value);
  double rounded_value = value;
  std::from_chars(text.data(), text.data() + text.size(), rounded_value);
  return rounded_value;
}

/// Byte and element counts are integers in every real run; writing them as JSON integers
/// keeps "33554432" from turning into "33554432.0" for notebook users.
template <typename Json = nlohmann::json>
Json count_value(double value) {
  // Every double of 2^53 or more is a whole number; below 2^64 it converts to uint64_t
  // exactly, so the integer printed is the double's own value.
  constexpr double kTwoTo64 = 18446744073709551616.0;
  if (std::isfinite(value) && value >= 0 && value < kTwoTo64 && std::floor(value) == value) {
    return static_cast<std::uint64_t>(value);
  }
  return value;
}

}  // namespace linksim::report_data
