// SPDX-License-Identifier: Apache-2.0
// Reading published nccl-tests output (all_reduce_perf and friends) into rows of numbers,
// for calibration against real machines (data/validation/nccl-tests/ holds published tables).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/collective_rows.hpp"

namespace linksim {

/// One timing of one size: time and bandwidths as nccl-tests printed them.
struct NcclTestsTiming {
  double time_us = 0;
  double algbw_GBps = 0;  ///< GB = 1e9 bytes
  double busbw_GBps = 0;
};

/// One data row. Columns an author trimmed away are empty / nullopt.
struct NcclTestsRow {
  double size_bytes = 0;        ///< "size" column, bytes ("33_554_432" and "32M" accepted)
  std::optional<double> count;  ///< "count" column (elements); nullopt when trimmed
  std::string type;             ///< "float", "double", ...; empty when trimmed
  std::string redop;            ///< "sum", "none", ...; empty when trimmed
  std::optional<int> root;      ///< nullopt for tables without a root column (pre-2020)
  double time_us = 0;           ///< out-of-place
  double algbw_GBps = 0;        ///< out-of-place
  double busbw_GBps = 0;        ///< out-of-place
  std::optional<NcclTestsTiming> in_place;  ///< nullopt when the table has no in-place group
  int line = 0;                             ///< 1-based line in the source file
};

/// A parsed output file. A file is an optional header of "# key: value" lines (system, gpu,
/// gpus_per_node, nodes, collective, env, command, ...), ended by a "# ----" line or by the
/// first other line, then free text as published (prose, ``` fences, command lines,
/// nccl-tests' own "#" comment lines) containing one table: a column-header line naming at
/// least size, time, algbw and busbw, then data rows up to the first line that is not one.
struct NcclTestsTable {
  std::string file;                           ///< as given to the parser, for messages
  std::map<std::string, std::string> header;  ///< key (text before any "(" or ":") -> value
  /// Canonical name (see canonical_collective_name): from the "collective" header, else
  /// from the first "<name>_perf" in the text, else NcclTestsReadOptions::collective, else
  /// from the rows themselves (busbw/algbw with the redop and root columns).
  std::string collective;
  /// Where `collective` came from: "the header", "the binary name", "the caller",
  /// "busbw/algbw and redop".
  std::string collective_source;
  /// gpus_per_node * nodes from the header; without them, the number of "#  Rank N" device
  /// lines nccl-tests prints; without those, what busbw/algbw implies (AllReduce
  /// 2(n-1)/n; AllGather, ReduceScatter, AllToAll (n-1)/n).
  int ranks = 0;
  /// Where `ranks` came from: "the header", "the device lines", "the device list" (JSON),
  /// "busbw/algbw".
  std::string ranks_source;
  /// NAME=value words of the "env" header (NCCL_P2P_DISABLE=1 ...); other words are ignored.
  std::map<std::string, std::string> env;
  std::vector<NcclTestsRow> rows;  ///< in file order; may be empty for a header-only table
  /// GPUs one process drove (nccl-tests' "nGpus N" / -g N), whose launches serialize;
  /// 0 when the output does not say.
  int gpus_per_thread = 0;
  /// NCCL_VERSION_CODE of the library the run used (2.29.2 = 22902), from nccl-tests' preamble
  /// "# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902" (nccl-tests 2.13 and
  /// later), else from a calibration header "nccl_version: 2.16.2 ..." whose value opens with
  /// a release; 0 when neither says.
  int nccl_version_code = 0;
  /// Where nccl_version_code came from: "nccl-library=22902" or "the header"; empty with it 0.
  std::string nccl_version_source;
};

/// What the caller knows about an output that its text may not say.
struct NcclTestsReadOptions {
  /// The collective of tables whose text names none (any spelling parse_collective()
  /// accepts); empty = work it out from the rows. A table whose text names another
  /// collective is refused.
  std::string collective;
};

/// Parses nccl-tests output text; `filename` names it in error messages.
/// Throws ConfigError at file:line:col for: binary data ("expected text ..."), no table (at
/// the first line when nothing in the text is nccl-tests', else at the last line), a data row with a different number of fields than the column header, a
/// field that is not a number where one is expected, an unknown collective, a non-integer
/// gpus_per_node/nodes, or no way to tell the collective (or several collectives fit the
/// rows: the message names them) or the number of ranks.
NcclTestsTable parse_nccl_tests_output(std::string_view text, const std::string& filename,
                                       const NcclTestsReadOptions& options = {});

/// Reads and parses a file. Throws ConfigError when it cannot be read or does not parse.
NcclTestsTable load_nccl_tests_output(const std::string& path,
                                      const NcclTestsReadOptions& options = {});

/// Every table of an output as people paste it: text with or without launcher prefixes
/// ("[1,0]<stdout>:" from mpirun --tag-output, "0: " from srun --label), several runs one
/// after another (each table takes its collective, ranks and nGpus from the text since the
/// previous table, else from the table before it), data rows without any column header
/// (their layout told by their fields: size count type redop [root] and one or two groups of
/// time algbw busbw #wrong), or nccl-tests' JSON output (-J FILE:
/// collective from args[0], ranks from devices, env from env). Throws ConfigError as
/// parse_nccl_tests_output does; JSON errors at the offending line and column.
std::vector<NcclTestsTable> parse_nccl_tests_outputs(std::string_view text,
                                                     const std::string& filename,
                                                     const NcclTestsReadOptions& options = {});
/// Reads and parses every table of a file.
std::vector<NcclTestsTable> load_nccl_tests_outputs(const std::string& path,
                                                    const NcclTestsReadOptions& options = {});

/// The measured out-of-place rows as a CollectiveReport (times in seconds, bandwidths in
/// bytes/s, algorithm "measured"), so measurements can be rendered or shown side by side
/// with predictions. `label` becomes the report's topology name; mode is "measured".
CollectiveReport to_collective_report(const NcclTestsTable& table, const std::string& label);

}  // namespace linksim
