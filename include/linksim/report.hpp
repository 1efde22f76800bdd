// SPDX-License-Identifier: Apache-2.0
// The result model of a collective run and its renderings: an nccl-tests-like text table,
// JSON, CSV and a side-by-side busbw comparison. Rendering only: no computation beyond
// unit conversion and the footer average.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/nccl_tests.hpp"
#include "linksim/topology.hpp"

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
  std::string bottleneck;  ///< the limiting link or resource in words (describe_bottleneck)
  /// The range a measurement is expected in, from the validation residuals of this row's
  /// mechanism and machine class (linksim/error_bands.hpp): time_low_s <= time_s <= time_high_s.
  /// Zero when unknown (measured rows).
  double time_low_s = 0, time_high_s = 0;
  std::string confidence = {};  ///< "validated" or "extrapolated"; empty for measured rows
};

/// A collective swept over message sizes on one topology.
struct CollectiveReport {
  std::string topology;            ///< topology name (or file stem)
  std::string collective;          ///< canonical name: see canonical_collective_name()
  int ranks = 0;                   ///< number of participating GPUs
  std::string mode;                ///< "flow" or "analytic"
  std::string nccl_version;        ///< the NCCL release modelled, "2.29"; empty when measured
  std::vector<std::string> notes;  ///< one-line remarks printed above the table
  std::vector<CollectiveRow> rows;
};

/// A bottleneck in words, as every report prints it:
///   kNone         "none (a single rank moves no data)"
///   kLink         "gpu0->nvswitch0 (nvlink4 x5) [nvlink]" (without " [family]" when
///                 !name_family); PCIe and NVLink links show their width
///   kHostStaging  "host-staged copy gpu0->gpu1 (SHM, no P2P)", "(SHM across the socket
///                 link, no P2P)" when it crosses sockets
///   kNvls         "NVLink of each GPU into the NVSwitches (450 GB/s, NVLS)"
///   kServerNics   "server NICs (400 GB/s per server)", or "(all-to-all across servers)"
///   kP2pChannels  "channels of a 1 MiB send over NVLink (NCCL spreads small sends over few
///                 channels)"
/// Rates in GB/s (1e9 bytes/s) without decimals; sizes as format_size prints them.
/// REQUIRES: the bottleneck's link and devices belong to `topology`.
std::string describe_bottleneck(const Bottleneck& bottleneck, const Topology& topology);
/// The same for a result's bottleneck (what CollectiveRow::bottleneck holds).
std::string describe_bottleneck(const CollectiveResult& result, const Topology& topology);

/// The render model of a sweep run on `topology` (the communicator's): the topology's name,
/// the canonical collective name, the mode, and per row the names of the resolved algorithm
/// and protocol and the bottleneck in words.
CollectiveReport to_collective_report(const CollectiveSweep& sweep, const Topology& topology);

/// Maps the spellings people use to the canonical name: "all_reduce", "AllReduce",
/// "all-reduce", "allreduce" and nccl-tests' binary name "all_reduce_perf" all give
/// "allreduce" (parse_collective, one table: collective_names()). Returns nullopt for
/// anything else.
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

/// What nccl-tests prints above its table beyond the rows: the sweep and one line per rank.
struct NcclTestsDeviceLine {
  int rank = 0;
  std::string host;      ///< "host<h>": the rank's server
  int device = 0;        ///< its GPU index in the server (nvidia-smi numbering)
  std::string gpu_name;  ///< the catalog's GPU name ("NVIDIA H100 SXM5 80GB")
};
struct NcclTestsPreamble {
  double min_bytes = 0;  ///< -b, as requested
  double max_bytes = 0;  ///< -e, as requested
  double step_factor = 2;   ///< -f; 1 = the sweep steps by step_bytes
  int gpus_per_thread = 1;  ///< nccl-tests' -g
  std::vector<NcclTestsDeviceLine> devices;
  double step_bytes = 1048576;  ///< -i, printed when step_factor is 1 (nccl-tests' default)
};

/// The device lines of `ranks` (a communicator's ranks, in rank order) on `topology`.
std::vector<NcclTestsDeviceLine> nccl_tests_devices(const Topology& topology,
                                                    const std::vector<DeviceId>& ranks);

/// nccl-tests' own output (nccl-tests src/common.cu), for tools that parse its logs:
///   "# linksim prediction of <ranks> ranks on <topology>, mode <mode>; nccl-tests format"
///   "# Collective test starting: <binary>"          (all_reduce_perf, ...)
///   "# nThread 1 nGpus <g> minBytes <b> maxBytes <e> step: <f>(factor) warmup iters: 0
///    (step: <i>(bytes) when the factor is 1)
///    iters: 1 agg iters: 1 validation: 0 graph: 0"
///   "#", "# Using devices", one "#  Rank %2d Group  0 Pid      0 on %10s device %2d
///   [0000:00:00] <gpu>" line per rank (Pid and bus id are placeholders), "#"
///   the column-group line (out-of-place, in-place), the column header "size count type
///   redop root time algbw busbw #wrong time algbw busbw #wrong" and the units line, in
///   nccl-tests' widths ("%12li  %12li  %8s  %6s  %6i", then per group "  %7s  %6.2f
///   %6.2f  %6s")
///   one line per row; the in-place group repeats the out-of-place prediction; #wrong "N/A"
///   "# Out of bounds values : 0 OK", "# Avg bus bandwidth    : <mean busbw, %g>", "#",
///   "# Collective test concluded: <binary>"
/// No trailing spaces; '\n' after every line.
std::string render_nccl_tests(const CollectiveReport& report, const NcclTestsPreamble& preamble);

/// busbw (GB/s) per message size, one column per report, for comparing topologies:
///   "# busbw (GB/s, GB = 1e9 bytes/s) by message size"
///   "#         size  <topology 1>  <topology 2> ..."     (column label: the topology name)
///   "#          (B)  <coll xN>     <coll xN> ..."         (collective and ranks per column)
///   one line per distinct size over all reports, ascending; "-" where a report has no row.
/// Duplicate sizes within one report: the first row wins. Returns just the title line and
/// headers for an empty list.
std::string render_side_by_side(const std::vector<CollectiveReport>& reports);

/// render_side_by_side, then per report with rows one line naming what limits its largest
/// size: "# <topology>: <ranks> ranks; at <size>: <algorithm> <protocol>, limited by <bottleneck>"
/// (size as format_size prints it).
std::string render_comparison(const std::vector<CollectiveReport>& reports);

}  // namespace linksim
