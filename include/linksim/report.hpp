// SPDX-License-Identifier: Apache-2.0
// The result model of a collective run and its renderings: an nccl-tests-like text table,
// JSON, CSV and a side-by-side busbw comparison. Rendering only: no computation beyond
// unit conversion and the footer average.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linksim {

/// One message size of one collective, in SI units. Filled by the collective engine.
struct CollectiveRow {
  double size_bytes = 0;   ///< nccl-tests' "size" column: max(send, receive) bytes per rank
  double count = 0;        ///< elements of `type` (nccl-tests' "count" column)
  std::string type;        ///< element type as nccl-tests names it: "float", "half", "bfloat16"
  std::string redop;       ///< "sum", "none" (no reduction), ...
  int root = -1;           ///< root rank; -1 for collectives without a root (nccl-tests prints -1)
  double time_s = 0;       ///< predicted completion time
  double algbw_Bps = 0;    ///< size_bytes / time_s
  double busbw_Bps = 0;    ///< algbw_Bps * busbw_factor(collective, ranks)
  std::string algorithm;   ///< "ring", "tree", "nvls", ...
  std::string protocol;    ///< "ll", "ll128", "simple"
  std::string bottleneck;  ///< the limiting link or resource, free text ("gpu0->nvswitch0")
};

/// A collective swept over message sizes on one topology.
struct CollectiveReport {
  std::string topology;            ///< topology name (or file stem)
  std::string collective;          ///< canonical name: see canonical_collective_name()
  int ranks = 0;                   ///< number of participating GPUs
  std::string mode;                ///< "flow" or "analytic"
  std::vector<std::string> notes;  ///< one-line remarks printed above the table
  std::vector<CollectiveRow> rows;
};

/// The canonical collective names (docs/cli.md#linksim-coll).
inline constexpr std::string_view kCollectiveNames[] = {
    "allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "sendrecv"};

/// Maps the spellings people use to the canonical name: "all_reduce", "AllReduce",
/// "all-reduce", "allreduce" and nccl-tests' binary name "all_reduce_perf" all give
/// "allreduce". Returns nullopt for anything that is not one of kCollectiveNames.
std::optional<std::string> canonical_collective_name(std::string_view name);

/// nccl-tests' bus-bandwidth factor, busbw = algbw * factor, for `ranks` GPUs
/// (source: nccl-tests doc/PERFORMANCE.md and src/*.cu *GetBw(),
/// https://github.com/NVIDIA/nccl-tests/blob/a0b82b2260cf5152b9f8c061bbf7eaf0ba096432/doc/PERFORMANCE.md;
/// docs/cli.md#bus-bandwidth):
///   allreduce 2(n-1)/n; allgather, reducescatter, alltoall (n-1)/n;
///   broadcast, reduce, sendrecv 1.
/// Accepts any spelling canonical_collective_name() accepts.
/// Throws ConfigError for an unknown collective or ranks < 1.
double busbw_factor(std::string_view collective, int ranks);

/// nccl-tests' time column text for a time in microseconds: "%7.0f" from 10000 us up,
/// "%7.1f" from 100 us, else "%7.2f" (nccl-tests src/common.cu). Width 7, right-aligned.
std::string format_nccl_time_us(double time_us);

/// The nccl-tests-style table. Layout, one line each, no trailing spaces, '\n' after every
/// line:
///   "# linksim <collective>: <ranks> ranks on <topology>, mode <mode>"
///   "# note: <note>"                                  (one per note)
///   "#"
///   two column-header lines: size count type redop root time algbw busbw algorithm
///   protocol bottleneck, with units "(B)", "(elements)", "(us)", "(GB/s)"
///   one line per row: numbers right-aligned in nccl-tests' widths (size %12, count %12,
///   type %8, redop %6, root %6, time per format_nccl_time_us, algbw and busbw %6.2f in
///   GB/s = 1e9 bytes/s), then algorithm, protocol (left-aligned) and bottleneck
///   "# Avg bus bandwidth    : <mean busbw in GB/s, %g>"  (omitted when there are no rows)
std::string render_text(const CollectiveReport& report);

/// One JSON object (a contract, docs/cli.md#json-output):
///   {"topology", "collective", "ranks", "mode", "notes": [..], "results": [{"size_bytes",
///    "count", "type", "redop", "root", "time_us", "algbw_GBps", "busbw_GBps", "algorithm",
///    "protocol", "bottleneck"}]}
/// size_bytes and count are integers when integral; times and bandwidths are rounded to 10
/// significant digits. Pretty-printed with 2-space indent, followed by '\n'.
std::string render_json(const CollectiveReport& report);

/// CSV (RFC 4180 quoting) with the header row
///   topology,collective,ranks,mode,size_bytes,count,type,redop,root,time_us,algbw_GBps,
///   busbw_GBps,algorithm,protocol,bottleneck
/// and one line per row; times and bandwidths with 10 significant digits. Lines end with '\n'.
std::string render_csv(const CollectiveReport& report);

/// busbw (GB/s) per message size, one column per report, for comparing topologies:
///   "# busbw (GB/s, GB = 1e9 bytes/s) by message size"
///   "#         size  <topology 1>  <topology 2> ..."     (column label: the topology name)
///   "#          (B)  <coll xN>     <coll xN> ..."         (collective and ranks per column)
///   one line per distinct size over all reports, ascending; "-" where a report has no row.
/// Duplicate sizes within one report: the first row wins. Returns just the title line and
/// headers for an empty list.
std::string render_side_by_side(const std::vector<CollectiveReport>& reports);

}  // namespace linksim
