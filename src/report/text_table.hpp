// SPDX-License-Identifier: Apache-2.0
// A column-aligned text table for the planner's renderings: a header row, then rows of
// cells; each column left- or right-aligned to its widest cell.
#pragma once

#include <string>
#include <vector>

namespace linksim::report_text {

class TextTable {
 public:
  /// A header of empty cells is not printed (key-value tables).
  /// `right_aligned[i]` aligns column i to the right (numbers); missing entries mean left.
  TextTable(std::vector<std::string> header, std::vector<bool> right_aligned);
  void add_row(std::vector<std::string> cells);
  /// Every line prefixed by `indent`, columns two spaces apart, no trailing spaces, '\n'
  /// after every line. Cells are counted in code points, so "×" and "→" align.
  std::string render(const std::string& indent = "") const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace linksim::report_text
