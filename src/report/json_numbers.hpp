// SPDX-License-Identifier: Apache-2.0
// Number conventions of the JSON renderings (docs/cli.md#json-output): byte and element
// counts as integers when integral, other values rounded to 10 significant digits, and
// absent optionals as null.
#pragma once

#include <cmath>
#include <cstdint>
#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace linksim::report_json {

/// An integer when `value` is a non-negative whole number representable exactly, else as is.
inline nlohmann::ordered_json count_value(double value) {
  constexpr double kLargestExactInteger = 9007199254740992.0;  // 2^53
  if (std::isfinite(value) && value >= 0 && value <= kLargestExactInteger &&
      std::floor(value) == value) {
    return static_cast<std::uint64_t>(value);
  }
  return value;
}

/// Ten significant digits: far beyond any model's accuracy, and free of binary noise.
/// Non-finite values (which JSON cannot hold) become null.
inline nlohmann::ordered_json rounded(double value) {
  if (!std::isfinite(value)) return nullptr;
  return std::stod(fmt::format("{:.10g}", value));
}

inline nlohmann::ordered_json rounded(const std::optional<double>& value) {
  return value ? rounded(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace linksim::report_json
