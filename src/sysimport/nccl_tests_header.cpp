// SPDX-License-Identifier: Apache-2.0
// The "# key: value" header of a calibration file and the collective and rank count it
// states; nccl-tests' own words for them (the binary name, the "#  Rank N" device lines).
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>

#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "sysimport/nccl_tests_text.hpp"

namespace linksim::nccl_tests {
namespace {

// Where a header value sits, for messages about it.
struct HeaderField {
  std::string_view value;
  int line = 0;
  int column = 0;
};

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Matches "# key: value" or "# key (remark): value"; the key is an identifier.
std::optional<std::pair<std::string_view, HeaderField>> match_header_line(const SourceLine& line) {
  const std::string_view text = line.text;
  if (text.size() < 3 || text.substr(0, 2) != "# " || !is_ident_start(text[2])) {
    return std::nullopt;
  }
  size_t pos = 2;
  while (pos < text.size() && is_ident_char(text[pos])) ++pos;
  const std::string_view key = text.substr(2, pos - 2);
  if (pos + 1 < text.size() && text[pos] == ' ' && text[pos + 1] == '(') {
    const size_t close = text.find(')', pos);
    if (close == std::string_view::npos) return std::nullopt;
    pos = close + 1;
  }
  if (pos >= text.size() || text[pos] != ':') return std::nullopt;
  if (pos + 1 < text.size() && text[pos + 1] != ' ') return std::nullopt;
  size_t value_start = pos + 1;
  while (value_start < text.size() && text[value_start] == ' ') ++value_start;
  size_t value_end = text.size();
  while (value_end > value_start && std::isspace(static_cast<unsigned char>(text[value_end - 1]))) {
    --value_end;
  }
  return std::make_pair(key, HeaderField{text.substr(value_start, value_end - value_start),
                                         line.number,
                                         static_cast<int>(value_start) + 1 + line.prefix_length});
}

// NAME=value words of the env header; prose words around them are not variables.
std::map<std::string, std::string> parse_env(std::string_view value) {
  std::map<std::string, std::string> env;
  for (const Token& token : tokenize(value)) {
    const size_t equals = token.text.find('=');
    if (equals == 0 || equals == std::string_view::npos || !is_ident_start(token.text[0])) continue;
    const std::string_view name = token.text.substr(0, equals);
    if (!std::all_of(name.begin(), name.end(), is_ident_char)) continue;
    env.emplace(std::string(name), std::string(token.text.substr(equals + 1)));
  }
  return env;
}

int parse_count_field(const HeaderField& field, std::string_view key, const std::string& file) {
  int value = 0;
  const std::string_view text = field.value;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1) {
    throw ConfigError({file, field.line, field.column},
                      fmt::format("expected a positive integer for '{}', got '{}'", key, text));
  }
  return value;
}

// The collective the header names; empty when it names none.
std::string header_collective(const std::map<std::string_view, HeaderField>& fields,
                              const std::string& file) {
  const auto it = fields.find("collective");
  if (it == fields.end()) return "";
  if (auto name = collective_key(it->second.value)) return *name;
  throw ConfigError({file, it->second.line, it->second.column},
                    fmt::format("expected a collective such as all_reduce or alltoall, got '{}'",
                                it->second.value));
}

// gpus_per_node x nodes from the header; 0 when it does not give both.
int header_ranks(const std::map<std::string_view, HeaderField>& fields, const std::string& file) {
  const auto per_node = fields.find("gpus_per_node");
  const auto nodes = fields.find("nodes");
  if (per_node == fields.end() || nodes == fields.end()) return 0;
  return parse_count_field(per_node->second, "gpus_per_node", file) *
         parse_count_field(nodes->second, "nodes", file);
}

}  // namespace

std::optional<std::string> collective_key(std::string_view name) {
  const std::optional<CollectiveOp> op = parse_collective(name);
  if (!op) return std::nullopt;
  return std::string(to_string(*op));
}

// The first "<name>_perf" in the text naming a collective, e.g. "./build/all_reduce_perf".
std::optional<std::string> collective_from_text(std::span<const SourceLine> lines) {
  constexpr std::string_view kSuffix = "_perf";
  for (const SourceLine& line : lines) {
    for (size_t at = line.text.find(kSuffix); at != std::string_view::npos;
         at = line.text.find(kSuffix, at + 1)) {
      size_t begin = at;
      while (begin > 0 && (std::isalpha(static_cast<unsigned char>(line.text[begin - 1])) ||
                           line.text[begin - 1] == '_')) {
        --begin;
      }
      if (auto name = collective_key(line.text.substr(begin, at - begin))) return name;
    }
  }
  return std::nullopt;
}

// nccl-tests lists one "#  Rank N ..." line per rank under "# Using devices".
std::optional<int> ranks_from_device_lines(std::span<const SourceLine> lines) {
  std::optional<int> ranks;
  for (const SourceLine& line : lines) {
    const std::vector<Token> tokens = tokenize(line);
    if (tokens.size() < 3 || tokens[0].text != "#" || tokens[1].text != "Rank") continue;
    int rank = 0;
    const std::string_view digits = tokens[2].text;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
    if (error == std::errc() && end == digits.data() + digits.size()) {
      ranks = std::max(ranks.value_or(0), rank + 1);
    }
  }
  return ranks;
}

size_t read_header(const std::vector<SourceLine>& lines, NcclTestsTable& table) {
  std::map<std::string_view, HeaderField> fields;
  size_t index = 0;
  for (; index < lines.size(); ++index) {
    if (lines[index].text.substr(0, 6) == "# ----") {
      ++index;
      break;
    }
    const auto field = match_header_line(lines[index]);
    if (!field) break;
    fields.insert_or_assign(field->first, field->second);
  }
  for (const auto& [key, field] : fields) {
    table.header.insert_or_assign(std::string(key), std::string(field.value));
  }
  if (const auto env = fields.find("env"); env != fields.end()) {
    table.env = parse_env(env->second.value);
  }
  table.collective = header_collective(fields, table.file);
  if (!table.collective.empty()) table.collective_source = "the header";
  table.ranks = header_ranks(fields, table.file);
  if (table.ranks > 0) table.ranks_source = "the header";
  return index;
}

}  // namespace linksim::nccl_tests
