// SPDX-License-Identifier: Apache-2.0
// A positioned parser for `nvidia-smi topo -m` as real drivers print it.
//
// The table is found, not assumed: the first line whose first field is "GPU0" and whose second
// is not "X" is the header (a row would have X there). Fields are separated by runs of blanks
// (tabs or spaces), so tab-separated copies with empty fields, aligned copies and trailing
// blanks all read alike. No value nvidia-smi prints contains a blank except the three affinity
// headers, which are matched as phrases.
#include "sysimport/nvidia_smi_parser.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

#include "linksim/input_file.hpp"
#include "sysimport/import_defaults.hpp"

namespace linksim::sysimport {

std::optional<SmiCell> parse_cell_code(std::string_view text) {
  if (text == "X") return SmiCell{PathClass::kSelf, 0};
  if (text == "PIX") return SmiCell{PathClass::kPix, 0};
  if (text == "PXB") return SmiCell{PathClass::kPxb, 0};
  if (text == "PHB") return SmiCell{PathClass::kPhb, 0};
  if (text == "NODE") return SmiCell{PathClass::kNode, 0};
  if (text == "SYS") return SmiCell{PathClass::kSys, 0};
  if (text.size() < 3 || text.size() > 4 || text.substr(0, 2) != "NV") return std::nullopt;
  int count = 0;
  for (char c : text.substr(2)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    count = count * 10 + (c - '0');
  }
  if (count == 0) return std::nullopt;
  return SmiCell{PathClass::kNvlink, count};
}

}  // namespace linksim::sysimport

namespace linksim {

using sysimport::kCellCodes;
using sysimport::parse_cell_code;

std::string SmiCell::label() const {
  if (cls == PathClass::kNvlink) return fmt::format("NV{}", nvlinks);
  return std::string(to_string(cls));
}

int SmiMatrix::count(DeviceKind kind) const {
  int n = 0;
  for (const SmiDevice& d : devices) n += d.kind == kind ? 1 : 0;
  return n;
}

namespace {

struct Token {
  std::string text;
  int column = 0;  // 1-based byte column
};

struct Line {
  int number = 0;  // 1-based
  std::vector<Token> tokens;
  int end_column = 1;  // column just past the last non-blank byte
};

// nvidia-smi writes terminal escape sequences when its output is a terminal (ESC[4m ... ESC[0m
// underlines the header), and a capture made with `script` or copied from a terminal keeps
// them. Each sequence becomes blanks of the same length, so tokens split where the escapes
// were and every column still counts the file's own bytes. Handled: CSI (ESC [ parameters,
// intermediates, final byte 0x40-0x7E), OSC (ESC ] ... BEL or ESC \) and two-byte ESC x.
std::string blank_terminal_escapes(std::string_view text) {
  constexpr char kEsc = '\x1b';
  std::string out(text);
  size_t i = 0;
  while ((i = out.find(kEsc, i)) != std::string::npos) {
    size_t end = i + 1;
    if (end < out.size() && out[end] == '[') {
      ++end;
      while (end < out.size() && out[end] >= 0x20 && out[end] <= 0x3f) ++end;
      if (end < out.size() && out[end] >= 0x40 && out[end] <= 0x7e) ++end;
    } else if (end < out.size() && out[end] == ']') {
      while (end < out.size() && out[end] != '\a' && out[end] != '\n' &&
             !(out[end] == kEsc && end + 1 < out.size() && out[end + 1] == '\\')) {
        ++end;
      }
      if (end < out.size() && out[end] == '\a') end += 1;
      else if (end < out.size() && out[end] == kEsc) end += 2;
    } else if (end < out.size() && out[end] != '\n') {
      ++end;
    }
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(i),
              out.begin() + static_cast<std::ptrdiff_t>(end), ' ');
    i = end;
  }
  return out;
}

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  size_t start = 0;
  int number = 1;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(start, end - start);
    Line line;
    line.number = number++;
    size_t i = 0;
    while (i < raw.size()) {
      while (i < raw.size() && std::isspace(static_cast<unsigned char>(raw[i]))) ++i;
      if (i >= raw.size()) break;
      size_t j = i;
      while (j < raw.size() && !std::isspace(static_cast<unsigned char>(raw[j]))) ++j;
      line.tokens.push_back({std::string(raw.substr(i, j - i)), static_cast<int>(i) + 1});
      line.end_column = static_cast<int>(j) + 1;
      i = j;
    }
    lines.push_back(std::move(line));
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

// The affinity column headers, as phrases of blank-separated words.
constexpr std::array<std::array<std::string_view, 3>, 3> kAffinityHeaders = {{
    {"CPU", "Affinity", ""},
    {"NUMA", "Affinity", ""},
    {"GPU", "NUMA", "ID"},
}};

// Index into kAffinityHeaders of the phrase starting at tokens[i], and its word count.
std::optional<std::pair<int, size_t>> match_affinity(const std::vector<Token>& tokens, size_t i) {
  for (size_t h = 0; h < kAffinityHeaders.size(); ++h) {
    size_t words = 0;
    bool ok = true;
    for (std::string_view word : kAffinityHeaders[h]) {
      if (word.empty()) break;
      if (i + words >= tokens.size() || tokens[i + words].text != word) {
        ok = false;
        break;
      }
      ++words;
    }
    if (ok) return std::pair{static_cast<int>(h), words};
  }
  return std::nullopt;
}

bool is_gpu_label(std::string_view label) {
  if (label.size() < 4 || label.substr(0, 3) != "GPU") return false;
  for (char c : label.substr(3)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::optional<size_t> find_header(const std::vector<Line>& lines, size_t from) {
  for (size_t i = from; i < lines.size(); ++i) {
    const auto& t = lines[i].tokens;
    if (!t.empty() && t[0].text == "GPU0" && (t.size() == 1 || t[1].text != "X")) return i;
  }
  return std::nullopt;
}

struct Header {
  std::vector<int> affinity;  // kAffinityHeaders index of each affinity column, in order
};

Header parse_header(const Line& line, const std::string& file, SmiMatrix& out) {
  Header header;
  int gpus = 0;
  int nics = 0;
  for (size_t i = 0; i < line.tokens.size();) {
    const Token& token = line.tokens[i];
    SourceLocation where{file, line.number, token.column};
    if (auto phrase = match_affinity(line.tokens, i)) {
      header.affinity.push_back(phrase->first);
      i += phrase->second;
      continue;
    }
    if (!header.affinity.empty()) {
      throw ConfigError(where, fmt::format("expected an affinity column (CPU Affinity, NUMA "
                                           "Affinity or GPU NUMA ID), got '{}'", token.text));
    }
    SmiDevice device;
    device.label = token.text;
    device.where = where;
    if (is_gpu_label(token.text)) {
      std::string expected = fmt::format("GPU{}", gpus);
      if (nics > 0 || token.text != expected) {
        throw ConfigError(where, fmt::format("expected column {}, got '{}'",
                                             nics > 0 ? "NIC" + std::to_string(nics) : expected,
                                             token.text));
      }
      device.index = gpus++;
    } else {
      device.kind = DeviceKind::kNic;
      device.index = nics++;
      if (token.text.rfind("NIC", 0) != 0) {  // pre-legend drivers: the column is the name
        if (!sysimport::is_plain_nic_name(token.text)) {
          throw ConfigError(where, fmt::format("expected a NIC name of letters, digits, '_', "
                                               "'.' and '-' (such as mlx5_0), got \"{}\"",
                                               token.text));
        }
        device.port_name = token.text;
      }
    }
    out.devices.push_back(std::move(device));
    ++i;
  }
  out.has_nic_columns = nics > 0;
  return header;
}

std::string describe_fields(const SmiMatrix& m, const Header& header, bool with_affinity) {
  std::string text = fmt::format("{} cells", m.devices.size());
  if (!with_affinity) return text;
  for (int h : header.affinity) {
    text += ", ";
    for (std::string_view word : kAffinityHeaders[size_t(h)]) {
      if (word.empty()) break;
      if (text.back() != ' ') text += ' ';
      text += word;
    }
  }
  return text;
}

// A NUMA node number, as nvidia-smi prints it: digits up to Linux's largest node id (1023:
// MAX_NUMNODES = 2^CONFIG_NODES_SHIFT, at most 2^10). Other text ("N/A") is kept as written.
void check_numa_id(const Token& token, SourceLocation where) {
  constexpr long kMaxNumaNode = 1023;
  const std::string& text = token.text;
  if (text.empty() || !std::all_of(text.begin(), text.end(), ::isdigit)) return;
  long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size() && value <= kMaxNumaNode) return;
  where.column = token.column;
  throw ConfigError(where, fmt::format("expected a NUMA node between 0 and {} or N/A, got '{}'",
                                       kMaxNumaNode, text));
}

void check_row_width(const Line& line, const SmiDevice& device, const Header& header,
                     const SmiMatrix& m, const std::string& file) {
  const size_t n = m.devices.size();
  const size_t fields = line.tokens.size() - 1;
  const size_t full = n + header.affinity.size();
  // NIC rows carry no affinity values; GPU rows carry all of them.
  if (fields == full || (device.kind == DeviceKind::kNic && fields == n)) return;
  const bool with_affinity = device.kind == DeviceKind::kGpu || fields > n;
  const size_t expected = with_affinity ? full : n;
  const int column =
      fields > expected ? line.tokens[expected + 1].column : line.end_column;
  throw ConfigError({file, line.number, column},
                    fmt::format("ragged row {}: expected {} fields ({}), got {}", device.label,
                                expected, describe_fields(m, header, with_affinity), fields));
}

void parse_row(const Line& line, size_t row, const Header& header, const std::string& file,
               SmiMatrix& m) {
  SmiDevice& device = m.devices[row];
  device.where = {file, line.number, line.tokens[0].column};
  check_row_width(line, device, header, m, file);
  const size_t n = m.devices.size();
  for (size_t col = 0; col < n; ++col) {
    const Token& token = line.tokens[col + 1];
    SourceLocation where{file, line.number, token.column};
    auto cell = parse_cell_code(token.text);
    if (!cell) {
      throw ConfigError(where, fmt::format("expected a cell code ({}), got '{}'", kCellCodes,
                                           token.text));
    }
    if ((row == col) != (cell->cls == PathClass::kSelf)) {
      throw ConfigError(where, row == col
          ? fmt::format("expected X on the diagonal of row {}, got '{}'", device.label, token.text)
          : fmt::format("expected a path class between {} and {}, got 'X'", device.label,
                        m.devices[col].label));
    }
    m.cells[row][col] = *cell;
    m.cell_where[row][col] = where;
  }
  for (size_t k = 0; k + n + 1 < line.tokens.size(); ++k) {
    const std::string& value = line.tokens[k + n + 1].text;
    switch (header.affinity[k]) {
      case 0: device.cpu_affinity = value; break;
      case 1: device.numa_affinity = value; break;
      default: device.gpu_numa_id = value; break;
    }
    if (header.affinity[k] != 0) check_numa_id(line.tokens[k + n + 1], {file, line.number, 0});
    if (header.affinity[k] == 0 && value != "N/A" &&
        value.find_first_not_of("0123456789,-") != std::string::npos) {
      throw ConfigError({file, line.number, line.tokens[k + n + 1].column},
                        fmt::format("expected a CPU affinity such as 0-47,96-143 or N/A, got "
                                    "\"{}\"", value));
    }
  }
}

void check_symmetric(const SmiMatrix& m) {
  for (size_t r = 0; r < m.devices.size(); ++r) {
    for (size_t c = 0; c < r; ++c) {
      if (m.cells[r][c] == m.cells[c][r]) continue;
      throw ConfigError(m.cell_where[r][c],
                        fmt::format("expected {} (as {}-{}), got '{}'", m.cells[c][r].label(),
                                    m.devices[c].label, m.devices[r].label,
                                    m.cells[r][c].label()));
    }
  }
}

// "NIC0: mlx5_0" lines after the table, up to the next table header.
void read_nic_legend(const std::vector<Line>& lines, size_t from, SmiMatrix& m) {
  const size_t stop = find_header(lines, from).value_or(lines.size());
  for (size_t i = from; i < stop; ++i) {
    const auto& t = lines[i].tokens;
    if (t.size() != 2 || t[0].text.empty() || t[0].text.back() != ':') continue;
    std::string label = t[0].text.substr(0, t[0].text.size() - 1);
    // The name becomes the NIC's port, a device-name field of the topology format.
    if (!sysimport::is_plain_nic_name(t[1].text)) {
      throw ConfigError({m.source, lines[i].number, t[1].column},
                        fmt::format("expected a NIC name of letters, digits, '_', '.' and '-' "
                                    "(such as mlx5_0), got \"{}\"", t[1].text));
    }
    for (SmiDevice& d : m.devices) {
      if (d.kind == DeviceKind::kNic && d.label == label) d.port_name = t[1].text;
    }
  }
}

}  // namespace

SmiMatrix parse_nvidia_smi_topo(std::string_view text, const std::string& filename) {
  const std::string plain = blank_terminal_escapes(text);
  const std::vector<Line> lines = split_lines(plain);
  const auto header_index = find_header(lines, 0);
  if (!header_index) {
    throw ConfigError({filename, 1, 1},
                      "expected an nvidia-smi topo -m table (a header row of GPU0.. columns), "
                      "found none");
  }
  SmiMatrix m;
  m.source = filename;
  const Header header = parse_header(lines[*header_index], filename, m);
  const size_t n = m.devices.size();
  m.cells.assign(n, std::vector<SmiCell>(n));
  m.cell_where.assign(n, std::vector<SourceLocation>(n));
  for (size_t row = 0; row < n; ++row) {
    const size_t index = *header_index + 1 + row;
    const std::string& label = m.devices[row].label;
    if (index >= lines.size() || lines[index].tokens.empty()) {
      const bool at_end = index >= lines.size() ||
                          (index + 1 == lines.size());  // text's final newline
      const int line_number = index < lines.size() ? lines[index].number
                                                   : lines.back().number + 1;
      throw ConfigError({filename, line_number, 1},
                        fmt::format("truncated table: expected row {}, got {}", label,
                                    at_end ? "end of input" : "a blank line"));
    }
    const Line& line = lines[index];
    if (line.tokens[0].text != label) {
      throw ConfigError({filename, line.number, line.tokens[0].column},
                        fmt::format("expected row {}, got '{}'", label, line.tokens[0].text));
    }
    parse_row(line, row, header, filename, m);
  }
  check_symmetric(m);
  read_nic_legend(lines, *header_index + 1 + n, m);
  return m;
}

SmiMatrix read_nvidia_smi_topo(const std::string& path) {
  return parse_nvidia_smi_topo(read_input_file(path), path);
}

}  // namespace linksim
