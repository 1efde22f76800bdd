// SPDX-License-Identifier: Apache-2.0
// The JSON rendering of a CollectiveReport (field names are a contract: docs/cli.md).
#include <fmt/core.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "linksim/report.hpp"
#include "linksim/units.hpp"
#include "report/data_format.hpp"

namespace linksim {
namespace {

using report_data::count_value;
using report_data::round_to_10_digits;

nlohmann::json row_json(const CollectiveRow& row) {
  nlohmann::json json{
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
  if (!row.confidence.empty()) {
    json["time_low_us"] = round_to_10_digits(row.time_low_s / kMicrosecond);
    json["time_high_us"] = round_to_10_digits(row.time_high_s / kMicrosecond);
    json["confidence"] = row.confidence;
  }
  return json;
}

}  // namespace

std::string render_json(const CollectiveReport& report) {
  nlohmann::json results = nlohmann::json::array();
  for (const CollectiveRow& row : report.rows) results.push_back(row_json(row));
  const nlohmann::json document{
      {"topology", report.topology}, {"collective", report.collective},
      {"ranks", report.ranks},       {"mode", report.mode},
      {"nccl_version", report.nccl_version.empty() ? nlohmann::json(nullptr)
                                                   : nlohmann::json(report.nccl_version)},
      {"notes", report.notes},       {"results", std::move(results)},
  };
  return document.dump(2) + "\n";
}

}  // namespace linksim
