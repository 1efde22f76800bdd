// SPDX-License-Identifier: Apache-2.0
// busbw per message size of several reports in columns, for comparing topologies.
#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "linksim/report.hpp"
#include "linksim/units.hpp"
#include "report/text_lines.hpp"

namespace linksim {
namespace {

// Narrowest column: wide enough for "%8.2f"-sized busbw values such as "12345.67".
constexpr size_t kMinColumnWidth = 8;

struct Column {
  std::string label;     // topology
  std::string subtitle;  // "allreduce x8"
  size_t width = 0;
  std::map<double, double> busbw_GBps_by_size;
};

Column make_column(const CollectiveReport& report) {
  Column column;
  column.label = report.topology;
  column.subtitle = fmt::format("{} x{}", report.collective, report.ranks);
  column.width = std::max({kMinColumnWidth, column.label.size(), column.subtitle.size()});
  for (const CollectiveRow& row : report.rows) {
    column.busbw_GBps_by_size.emplace(row.size_bytes, row.busbw_Bps / kGB);  // first wins
  }
  return column;
}

}  // namespace

std::string render_side_by_side(const std::vector<CollectiveReport>& reports) {
  std::vector<Column> columns;
  std::set<double> sizes;
  for (const CollectiveReport& report : reports) {
    columns.push_back(make_column(report));
    for (const CollectiveRow& row : report.rows) sizes.insert(row.size_bytes);
  }
  std::string out;
  report_text::append_line(out, "# busbw (GB/s, GB = 1e9 bytes/s) by message size");
  std::string labels = fmt::format("# {:>10}", "size");
  std::string subtitles = fmt::format("# {:>10}", "(B)");
  for (const Column& column : columns) {
    labels += fmt::format("  {:>{}}", column.label, column.width);
    subtitles += fmt::format("  {:>{}}", column.subtitle, column.width);
  }
  report_text::append_line(out, labels);
  report_text::append_line(out, subtitles);
  for (double size_bytes : sizes) {
    std::string line = fmt::format("{:>12.0f}", size_bytes);
    for (const Column& column : columns) {
      const auto it = column.busbw_GBps_by_size.find(size_bytes);
      if (it == column.busbw_GBps_by_size.end()) {
        line += fmt::format("  {:>{}}", "-", column.width);
      } else {
        line += fmt::format("  {:>{}.2f}", it->second, column.width);
      }
    }
    report_text::append_line(out, line);
  }
  return out;
}

}  // namespace linksim

namespace linksim {

std::string render_comparison(const std::vector<CollectiveReport>& reports) {
  std::string out = render_side_by_side(reports);
  for (const CollectiveReport& r : reports) {
    if (r.rows.empty()) continue;
    const CollectiveRow& last = r.rows.back();
    report_text::append_line(
        out, fmt::format("# {}: {} ranks; at {}: {} {}, limited by {}", r.topology, r.ranks,
                         format_size(last.size_bytes), last.algorithm, last.protocol,
                         last.bottleneck));
  }
  return out;
}

}  // namespace linksim
