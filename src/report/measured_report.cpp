// SPDX-License-Identifier: Apache-2.0
// Text of `linksim coll compare` and `linksim calibrate` (docs/calibration.md).
#include "linksim/measured_report.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "linksim/report.hpp"
#include "report/data_format.hpp"
#include "linksim/units.hpp"
#include "report/text_lines.hpp"

namespace linksim {
namespace {

using report_data::round_to_10_digits;

std::string percent(double error) { return fmt::format("{:+.1f}%", error * 100); }

std::string trimmed(std::string text) {
  text.erase(0, text.find_first_not_of(' '));
  return text;
}

std::string time_us(double seconds) { return trimmed(format_nccl_time_us(seconds * 1e6)); }

std::string parameter_value(const CalibrationParameterInfo& info, double value) {
  return info.multiplicative ? fmt::format("x{:.4g}", value) : fmt::format("{:+.3g} us", value);
}

nlohmann::json comparison_json(const Comparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ComparedRow& r : c.rows) {
    const double t = r.predicted.time_s;
    rows.push_back({
        {"size_bytes", r.size_bytes},
        {"line", r.line},
        {"measured_time_us", round_to_10_digits(r.measured_time_s * 1e6)},
        {"measured_busbw_GBps", round_to_10_digits(r.measured_busbw_Bps / kGB)},
        {"time_us", round_to_10_digits(t * 1e6)},
        {"busbw_GBps", round_to_10_digits(r.predicted.busbw_Bps / kGB)},
        {"busbw_error", round_to_10_digits(r.busbw_error)},
        {"time_low_us", round_to_10_digits(t * r.band.low_factor * 1e6)},
        {"time_high_us", round_to_10_digits(t * r.band.high_factor * 1e6)},
        {"confidence", r.band.validated ? "validated" : "extrapolated"},
        {"mechanism", r.band.mechanism},
        {"machine_class", r.band.machine_class},
        {"algorithm", to_string(r.predicted.algorithm)},
        {"protocol", to_string(r.predicted.protocol)},
    });
  }
  nlohmann::json verdicts = nlohmann::json::array();
  for (const MechanismVerdict& v : c.verdicts) {
    verdicts.push_back({{"mechanism", v.mechanism},
                        {"rows", v.rows},
                        {"median_error", round_to_10_digits(v.median_error)},
                        {"worst_error", round_to_10_digits(v.worst_error)},
                        {"in_band", v.in_band},
                        {"verdict", v.verdict}});
  }
  return {{"file", c.file},         {"topology", c.topology},
          {"collective", to_string(c.setup.op)}, {"ranks", c.setup.ranks},
          {"inferred", c.setup.inferred}, {"rows", std::move(rows)},
          {"verdicts", std::move(verdicts)}};
}

}  // namespace

std::string render_comparisons_json(const std::vector<Comparison>& comparisons) {
  nlohmann::json list = nlohmann::json::array();
  for (const Comparison& c : comparisons) list.push_back(comparison_json(c));
  return nlohmann::json{{"comparisons", std::move(list)}}.dump(2) + "\n";
}

std::string render_comparison_text(const Comparison& c) {
  std::string out;
  using report_text::append_line;
  append_line(out, fmt::format("# linksim coll compare: {} against {}", c.file, c.topology));
  for (const std::string& line : c.setup.inferred) append_line(out, "# run: " + line);
  append_line(out, "# error = linksim busbw / measured busbw - 1 (from the times); band: where a "
                   "measurement is expected (docs/calibration.md#error-bands)");
  append_line(out, "#");
  append_line(out, fmt::format("# {:>10}  {:>9}  {:>9}  {:>8}  {:>8}  {:>7}  {:>19}  {:<12}  {:<12}  {}",
                               "size", "measured", "linksim", "measured", "linksim", "error",
                               "band", "confidence", "mechanism", "algorithm"));
  append_line(out, fmt::format("# {:>10}  {:>9}  {:>9}  {:>8}  {:>8}  {:>7}  {:>19}", "(B)",
                               "(us)", "(us)", "(GB/s)", "(GB/s)", "", "(us)"));
  for (const ComparedRow& r : c.rows) {
    const double t = r.predicted.time_s;
    append_line(out, fmt::format(
        "{:>12.0f}  {:>9}  {:>9}  {:>8.2f}  {:>8.2f}  {:>7}  {:>19}  {:<12}  {:<12}  {}/{}",
        r.size_bytes, time_us(r.measured_time_s), time_us(t), r.measured_busbw_Bps / kGB,
        r.predicted.busbw_Bps / kGB, percent(r.busbw_error),
        fmt::format("{}-{}{}", time_us(t * r.band.low_factor), time_us(t * r.band.high_factor),
                    r.measured_in_band ? "" : " !"),
        r.band.validated ? "validated" : "extrapolated", r.band.mechanism,
        to_string(r.predicted.algorithm), to_string(r.predicted.protocol)));
  }
  for (const MechanismVerdict& v : c.verdicts) {
    append_line(out, fmt::format(
        "# verdict {} ({} rows, {} to {}): median error {}, worst {}, {} of {} within the band: {}",
        v.mechanism, v.rows, format_size(v.min_size_bytes), format_size(v.max_size_bytes),
        percent(v.median_error), percent(v.worst_error), v.in_band, v.rows, v.verdict));
  }
  return out;
}

std::string render_calibration_fit(const CalibrationFit& fit, const std::vector<FitCase>& cases) {
  std::string out;
  using report_text::append_line;
  append_line(out, fmt::format("# linksim calibrate: {} rows of {} tables, {} iterations",
                               fit.rows.size(), cases.size(), fit.iterations));
  for (const CalibrationParameterInfo& info : calibration_parameters()) {
    const bool undetermined = std::find(fit.undetermined.begin(), fit.undetermined.end(),
                                        info.id) != fit.undetermined.end();
    const bool at_bound =
        std::find(fit.at_bound.begin(), fit.at_bound.end(), info.id) != fit.at_bound.end();
    std::string status = undetermined ? "left at its default: no measured row depends on it"
                         : at_bound   ? "fitted, at the edge of its range"
                                      : "fitted";
    append_line(out, fmt::format("# {:<20} {:>10}  {} ({})", info.name,
                                 parameter_value(info, fit.parameters[info.id]), status,
                                 info.meaning));
  }
  append_line(out, fmt::format("# RMS of ln(linksim / measured time): {:.4f} before, {:.4f} after "
                               "(about {} and {})",
                               fit.rms_before, fit.rms_after,
                               percent(std::exp(fit.rms_before) - 1),
                               percent(std::exp(fit.rms_after) - 1)));
  append_line(out, "#");
  append_line(out, fmt::format("# {:>10}  {:>9}  {:>9}  {:>8}  {:>9}  {:>8}  {}", "size",
                               "measured", "before", "error", "after", "error", "table"));
  append_line(out, fmt::format("# {:>10}  {:>9}  {:>9}  {:>8}  {:>9}  {:>8}", "(B)", "(us)",
                               "(us)", "", "(us)", ""));
  for (const FitRow& row : fit.rows) {
    append_line(out, fmt::format("{:>12.0f}  {:>9}  {:>9}  {:>8}  {:>9}  {:>8}  {}:{}",
                                 row.size_bytes, time_us(row.measured_time_s),
                                 time_us(row.before_time_s),
                                 percent(row.measured_time_s / row.before_time_s - 1),
                                 time_us(row.after_time_s),
                                 percent(row.measured_time_s / row.after_time_s - 1),
                                 cases[row.table].table.file, row.line));
  }
  return out;
}

}  // namespace linksim
