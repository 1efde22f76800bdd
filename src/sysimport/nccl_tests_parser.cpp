// SPDX-License-Identifier: Apache-2.0
// Reading the data table of published nccl-tests output: the modern layout (with root and
// #wrong), the 2019 layout (no root, "error" column), and author-trimmed tables (size, time,
// algbw, busbw only; sizes such as "33_554_432" or "32M").
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "linksim/error.hpp"
#include "linksim/input_file.hpp"
#include "linksim/nccl_tests.hpp"
#include "sysimport/nccl_tests_text.hpp"

namespace linksim::nccl_tests {
namespace {

// Indexes of the columns in a data row; a timing group is "time algbw busbw" as printed
// once out-of-place and once in-place.
struct TimingColumns {
  size_t time = 0, algbw = 0, busbw = 0;
};
struct ColumnLayout {
  size_t field_count = 0;
  int header_line = 0;      // the column header's line, or the first row's without one
  bool from_header = true;  // false: told by the first data row's fields
  size_t size = 0;
  std::optional<size_t> count, type, redop, root;
  std::vector<TimingColumns> timings;  // 1 or 2 groups
};

std::optional<size_t> find_column(const std::vector<Token>& names, std::string_view name) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].text == name) return i;
  }
  return std::nullopt;
}

// Column names of a line, without nccl-tests' leading "#" (the trimmed layout has none).
std::vector<Token> column_names(const SourceLine& line) {
  std::vector<Token> tokens = tokenize(line);
  if (!tokens.empty() && tokens[0].text == "#") tokens.erase(tokens.begin());
  return tokens;
}

// A column-header line names "size" first, then a time and its algbw and busbw.
std::optional<ColumnLayout> match_column_header(const SourceLine& line) {
  const std::vector<Token> names = column_names(line);
  if (names.empty() || names[0].text != "size") return std::nullopt;
  ColumnLayout layout;
  layout.field_count = names.size();
  layout.header_line = line.number;
  layout.count = find_column(names, "count");
  layout.type = find_column(names, "type");
  layout.redop = find_column(names, "redop");
  layout.root = find_column(names, "root");
  for (size_t i = 1; i + 2 < names.size() && layout.timings.size() < 2; ++i) {
    const bool is_time = names[i].text == "time" || names[i].text == "cputime";
    if (is_time && names[i + 1].text == "algbw" && names[i + 2].text == "busbw") {
      layout.timings.push_back({i, i + 1, i + 2});
      i += 2;
    }
  }
  if (layout.timings.empty()) return std::nullopt;
  return layout;
}

bool is_units_line(const SourceLine& line) {
  const std::vector<Token> names = column_names(line);
  return !names.empty() && names[0].text.front() == '(';
}

bool is_data_line(const SourceLine& line) {
  const std::vector<Token> tokens = tokenize(line);
  return !tokens.empty() && std::isdigit(static_cast<unsigned char>(tokens[0].text.front()));
}

[[noreturn]] void throw_field_error(const std::string& file, int line, const Token& token,
                                    std::string_view expected) {
  throw ConfigError({file, line, token.column},
                    fmt::format("expected {}, got '{}'", expected, token.text));
}

double parse_number(const Token& token, const std::string& file, int line) {
  double value = 0;
  const std::string_view text = token.text;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw_field_error(file, line, token, "a number");
  }
  // nccl-tests prints counts, times and bandwidths: finite and never negative.
  if (!std::isfinite(value) || value < 0) throw_field_error(file, line, token, "a finite number >= 0");
  return value;
}

// "33554432", "33_554_432", "1048_576", "32K", "32KiB", "32KB". K/M/G/T are powers of 1024
// as in nccl-tests' -b/-e; KB/MB/GB/TB powers of 1000 (docs/units.md).
double parse_size(const Token& token, const std::string& file, int line) {
  std::string digits;
  size_t pos = 0;
  const std::string_view text = token.text;
  for (; pos < text.size() && (std::isdigit(static_cast<unsigned char>(text[pos])) ||
                               text[pos] == '_' || text[pos] == ',');
       ++pos) {
    if (std::isdigit(static_cast<unsigned char>(text[pos]))) digits += text[pos];
  }
  const std::string_view suffix = text.substr(pos);
  static constexpr std::string_view kPrefixes = "KMGT";
  double multiplier = 1;
  if (!suffix.empty() && suffix != "B") {
    const size_t power = kPrefixes.find(static_cast<char>(std::toupper(suffix[0])));
    const std::string_view unit = suffix.substr(1);
    if (power == std::string_view::npos || (unit != "" && unit != "B" && unit != "iB")) {
      throw_field_error(file, line, token, "a size in bytes such as 33554432 or 32M");
    }
    const double base = unit == "B" ? 1000.0 : 1024.0;
    for (size_t i = 0; i <= power; ++i) multiplier *= base;
  }
  if (digits.empty()) throw_field_error(file, line, token, "a size in bytes such as 33554432");
  double value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || !std::isfinite(value * multiplier)) {
    throw_field_error(file, line, token, "a size in bytes such as 33554432");
  }
  return value * multiplier;
}

int parse_root(const Token& token, const std::string& file, int line) {
  int value = 0;
  const std::string_view text = token.text;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw_field_error(file, line, token, "an integer root rank");
  }
  return value;
}

NcclTestsTiming parse_timing(const std::vector<Token>& fields, const TimingColumns& columns,
                             const std::string& file, int line) {
  return {parse_number(fields[columns.time], file, line),
          parse_number(fields[columns.algbw], file, line),
          parse_number(fields[columns.busbw], file, line)};
}

NcclTestsRow parse_row(const SourceLine& line, const ColumnLayout& layout,
                       const std::string& file) {
  const std::vector<Token> fields = tokenize(line);
  if (fields.size() != layout.field_count) {
    throw ConfigError({file, line.number, fields.front().column},
                      fmt::format("expected {} fields as in the {} on line {}, got {}",
                                  layout.field_count,
                                  layout.from_header ? "column header" : "first data row",
                                  layout.header_line, fields.size()));
  }
  NcclTestsRow row;
  row.line = line.number;
  row.size_bytes = parse_size(fields[layout.size], file, line.number);
  if (layout.count) row.count = parse_number(fields[*layout.count], file, line.number);
  if (layout.type) row.type = std::string(fields[*layout.type].text);
  if (layout.redop) row.redop = std::string(fields[*layout.redop].text);
  if (layout.root) row.root = parse_root(fields[*layout.root], file, line.number);
  const NcclTestsTiming out_of_place = parse_timing(fields, layout.timings[0], file, line.number);
  row.time_us = out_of_place.time_us;
  row.algbw_GBps = out_of_place.algbw_GBps;
  row.busbw_GBps = out_of_place.busbw_GBps;
  if (layout.timings.size() > 1) {
    row.in_place = parse_timing(fields, layout.timings[1], file, line.number);
  }
  return row;
}

// Words that mark text as nccl-tests' (or a calibration header's): a file without any and
// without a table is some other program's output.
bool looks_like_nccl_tests(std::span<const SourceLine> lines) {
  for (const SourceLine& line : lines) {
    const std::string_view t = line.text;
    if (t.find("_perf") != std::string_view::npos || t.find("nThread") != std::string_view::npos ||
        t.find("Using devices") != std::string_view::npos || t.starts_with("# collective:") ||
        t.starts_with("# ----")) {
      return true;
    }
  }
  return false;
}

[[noreturn]] void throw_no_table(const std::vector<SourceLine>& lines, const std::string& file) {
  if (!looks_like_nccl_tests(lines)) {
    for (const SourceLine& line : lines) {
      const std::vector<Token> tokens = tokenize(line);
      if (tokens.empty()) continue;
      constexpr size_t kShown = 40;
      const std::string_view text = line.text.substr(tokens.front().column - 1 - line.prefix_length);
      throw ConfigError({file, line.number, tokens.front().column},
                        fmt::format("expected nccl-tests output (a column header naming size, "
                                    "time, algbw and busbw, or its data rows), got '{}{}'",
                                    text.substr(0, kShown), text.size() > kShown ? "..." : ""));
    }
  }
  const int last_line = lines.empty() ? 1 : lines.back().number;
  throw ConfigError({file, last_line, 1},
                    "expected an nccl-tests table (a column header naming size, time, algbw "
                    "and busbw, or its data rows), got none");
}

// Text, not binary data: the first control byte other than tab, CR, LF, form feed and ESC
// (terminal colours) is refused at its line and column.
void check_text(std::string_view text, const std::string& file) {
  int line = 1, column = 1;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      ++line;
      column = 1;
      continue;
    }
    if ((byte < 0x20 && c != '\t' && c != '\r' && c != '\f' && byte != 0x1b) || byte == 0x7f) {
      throw ConfigError({file, line, column},
                        fmt::format("expected nccl-tests output as text, got the binary byte "
                                    "0x{:02x}",
                                    byte));
    }
    ++column;
  }
}

// The layout of a data row without its column header: size count type redop, a root when
// the rest is one field more than a multiple of 4, then one or two groups of
// "time algbw busbw #wrong" (nccl-tests src/common.cu; 2019 releases print no root and an
// "error" column in place of #wrong).
std::optional<ColumnLayout> match_bare_row(const SourceLine& line) {
  const std::vector<Token> fields = tokenize(line);
  if (fields.size() < 8 || !parse_data_type(fields[2].text)) return std::nullopt;
  static constexpr std::string_view kRedops[] = {"sum", "prod", "max", "min", "avg", "none",
                                                 "mulsum", "premulsum"};
  if (std::find(std::begin(kRedops), std::end(kRedops), fields[3].text) == std::end(kRedops)) {
    return std::nullopt;
  }
  const size_t rest = fields.size() - 4;
  const size_t groups = rest / 4;
  if (rest % 4 > 1 || groups < 1 || groups > 2) return std::nullopt;
  ColumnLayout layout;
  layout.field_count = fields.size();
  layout.header_line = line.number;
  layout.from_header = false;
  layout.count = 1;
  layout.type = 2;
  layout.redop = 3;
  size_t at = 4;
  if (rest % 4 == 1) layout.root = at++;
  for (size_t g = 0; g < groups; ++g, at += 4) layout.timings.push_back({at, at + 1, at + 2});
  return layout;
}

// The index of the next column-header line at or after `index`, or lines.size().
size_t find_column_header(const std::vector<SourceLine>& lines, size_t index) {
  while (index < lines.size() && !match_column_header(lines[index])) ++index;
  return index;
}

// Reads the table at lines[start] (a column header, or a first data row when `bare`):
// unit lines, then data rows up to the first line that is not one. Returns the rows and sets
// `end` to the line after them.
std::vector<NcclTestsRow> read_table(const std::vector<SourceLine>& lines, size_t start,
                                     bool bare, const std::string& file, size_t& end) {
  std::optional<ColumnLayout> layout =
      bare ? match_bare_row(lines[start]) : match_column_header(lines[start]);
  if (!layout) {
    const std::vector<Token> tokens = tokenize(lines[start]);
    throw ConfigError({file, lines[start].number, tokens.front().column},
                      fmt::format("expected a column header naming size, time, algbw and busbw, "
                                  "or an nccl-tests data row (size count type redop [root], then "
                                  "time algbw busbw #wrong once or twice), got {} fields",
                                  tokens.size()));
  }
  size_t index = bare ? start : start + 1;
  while (index < lines.size() && is_units_line(lines[index])) ++index;
  std::vector<NcclTestsRow> rows;
  for (; index < lines.size() && is_data_line(lines[index]); ++index) {
    rows.push_back(parse_row(lines[index], *layout, file));
  }
  end = index;
  return rows;
}

// The index of the first data row at or after `index`, or lines.size().
size_t find_data_line(const std::vector<SourceLine>& lines, size_t index) {
  while (index < lines.size() && !is_data_line(lines[index])) ++index;
  return index;
}

// nccl-tests' preamble "# nThread 1 nGpus 8 minBytes ...": the GPUs of one process.
std::optional<int> gpus_per_thread_from(std::span<const SourceLine> lines) {
  for (const SourceLine& line : lines) {
    const std::vector<Token> tokens = tokenize(line);
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      if (tokens[i].text != "nGpus") continue;
      int value = 0;
      const std::string_view digits = tokens[i + 1].text;
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (error == std::errc() && end == digits.data() + digits.size() && value >= 1) return value;
    }
  }
  return std::nullopt;
}

// nccl-tests' preamble word "nccl-library=22902": the NCCL_VERSION_CODE the run linked.
std::optional<int> nccl_version_code_from(std::span<const SourceLine> lines) {
  constexpr std::string_view kKey = "nccl-library=";
  for (const SourceLine& line : lines) {
    for (const Token& token : tokenize(line)) {
      if (!token.text.starts_with(kKey)) continue;
      const std::string_view digits = token.text.substr(kKey.size());
      int value = 0;
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (error == std::errc() && end == digits.data() + digits.size() && value > 0) return value;
    }
  }
  return std::nullopt;
}

// The "nccl_version" header of a calibration file when its value opens with a release,
// "2.16.2 (coreweave container)": major x 10000 + minor x 100 + patch, NCCL_VERSION_CODE's
// form. A value that opens with words ("not printed", "probably 2.16") states none.
std::optional<int> nccl_version_code_from_header(const std::map<std::string, std::string>& header) {
  const auto field = header.find("nccl_version");
  if (field == header.end()) return std::nullopt;
  const std::vector<Token> tokens = tokenize(field->second);
  if (tokens.empty()) return std::nullopt;
  int parts[3] = {0, 0, 0};
  std::string_view text = tokens.front().text;
  for (int i = 0; i < 3; ++i) {
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parts[i]);
    if (error != std::errc()) return std::nullopt;
    text.remove_prefix(static_cast<size_t>(end - text.data()));
    if (text.empty()) {
      if (i == 0) return std::nullopt;  // a bare number is no release
      break;
    }
    if (text.front() != '.' || i == 2) return std::nullopt;
    text.remove_prefix(1);
  }
  if (parts[0] < 2 || parts[1] > 99 || parts[2] > 99) return std::nullopt;
  return parts[0] * 10000 + parts[1] * 100 + parts[2];
}

// "-g 8" in a command header line.
std::optional<int> gpus_per_thread_from_command(const std::string& command) {
  const std::vector<Token> tokens = tokenize(command);
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i].text != "-g") continue;
    int value = 0;
    const std::string_view digits = tokens[i + 1].text;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error == std::errc() && end == digits.data() + digits.size() && value >= 1) return value;
  }
  return std::nullopt;
}

std::vector<NcclTestsTable> parse_text_tables(std::string_view text, const std::string& filename,
                                              const NcclTestsReadOptions& options) {
  check_text(text, filename);
  NcclTestsTable base;
  base.file = filename;
  const std::vector<SourceLine> lines = split_lines(text);
  const size_t raw_begin = read_header(lines, base);
  const auto command = base.header.find("command");
  if (command != base.header.end()) {
    base.gpus_per_thread = gpus_per_thread_from_command(command->second).value_or(0);
  }
  if (auto code = nccl_version_code_from_header(base.header)) {
    base.nccl_version_code = *code;
    base.nccl_version_source = "the header";
  }
  // Without any column header, the rows alone: their fields tell the layout.
  const bool bare = find_column_header(lines, raw_begin) == lines.size();
  const auto next_table = [&](size_t from) {
    return bare ? find_data_line(lines, from) : find_column_header(lines, from);
  };
  std::vector<NcclTestsTable> tables;
  size_t region_begin = raw_begin;
  for (size_t start = next_table(raw_begin); start < lines.size();
       start = next_table(region_begin)) {
    const std::span<const SourceLine> region(lines.data() + region_begin, start - region_begin);
    NcclTestsTable table = tables.empty() ? base : tables.back();
    table.collective = base.collective;
    table.collective_source = base.collective_source;
    table.ranks = base.ranks;
    table.ranks_source = base.ranks_source;
    if (auto gpus = gpus_per_thread_from(region)) table.gpus_per_thread = *gpus;
    if (auto code = nccl_version_code_from(region)) {
      table.nccl_version_code = *code;
      table.nccl_version_source = fmt::format("nccl-library={}", *code);
    }
    size_t end = start;
    table.rows = read_table(lines, start, bare, filename, end);
    const TableContext context{region, lines, &options, tables.empty() ? nullptr : &tables.back()};
    complete_table(table, context);
    tables.push_back(std::move(table));
    region_begin = end;
  }
  if (tables.empty()) throw_no_table(lines, filename);
  return tables;
}

}  // namespace

namespace {

// The length of a launcher's tag at the start of `line`: Open MPI's --tag-output
// "[1,0]<stdout>:" (or <stderr>), then an optional space; srun --label's "12: ". 0 when none.
size_t launcher_prefix_length(std::string_view line) {
  size_t pos = 0;
  if (line.size() > 1 && line[0] == '[') {
    const size_t close = line.find("]<");
    if (close == std::string_view::npos) return 0;
    for (size_t i = 1; i < close; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(line[i])) && line[i] != ',') return 0;
    }
    const size_t end = line.find(">:", close);
    if (end == std::string_view::npos) return 0;
    pos = end + 2;
  } else {
    while (pos < line.size() && line[pos] == ' ') ++pos;
    const size_t digits = pos;
    while (pos < line.size() && std::isdigit(static_cast<unsigned char>(line[pos]))) ++pos;
    if (pos == digits || pos + 1 >= line.size() || line[pos] != ':' || line[pos + 1] != ' ') {
      return 0;
    }
    ++pos;
  }
  if (pos < line.size() && line[pos] == ' ') ++pos;
  return pos;
}

}  // namespace

std::vector<SourceLine> split_lines(std::string_view text) {
  std::vector<SourceLine> lines;
  int number = 1;
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t prefix = launcher_prefix_length(line);
    lines.push_back({line.substr(prefix), number++, static_cast<int>(prefix)});
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  return lines;
}

std::vector<Token> tokenize(std::string_view line) {
  std::vector<Token> tokens;
  size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && std::isspace(static_cast<unsigned char>(line[pos]))) ++pos;
    const size_t start = pos;
    while (pos < line.size() && !std::isspace(static_cast<unsigned char>(line[pos]))) ++pos;
    if (pos > start)
      tokens.push_back({line.substr(start, pos - start), static_cast<int>(start) + 1});
  }
  return tokens;
}

std::vector<Token> tokenize(const SourceLine& line) {
  std::vector<Token> tokens = tokenize(line.text);
  for (Token& token : tokens) token.column += line.prefix_length;
  return tokens;
}

}  // namespace linksim::nccl_tests

namespace linksim {

NcclTestsTable parse_nccl_tests_output(std::string_view text, const std::string& filename,
                                       const NcclTestsReadOptions& options) {
  return parse_nccl_tests_outputs(text, filename, options).front();
}

NcclTestsTable load_nccl_tests_output(const std::string& path,
                                      const NcclTestsReadOptions& options) {
  return parse_nccl_tests_output(read_input_file(path), path, options);
}

std::vector<NcclTestsTable> parse_nccl_tests_outputs(std::string_view text,
                                                     const std::string& filename,
                                                     const NcclTestsReadOptions& options) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    return {nccl_tests::parse_json_output(text, filename)};
  }
  return nccl_tests::parse_text_tables(text, filename, options);
}

std::vector<NcclTestsTable> load_nccl_tests_outputs(const std::string& path,
                                                    const NcclTestsReadOptions& options) {
  return parse_nccl_tests_outputs(read_input_file(path), path, options);
}

}  // namespace linksim
