// SPDX-License-Identifier: Apache-2.0
// Text and JSON of `linksim accept` (docs/cli.md#accept).
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "linksim/fault_reports.hpp"
#include "linksim/units.hpp"
#include "common/json_numbers.hpp"

namespace linksim {
namespace {

using json_numbers::count_value;
using json_numbers::rounded;

std::string gbps(double bytes_per_s) { return fmt::format("{:.2f}", bytes_per_s / kGB); }

std::string band_words(const ErrorBand& band) {
  return fmt::format("{} ({})", band.mechanism, band.validated ? "validated" : "extrapolated");
}

nlohmann::ordered_json size_json(const AcceptanceSize& s) {
  return {{"size_bytes", count_value(s.size_bytes)},
          {"predicted_busbw_GBps", rounded(s.predicted_busbw_Bps / kGB)},
          {"threshold_busbw_GBps", rounded(s.threshold_busbw_Bps / kGB)},
          {"mechanism", s.band.mechanism},
          {"confidence", s.band.validated ? "validated" : "extrapolated"}};
}

}  // namespace

std::string render_acceptance_sheet_text(const AcceptanceSheet& sheet) {
  std::string out = fmt::format(
      "# Acceptance sheet: {}, {} GPUs on {} server{}\n"
      "# Run each command; every size must reach its busbw (GB/s, out-of-place), the slow end\n"
      "# of linksim's error band for the mechanism that sets it.\n",
      sheet.topology, sheet.ranks, sheet.nodes, sheet.nodes == 1 ? "" : "s");
  for (const AcceptanceRun& run : sheet.runs) {
    out += fmt::format("\n{}\n  $ {}\n", to_string(run.op), run.command);
    out += fmt::format("  {:>14}  {:>10}  {:>10}  {}\n", "size (B)", "predicted", "must reach",
                       "band");
    for (const AcceptanceSize& s : run.sizes) {
      out += fmt::format("  {:>14.0f}  {:>10}  {:>10}  {}\n", s.size_bytes,
                         gbps(s.predicted_busbw_Bps), gbps(s.threshold_busbw_Bps),
                         band_words(s.band));
    }
  }
  return out;
}

std::string render_acceptance_sheet_json(const AcceptanceSheet& sheet) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const AcceptanceRun& run : sheet.runs) {
    nlohmann::ordered_json sizes = nlohmann::ordered_json::array();
    for (const AcceptanceSize& s : run.sizes) sizes.push_back(size_json(s));
    runs.push_back({{"collective", to_string(run.op)},
                    {"command", run.command},
                    {"sizes", std::move(sizes)}});
  }
  const nlohmann::ordered_json doc = {{"topology", sheet.topology},
                                      {"ranks", sheet.ranks},
                                      {"nodes", sheet.nodes},
                                      {"runs", std::move(runs)}};
  return doc.dump(2) + "\n";
}

std::string render_acceptance_check_text(const AcceptanceCheck& check) {
  std::string out;
  for (const AcceptanceRowCheck& r : check.rows) {
    const std::string where = fmt::format("{}:{}", r.file, r.line);
    if (r.passed) {
      out += fmt::format("PASS {} {} {:.0f} B: {} >= {} GB/s\n", where, to_string(r.op),
                         r.size_bytes, gbps(r.measured_busbw_Bps),
                         gbps(r.expected.threshold_busbw_Bps));
      continue;
    }
    out += fmt::format("FAIL {} {} {:.0f} B: {} < {} GB/s, {:.1f}% short ({} band; predicted {})\n",
                       where, to_string(r.op), r.size_bytes, gbps(r.measured_busbw_Bps),
                       gbps(r.expected.threshold_busbw_Bps),
                       (1 - r.measured_busbw_Bps / r.expected.threshold_busbw_Bps) * 100,
                       r.expected.band.mechanism, gbps(r.expected.predicted_busbw_Bps));
    out += fmt::format("     likeliest: {}{}: {}", r.likeliest.from_log ? "(from the log) " : "",
                       r.likeliest.key, r.likeliest.words);
    out += r.likeliest.key == "unexplained" || !r.likeliest.predicted_busbw_Bps
               ? "\n"
               : fmt::format(" (predicts {} GB/s)\n", gbps(*r.likeliest.predicted_busbw_Bps));
  }
  out += fmt::format("# {} row{} judged on {}, {} below threshold{}\n", check.rows.size(),
                     check.rows.size() == 1 ? "" : "s", check.topology, check.failed,
                     check.skipped_small_rows > 0
                         ? fmt::format("; {} rows below 1 MiB not judged (latency-bound)",
                                       check.skipped_small_rows)
                         : "");
  return out;
}

std::string render_acceptance_check_json(const AcceptanceCheck& check) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const AcceptanceRowCheck& r : check.rows) {
    nlohmann::ordered_json row = {{"file", r.file},
                                  {"line", r.line},
                                  {"collective", to_string(r.op)},
                                  {"ranks", r.ranks},
                                  {"size_bytes", count_value(r.size_bytes)},
                                  {"measured_busbw_GBps", rounded(r.measured_busbw_Bps / kGB)},
                                  {"threshold_busbw_GBps",
                                   rounded(r.expected.threshold_busbw_Bps / kGB)},
                                  {"predicted_busbw_GBps",
                                   rounded(r.expected.predicted_busbw_Bps / kGB)},
                                  {"mechanism", r.expected.band.mechanism},
                                  {"passed", r.passed}};
    if (!r.passed) {
      row["likeliest"] = {
          {"key", r.likeliest.key},
          {"words", r.likeliest.words},
          {"predicted_busbw_GBps", r.likeliest.predicted_busbw_Bps
                                       ? nlohmann::ordered_json(
                                             rounded(*r.likeliest.predicted_busbw_Bps / kGB))
                                       : nlohmann::ordered_json(nullptr)},
          {"source", r.likeliest.from_log ? "log" : "model"}};
    }
    rows.push_back(std::move(row));
  }
  const nlohmann::ordered_json doc = {{"topology", check.topology},
                                      {"passed", check.failed == 0},
                                      {"failed", check.failed},
                                      {"skipped_small_rows", check.skipped_small_rows},
                                      {"rows", std::move(rows)}};
  return doc.dump(2) + "\n";
}

}  // namespace linksim
