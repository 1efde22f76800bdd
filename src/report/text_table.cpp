// SPDX-License-Identifier: Apache-2.0
#include "report/text_table.hpp"

#include <algorithm>

#include "report/text_lines.hpp"

namespace linksim::report_text {
namespace {

// UTF-8 code points: continuation bytes (10xxxxxx) do not start a character.
size_t display_width(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right_aligned)
    : header_(std::move(header)), right_(std::move(right_aligned)) {
  right_.resize(header_.size(), false);
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render(const std::string& indent) const {
  std::vector<size_t> width(header_.size(), 0);
  auto widen = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) width[i] = std::max(width[i], display_width(cells[i]));
  };
  widen(header_);
  for (const auto& row : rows_) widen(row);

  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line = indent;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) line += "  ";
      const std::string pad(width[i] - display_width(cells[i]), ' ');
      line += right_[i] ? pad + cells[i] : cells[i] + pad;
    }
    append_line(out, line);
  };
  const bool has_header =
      std::any_of(header_.begin(), header_.end(), [](const std::string& h) { return !h.empty(); });
  if (has_header) emit(header_);
  for (const auto& row : rows_) emit(row);
  return out;
}

}  // namespace linksim::report_text
