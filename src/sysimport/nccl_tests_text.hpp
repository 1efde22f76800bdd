// SPDX-License-Identifier: Apache-2.0
// Internal pieces of the nccl-tests output reader: source lines, whitespace tokens with their
// columns, the header reader (nccl_tests_header.cpp), the collective and rank count worked
// out from a table itself (nccl_tests_infer.cpp), used by nccl_tests_parser.cpp.
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

/// The canonical name of a collective spelled any way parse_collective() accepts
/// ("all_reduce_perf" -> "allreduce"); nullopt for other words.
std::optional<std::string> collective_key(std::string_view name);

/// The first "<name>_perf" naming a collective in `lines`, canonical (all_reduce_perf ->
/// "allreduce"); nullopt when none does.
std::optional<std::string> collective_from_text(std::span<const SourceLine> lines);
/// The number of ranks nccl-tests' "#  Rank N ..." device lines in `lines` list.
std::optional<int> ranks_from_device_lines(std::span<const SourceLine> lines);

/// Reads the "# key: value" header into table.header and table.env, and sets
/// table.collective and table.ranks when the header states them (else "" and 0).
/// Returns the index in `lines` of the first line after the header.
/// Throws ConfigError for an unknown collective or a non-integer gpus_per_node / nodes.
size_t read_header(const std::vector<SourceLine>& lines, NcclTestsTable& table);

/// Where a table's collective and rank count may be read when its header does not say: the
/// text before the table (since the previous table), the whole file, the caller's choice.
struct TableContext {
  std::span<const SourceLine> region;
  std::span<const SourceLine> file_lines;
  const NcclTestsReadOptions* options = nullptr;
  const NcclTestsTable* previous = nullptr;  ///< the table before it in the file, if any
};

/// Completes table.collective and table.ranks (and their sources), each from the first that
/// says: the header (already read), the binary name or "#  Rank N" lines before the table, the
/// previous table, anywhere in the file, options.collective, and the table's own rows
/// (busbw/algbw with the redop and root columns; docs/calibration.md#pasted-tables).
/// Throws ConfigError at the row it read (or the file's last line) when the collective is
/// ambiguous (naming the choices) or cannot be told, or the rank count cannot be told.
void complete_table(NcclTestsTable& table, const TableContext& context);

/// nccl-tests' JSON output (-J FILE; nccl-tests src/util.cu) as one table. Throws
/// ConfigError at the line and column of a syntax error or of the document for a missing key.
NcclTestsTable parse_json_output(std::string_view text, const std::string& filename);

}  // namespace linksim::nccl_tests
