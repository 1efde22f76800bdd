// SPDX-License-Identifier: Apache-2.0
// Reading the data table of published nccl-tests output: the modern layout (with root and
// #wrong), the 2019 layout (no root, "error" column), and author-trimmed tables (size, time,
// algbw, busbw only; sizes such as "33_554_432" or "32M").
#include <fmt/core.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "linksim/error.hpp"
#include "linksim/input_file.hpp"
#include "report/nccl_tests_text.hpp"

namespace linksim::nccl_tests {
namespace {

// Indexes of the columns in a data row; a timing group is "time algbw busbw" as printed
// once out-of-place and once in-place.
struct TimingColumns {
  size_t time = 0, algbw = 0, busbw = 0;
};
struct ColumnLayout {
  size_t field_count = 0;
  int header_line = 0;
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
                      fmt::format("expected {} fields as in the column header on line {}, got {}",
                                  layout.field_count, layout.header_line, fields.size()));
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

[[noreturn]] void throw_no_table(const std::vector<SourceLine>& lines, const std::string& file) {
  const int last_line = lines.empty() ? 1 : lines.back().number;
  throw ConfigError({file, last_line, 1},
                    "expected an nccl-tests table (a column header naming size, time, algbw "
                    "and busbw), got none");
}

// The index of the next column-header line at or after `index`, or lines.size().
size_t find_column_header(const std::vector<SourceLine>& lines, size_t index) {
  while (index < lines.size() && !match_column_header(lines[index])) ++index;
  return index;
}

// Reads the table whose column header is lines[header]: unit lines, then data rows up to the
// first line that is not one. Returns the rows and sets `end` to the line after them.
std::vector<NcclTestsRow> read_table(const std::vector<SourceLine>& lines, size_t header,
                                     const std::string& file, size_t& end) {
  const ColumnLayout layout = *match_column_header(lines[header]);
  size_t index = header + 1;
  while (index < lines.size() && is_units_line(lines[index])) ++index;
  std::vector<NcclTestsRow> rows;
  for (; index < lines.size() && is_data_line(lines[index]); ++index) {
    rows.push_back(parse_row(lines[index], layout, file));
  }
  end = index;
  return rows;
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

std::vector<NcclTestsTable> parse_text_tables(std::string_view text, const std::string& filename) {
  NcclTestsTable base;
  base.file = filename;
  const std::vector<SourceLine> lines = split_lines(text);
  const size_t raw_begin = read_header(lines, base);
  const auto command = base.header.find("command");
  if (command != base.header.end()) {
    base.gpus_per_thread = gpus_per_thread_from_command(command->second).value_or(0);
  }
  const bool header_names_collective = base.header.count("collective") > 0;
  std::vector<NcclTestsTable> tables;
  size_t region_begin = raw_begin;
  for (size_t header = find_column_header(lines, raw_begin); header < lines.size();
       header = find_column_header(lines, region_begin)) {
    const std::span<const SourceLine> region(lines.data() + region_begin, header - region_begin);
    NcclTestsTable table = tables.empty() ? base : tables.back();
    if (!tables.empty() || !header_names_collective) {
      if (auto name = collective_from_text(region)) table.collective = *name;
    }
    if (auto ranks = ranks_from_device_lines(region)) table.ranks = *ranks;
    if (auto gpus = gpus_per_thread_from(region)) table.gpus_per_thread = *gpus;
    if (auto code = nccl_version_code_from(region)) table.nccl_version_code = *code;
    size_t end = header;
    table.rows = read_table(lines, header, filename, end);
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

NcclTestsTable parse_nccl_tests_output(std::string_view text, const std::string& filename) {
  return parse_nccl_tests_outputs(text, filename).front();
}

NcclTestsTable load_nccl_tests_output(const std::string& path) {
  return parse_nccl_tests_output(read_input_file(path), path);
}

std::vector<NcclTestsTable> parse_nccl_tests_outputs(std::string_view text,
                                                     const std::string& filename) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    return {nccl_tests::parse_json_output(text, filename)};
  }
  return nccl_tests::parse_text_tables(text, filename);
}

std::vector<NcclTestsTable> load_nccl_tests_outputs(const std::string& path) {
  return parse_nccl_tests_outputs(read_input_file(path), path);
}

}  // namespace linksim
