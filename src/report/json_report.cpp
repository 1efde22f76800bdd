// SPDX-License-Identifier: Apache-2.0
// The JSON rendering of a CollectiveReport (field names are a contract: docs/cli.md).
#include <fmt/core.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "linksim/report.hpp"
#include "linksim/units.hpp"

namespace linksim {
namespace {

// Byte and element counts are integers in every real run; writing them as JSON integers
// keeps "33554432" from turning into "33554432.0" for notebook users.
nlohmann::json count_value(double value) {
  constexpr double kLargestExactInteger = 9007199254740992.0;  // 2^53
  if (std::isfinite(value) && value >= 0 && value <= kLargestExactInteger &&
      std::floor(value) == value) {
    return static_cast<std::uint64_t>(value);
  }
  return value;
}

// Unit conversion leaves binary noise (25.5e-6 s / 1e-6 = 25.499999999999996 us); ten
// significant digits are far beyond any model's accuracy and print as people wrote them.
double round_to_10_digits(double value) {
  if (!std::isfinite(value)) return value;
  return std::stod(fmt::format("{:.10g}", value));
}

nlohmann::json row_json(const CollectiveRow& row) {
  return nlohmann::json{
      {"size_bytes", count_value(row.size_bytes)},
      {"count", count_value(row.count)},
      {"type", row.type},
      {"redop", row.redop},
      {"root", row.root},
      {"time_us", round_to_10_digits(row.time_s / kMicrosecond)},
      {"algbw_GBps", round_to_10_digits(row.algbw_Bps / kGB)},
      {"busbw_GBps", round_to_10_digits(row.busbw_Bps / kGB)},
      {"algorithm", row.algorithm},
      {"protocol", row.protocol},
      {"bottleneck", row.bottleneck},
  };
}

}  // namespace

std::string render_json(const CollectiveReport& report) {
  nlohmann::json results = nlohmann::json::array();
  for (const CollectiveRow& row : report.rows) results.push_back(row_json(row));
  const nlohmann::json document{
      {"topology", report.topology}, {"collective", report.collective},
      {"ranks", report.ranks},       {"mode", report.mode},
      {"notes", report.notes},       {"results", std::move(results)},
  };
  return document.dump(2) + "\n";
}

}  // namespace linksim
