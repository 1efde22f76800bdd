// SPDX-License-Identifier: Apache-2.0
// A collective's rows as self-contained data: names resolved, the bottleneck in words, the
// error band attached. Predictions (to_collective_report, linksim/error_bands.hpp), measured
// tables and scenario cases hold them; src/report/ renders them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/topology.hpp"

namespace linksim {

/// One message size of one collective, in SI units, with its names resolved and its
/// bottleneck in words: what every collective renderer reads (linksim/report.hpp). Filled by
/// to_collective_report (linksim/error_bands.hpp) from a sweep, or from a measured table.
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

}  // namespace linksim
