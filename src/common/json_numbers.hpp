// SPDX-License-Identifier: Apache-2.0
// Number conventions of every JSON rendering (docs/cli.md#json-output): byte and element
// counts as integers when integral, other values rounded to 10 significant digits, and
// absent optionals as null.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace linksim::json_numbers {

/// An integer when `value` is a non-negative whole number below 2^64, else as is.
inline nlohmann::ordered_json count_value(double value) {
  // Every double of 2^53 or more is a whole number; below 2^64 it converts to uint64_t
  // exactly, so the integer printed is the double's own value.
  constexpr double kTwoTo64 = 18446744073709551616.0;
  if (std::isfinite(value) && value >= 0 && value < kTwoTo64 && std::floor(value) == value) {
    return static_cast<std::uint64_t>(value);
  }
  return value;
}

/// Ten significant digits: far beyond any model's accuracy, and free of binary noise.
/// Non-finite values (which JSON cannot hold) become null.
inline nlohmann::ordered_json rounded(double value) {
  if (!std::isfinite(value)) return nullptr;
  const std::string text = fmt::format("{:.10g}", value);
  double rounded_value = value;
  std::from_chars(text.data(), text.data() + text.size(), rounded_value);
  return rounded_value;
}

inline nlohmann::ordered_json rounded(const std::optional<double>& value) {
  return value ? rounded(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace linksim::json_numbers
