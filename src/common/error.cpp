// SPDX-License-Identifier: Apache-2.0
// ConfigError, its terminal rendering with source line and caret, and did-you-mean.
#include "linksim/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

#include "common/text.hpp"

namespace linksim {

namespace {

std::string one_line(const SourceLocation& where, const std::string& message) {
  if (where.file.empty()) return "linksim: error: " + message;
  if (where.line <= 0) return fmt::format("{}: error: {}", where.file, message);
  if (where.column <= 0) return fmt::format("{}:{}: error: {}", where.file, where.line, message);
  return fmt::format("{}:{}:{}: error: {}", where.file, where.line, where.column, message);
}

// Line `line` (1-based) of `text` without its newline; nullopt past the end.
std::optional<std::string> nth_line(std::string_view text, int line) {
  std::istringstream in{std::string(text)};
  std::string current;
  for (int i = 1; std::getline(in, current); ++i) {
    if (i == line) {
      if (!current.empty() && current.back() == '\r') current.pop_back();
      return current;
    }
  }
  return std::nullopt;
}

// Length of the YAML token starting at `start`: a quoted string up to its closing quote, or a
// plain scalar up to a flow delimiter (, ] }), a "key: " colon, a " #" comment or the end of
// the line, trailing blanks excluded. At least 1.
size_t token_length(std::string_view line, size_t start) {
  if (start >= line.size()) return 1;
  char quote = line[start];
  if (quote == '"' || quote == '\'') {
    size_t close = line.find(quote, start + 1);
    return close == std::string_view::npos ? line.size() - start : close - start + 1;
  }
  size_t end = start;
  for (; end < line.size(); ++end) {
    char c = line[end];
    if (c == ',' || c == ']' || c == '}') break;
    if (c == ':' && (end + 1 == line.size() || line[end + 1] == ' ')) break;
    if (c == '#' && end > start && line[end - 1] == ' ') break;
  }
  while (end > start && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
  return std::max<size_t>(1, end - start);
}

// The source line indented by two spaces and a caret line under `column` (1-based). Tabs
// before the column are repeated in the caret line so the caret stays aligned.
// A column of 0 (a whole-line error) gives the line alone.
std::string source_excerpt(const std::string& line, int column) {
  if (column <= 0) return "  " + line;
  size_t start = size_t(std::max(column, 1) - 1);
  std::string caret = "  ";
  for (size_t i = 0; i < start; ++i) caret += (i < line.size() && line[i] == '\t') ? '\t' : ' ';
  caret += '^';
  caret += std::string(token_length(line, start) - 1, '~');
  return "  " + line + "\n" + caret;
}

std::string render(const ConfigError& error, const std::optional<std::string>& source_line) {
  std::string out = error.what();
  if (source_line) out += "\n" + source_excerpt(*source_line, error.where().column);
  for (const std::string& note : error.notes()) out += "\n  note: " + note;
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace



ConfigError::ConfigError(SourceLocation where, std::string message,
                         std::vector<std::string> notes)
    : std::runtime_error(one_line(where, message)),
      where_(std::move(where)),
      message_(std::move(message)),
      notes_(std::move(notes)) {}

ConfigError::ConfigError(std::string message, std::vector<std::string> notes)
    : ConfigError(SourceLocation{}, std::move(message), std::move(notes)) {}

ConfigError::ConfigError(RequestField field, std::string message, std::vector<std::string> notes)
    : ConfigError(SourceLocation{}, field.name + ": " + message, std::move(notes)) {
  message_ = std::move(message);
  field_ = std::move(field.name);
}

ConfigError ConfigError::with_field_spelled(std::string_view spelling) const {
  if (field_.empty()) return *this;
  return ConfigError(where_, fmt::format("{}: {}", spelling, message_), notes_);
}

std::string format_diagnostic(const ConfigError& error) {
  std::optional<std::string> source_line;
  const SourceLocation& where = error.where();
  if (!where.file.empty() && where.line > 0) {
    std::ifstream in(where.file, std::ios::binary);
    if (in) {
      std::ostringstream text;
      text << in.rdbuf();
      source_line = nth_line(text.str(), where.line);
    }
  }
  return render(error, source_line);
}

std::string format_diagnostic(const ConfigError& error, std::string_view source_text) {
  std::optional<std::string> source_line;
  if (error.where().line > 0) source_line = nth_line(source_text, error.where().line);
  return render(error, source_line);
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  const size_t limit = std::min<size_t>(3, std::max<size_t>(1, word.size() / 3));
  const std::string lowered = text::to_lower(word);
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    size_t distance = edit_distance(lowered, text::to_lower(candidate));
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace linksim
