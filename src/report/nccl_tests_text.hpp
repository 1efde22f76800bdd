// SPDX-License-Identifier: Apache-2.0
// Internal pieces of the nccl-tests output parser: source lines, whitespace tokens with their
// columns, and the header reader (nccl_tests_header.cpp) used by nccl_tests_parser.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "linksim/nccl_tests_output.hpp"

namespace linksim::nccl_tests {

/// One line of the input without its line terminator ("\n" or "\r\n").
struct SourceLine {
  std::string_view text;
  int number = 0;  ///< 1-based
};

/// A whitespace-separated word and where it starts.
struct Token {
  std::string_view text;
  int column = 0;  ///< 1-based byte column in its line
};

std::vector<SourceLine> split_lines(std::string_view text);
std::vector<Token> tokenize(std::string_view line);

/// Reads the "# key: value" header into table.header and table.env, and sets
/// table.collective and table.ranks (from the header, else from the raw text).
/// Returns the index in `lines` of the first line after the header.
/// Throws ConfigError as documented on parse_nccl_tests_output().
size_t read_header(const std::vector<SourceLine>& lines, NcclTestsTable& table);

}  // namespace linksim::nccl_tests
