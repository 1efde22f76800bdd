// SPDX-License-Identifier: Apache-2.0
// The nccl-tests-style text table of a CollectiveReport.
#include <fmt/core.h>

#include <algorithm>
#include <string>

#include "linksim/report.hpp"
#include "linksim/units.hpp"
#include "report/text_lines.hpp"

namespace linksim {
namespace {

// "1234.5-2345.6": the band of one row, microseconds (docs/calibration.md#error-bands).
constexpr size_t kRangeWidth = 17;

std::string without_padding(std::string text) {
  text.erase(0, text.find_first_not_of(' '));
  return text;
}

std::string format_range_us(const CollectiveRow& row) {
  if (row.confidence.empty()) return "-";
  return fmt::format("{}-{}", without_padding(format_nccl_time_us(row.time_low_s / kMicrosecond)),
                     without_padding(format_nccl_time_us(row.time_high_s / kMicrosecond)));
}

// Column widths follow nccl-tests' printf formats (src/common.cu): "%12li  %12li  %8s  %6s
// %6i" for the row prefix, "%7s  %6.2f  %6.2f" per timing. Header cells are one narrower
// for the size column because the header line starts with "# ".
struct TextColumns {
  size_t algorithm_width = 0;
  size_t protocol_width = 0;
  bool bands = false;  // a row carries an error band: the range and confidence columns
};

TextColumns measure_columns(const CollectiveReport& report) {
  TextColumns columns{std::string_view("algorithm").size(), std::string_view("protocol").size()};
  for (const CollectiveRow& row : report.rows) {
    columns.algorithm_width = std::max(columns.algorithm_width, row.algorithm.size());
    columns.protocol_width = std::max(columns.protocol_width, row.protocol.size());
    columns.bands = columns.bands || !row.confidence.empty();
  }
  return columns;
}

void append_title(std::string& out, const CollectiveReport& report) {
  report_text::append_line(
      out, fmt::format("# linksim {}: {} ranks on {}, mode {}{}", report.collective, report.ranks,
                       report.topology, report.mode,
                       report.nccl_version.empty() ? "" : ", NCCL " + report.nccl_version));
  for (const std::string& note : report.notes) {
    report_text::append_line(out, "# note: " + note);
  }
  report_text::append_line(out, "#");
}

// "  0.9-1.2 us  validated   " before the bottleneck, when the report has bands.
std::string band_cells(const TextColumns& columns, const std::string& range,
                       const std::string& confidence) {
  if (!columns.bands) return "";
  return fmt::format("{:>{}}  {:<12}  ", range, kRangeWidth, confidence);
}

void append_column_headers(std::string& out, const TextColumns& columns) {
  report_text::append_line(
      out,
      fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:<{}}  "
                  "{:<{}}  {}bottleneck",
                  "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "algorithm",
                  columns.algorithm_width, "protocol", columns.protocol_width,
                  band_cells(columns, "time range", "confidence")));
  report_text::append_line(
      out, fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}{}", "(B)",
                       "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)",
                       columns.bands ? fmt::format("  {:>{}}  {:>{}}  {:>{}}", "",
                                                   columns.algorithm_width, "",
                                                   columns.protocol_width, "(us)", kRangeWidth)
                                     : ""));
}

void append_row(std::string& out, const CollectiveRow& row, const TextColumns& columns) {
  report_text::append_line(
      out, fmt::format("{:>12.0f}  {:>12.0f}  {:>8}  {:>6}  {:>6}  {}  {:>6.2f}  {:>6.2f}  "
                       "{:<{}}  {:<{}}  {}{}",
                       row.size_bytes, row.count, row.type, row.redop, row.root,
                       format_nccl_time_us(row.time_s / kMicrosecond), row.algbw_Bps / kGB,
                       row.busbw_Bps / kGB, row.algorithm, columns.algorithm_width, row.protocol,
                       columns.protocol_width,
                       band_cells(columns, format_range_us(row),
                                  row.confidence.empty() ? "-" : row.confidence),
                       row.bottleneck));
}

}  // namespace

std::string format_nccl_time_us(double time_us) {
  if (time_us >= 10000.0) return fmt::format("{:>7.0f}", time_us);
  if (time_us >= 100.0) return fmt::format("{:>7.1f}", time_us);
  return fmt::format("{:>7.2f}", time_us);
}

std::string render_text(const CollectiveReport& report) {
  std::string out;
  const TextColumns columns = measure_columns(report);
  append_title(out, report);
  append_column_headers(out, columns);
  double busbw_sum_GBps = 0;
  for (const CollectiveRow& row : report.rows) {
    append_row(out, row, columns);
    busbw_sum_GBps += row.busbw_Bps / kGB;
  }
  if (!report.rows.empty()) {
    const double mean_GBps = busbw_sum_GBps / static_cast<double>(report.rows.size());
    report_text::append_line(out, fmt::format("# Avg bus bandwidth    : {:g}", mean_GBps));
  }
  return out;
}

}  // namespace linksim
