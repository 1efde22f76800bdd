// SPDX-License-Identifier: Apache-2.0
// The renderings of a collective's rows (linksim/collective_rows.hpp): an nccl-tests-like
// text table, JSON, CSV and a side-by-side busbw comparison. Rendering only: no computation
// beyond unit conversion and the footer average.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/collective_rows.hpp"
#include "linksim/error_bands.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/topology.hpp"

namespace linksim {

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
