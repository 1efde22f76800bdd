// SPDX-License-Identifier: Apache-2.0
// Text and JSON of `linksim topo contingency` (docs/cli.md#contingency).
#include <fmt/core.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "linksim/fault_reports.hpp"
#include "linksim/units.hpp"
#include "common/json_numbers.hpp"

namespace linksim {
namespace {

using json_numbers::count_value;
using json_numbers::rounded;

bool is_plan(const ContingencyReport& r) { return r.subject == "plan"; }

// The row's values as the text shows them: step time in s, or busbw in GB/s per size.
std::string values_text(const ContingencyReport& report, const std::vector<double>& values) {
  std::string out;
  for (double v : values) {
    if (!out.empty()) out += " ";
    out += is_plan(report) ? fmt::format("{:.4g} s", v) : fmt::format("{:.2f}", v / kGB);
  }
  return out;
}

std::string cost_text(const ContingencyRow& row) {
  if (!row.runs) return "cannot run";
  return fmt::format("{:+.1f}%", row.cost * 100);
}

void append_rows(std::string& out, const ContingencyReport& report,
                 const std::vector<ContingencyRow>& rows) {
  const std::string value_head = is_plan(report) ? "step" : "busbw (GB/s)";
  out += fmt::format("  {:<18} {:<36} {:>11}  {}\n", "class", "fault", "cost", value_head);
  for (const ContingencyRow& row : rows) {
    out += fmt::format("  {:<18} {:<36} {:>11}  {}\n", row.fault_class, row.fault,
                       cost_text(row), row.runs ? values_text(report, row.values) : row.error);
  }
}

nlohmann::ordered_json row_json(const ContingencyReport& report, const ContingencyRow& row) {
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  for (double v : row.values) values.push_back(rounded(is_plan(report) ? v : v / kGB));
  nlohmann::ordered_json j = {{"class", row.fault_class},
                              {"fault", row.fault},
                              {"runs", row.runs},
                              {"cost", rounded(row.cost)}};
  j[is_plan(report) ? "step_time_s" : "busbw_GBps"] =
      is_plan(report) ? (values.empty() ? nlohmann::ordered_json(nullptr) : values[0]) : values;
  if (!row.runs) j["error"] = row.error;
  return j;
}

}  // namespace

std::string render_contingency_text(const ContingencyReport& report) {
  std::string out = fmt::format("# N-1 contingency of {}: {} single faults against {}\n",
                                report.topology, report.rows.size(),
                                is_plan(report) ? "the plan" : report.subject);
  if (is_plan(report)) {
    out += fmt::format("# nominal step {}; cost = step time with the fault / nominal - 1\n",
                       values_text(report, report.nominal));
  } else {
    std::string sizes;
    for (double s : report.sizes_bytes) sizes += fmt::format("{}{:.0f}", sizes.empty() ? "" : " ", s);
    out += fmt::format("# sizes {} B, nominal busbw {} GB/s; cost = busbw lost, mean over sizes\n",
                       sizes, values_text(report, report.nominal));
  }
  out += "\nWorst per class:\n";
  append_rows(out, report, report.worst_per_class);
  out += "\nEvery fault, costliest first:\n";
  append_rows(out, report, report.rows);
  return out;
}

std::string render_contingency_json(const ContingencyReport& report) {
  nlohmann::ordered_json worst = nlohmann::ordered_json::array();
  for (const ContingencyRow& row : report.worst_per_class) worst.push_back(row_json(report, row));
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const ContingencyRow& row : report.rows) rows.push_back(row_json(report, row));
  nlohmann::ordered_json doc = {{"topology", report.topology}, {"subject", report.subject}};
  if (is_plan(report)) {
    doc["nominal_step_time_s"] = rounded(report.nominal.front());
  } else {
    nlohmann::ordered_json sizes = nlohmann::ordered_json::array();
    nlohmann::ordered_json nominal = nlohmann::ordered_json::array();
    for (double s : report.sizes_bytes) sizes.push_back(count_value(s));
    for (double v : report.nominal) nominal.push_back(rounded(v / kGB));
    doc["sizes_bytes"] = std::move(sizes);
    doc["nominal_busbw_GBps"] = std::move(nominal);
  }
  doc["worst_per_class"] = std::move(worst);
  doc["faults"] = std::move(rows);
  return doc.dump(2) + "\n";
}

}  // namespace linksim
