// SPDX-License-Identifier: Apache-2.0
// Serving traces as CSV: arrival time (s), input tokens, output tokens, one request per row
// (the columns of public traces such as Azure's LLM inference traces, with the timestamp
// converted to seconds). docs/serving.md#trace
#include <charconv>
#include <cmath>
#include <optional>
#include <fmt/core.h>
#include <string>

#include "linksim/error.hpp"
#include "linksim/serve.hpp"

namespace linksim {
namespace {

struct TraceCell {
  std::string_view text;
  int column = 1;  // 1-based, of the cell's first character
};

std::vector<TraceCell> split_trace_row(std::string_view line) {
  std::vector<TraceCell> cells;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    std::string_view cell = line.substr(start, comma == std::string_view::npos ? line.npos : comma - start);
    int column = int(start) + 1;
    while (!cell.empty() && (cell.front() == ' ' || cell.front() == '\t')) {
      cell.remove_prefix(1);
      ++column;
    }
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t' || cell.back() == '\r')) {
      cell.remove_suffix(1);
    }
    cells.push_back({cell, column});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return cells;
}

std::optional<double> trace_number(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

[[noreturn]] void trace_error(const std::string& file, int line, int column, const std::string& what) {
  throw ConfigError(SourceLocation{file, line, column}, what);
}

}  // namespace

std::vector<TraceRequest> parse_trace_csv(std::string_view text, const std::string& file) {
  static constexpr const char* kNames[] = {"an arrival time in seconds", "input tokens", "output tokens"};
  std::vector<TraceRequest> out;
  int line_no = 0;
  bool first_content = true;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? text.npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::vector<TraceCell> cells = split_trace_row(line);
    const bool header = first_content && !trace_number(cells.front().text);
    first_content = false;
    if (header) continue;
    if (cells.size() != 3) {
      const int column = cells.size() > 3 ? cells[3].column : int(line.size()) + 1;
      trace_error(file, line_no, column,
                  fmt::format("expected 3 columns (arrival_s, input_tokens, output_tokens), got {}",
                              cells.size()));
    }
    double values[3];
    for (int c = 0; c < 3; ++c) {
      const std::optional<double> v = trace_number(cells[size_t(c)].text);
      if (!v) {
        trace_error(file, line_no, cells[size_t(c)].column,
                    fmt::format("expected {}, got '{}'", kNames[c], cells[size_t(c)].text));
      }
      if (c > 0 && (*v < 1 || *v > kMaxTraceTokens || *v != std::floor(*v))) {
        trace_error(file, line_no, cells[size_t(c)].column,
                    fmt::format("expected {} as a whole number from 1 to {}, got '{}'", kNames[c],
                                kMaxTraceTokens, cells[size_t(c)].text));
      }
      if (c == 0 && *v < 0) {
        trace_error(file, line_no, cells[0].column,
                    fmt::format("expected an arrival time >= 0 s, got '{}'", cells[0].text));
      }
      values[c] = *v;
    }
    if (!out.empty() && values[0] < out.back().arrival_s) {
      trace_error(file, line_no, cells[0].column,
                  fmt::format("arrival times out of order: {} s after {} s on the row above",
                              cells[0].text, out.back().arrival_s));
    }
    out.push_back({values[0], int(values[1]), int(values[2]), line_no, cells[1].column});
  }
  if (out.empty()) trace_error(file, 1, 1, "expected at least one request row, got none");
  return out;
}

}  // namespace linksim
