// SPDX-License-Identifier: Apache-2.0
// Internal pieces of the nccl-tests output parser: source lines, whitespace tokens with their
// columns, and the header reader (nccl_tests_header.cpp) used by nccl_tests_parser.cpp.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/nccl_tests_output.hpp"

namespace linksim::nccl_tests {

/// One line of the input without its line terminator ("\n" or "\r\n") and without a
/// launcher's prefix ("[1,0]<stdout>:" from mpirun --tag-output, "0: " from srun --label).
struct SourceLine {
  std::string_view text;
  int number = 0;         ///< 1-based
  int prefix_length = 0;  ///< bytes of the launcher prefix removed before `text`
};

/// A whitespace-separated word and where it starts.
struct Token {
  std::string_view text;
  int column = 0;  ///< 1-based byte column in its line
};

std::vector<SourceLine> split_lines(std::string_view text);
std::vector<Token> tokenize(std::string_view line);
/// The tokens of a source line, columns counted in the line as written (prefix included).
std::vector<Token> tokenize(const SourceLine& line);

/// The first "<name>_perf" naming a collective in `lines`, canonical (all_reduce_perf ->
/// "allreduce"); nullopt when none does.
std::optional<std::string> collective_from_text(std::span<const SourceLine> lines);
/// The number of ranks nccl-tests' "#  Rank N ..." device lines in `lines` list.
std::optional<int> ranks_from_device_lines(std::span<const SourceLine> lines);

/// Reads the "# key: value" header into table.header and table.env, and sets
/// table.collective and table.ranks (from the header, else from the raw text).
/// Returns the index in `lines` of the first line after the header.
/// Throws ConfigError as documented on parse_nccl_tests_output().
size_t read_header(const std::vector<SourceLine>& lines, NcclTestsTable& table);

/// nccl-tests' JSON output (-J FILE; nccl-tests src/util.cu) as one table. Throws
/// ConfigError at the line and column of a syntax error or of the document for a missing key.
NcclTestsTable parse_json_output(std::string_view text, const std::string& filename);

}  // namespace linksim::nccl_tests
