// SPDX-License-Identifier: Apache-2.0
// nccl-tests' semantics as library calls: the data-type and reduction-op tables (-d, -o), the
// root (-r), the size sweep (-b, -e, -f), per-block sizing and count rounding, and one call
// that runs a whole sweep on a communicator. `linksim coll` prints exactly these rows
// (docs/cli.md#linksim-coll; nccl-tests src/common.cu, github.com/NVIDIA/nccl-tests).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/collectives.hpp"

namespace linksim {

/// An element type as nccl-tests names it in its type column.
struct DataType {
  std::string_view name;  ///< "float", "half", "bfloat16", "f8e4m3", ...
  int bytes = 0;          ///< bytes per element
  friend bool operator==(const DataType&, const DataType&) = default;
};

/// nccl-tests' default type (-d float).
inline constexpr DataType kFloat{"float", 4};

/// nccl-tests' types in its order: int8, uint8, int32, uint32, int64, uint64, half, float,
/// double, bfloat16, f8e4m3, f8e5m2 (nccl-tests src/common.cu, test_typenames).
std::span<const DataType> data_types();

/// nccl-tests' names, and the aliases people use: fp32 (float), fp16 (half), bf16
/// (bfloat16), fp64 (double), fp8 and fp8_e4m3 (f8e4m3), fp8_e5m2 (f8e5m2). Exact spelling;
/// nullopt for anything else.
std::optional<DataType> parse_data_type(std::string_view text);

/// Every name parse_data_type accepts: nccl-tests' names in its order, then the aliases.
std::vector<std::string> data_type_names();
/// data_type_names() joined with ", ", for messages and --help.
std::string data_type_choices();

/// nccl-tests' -o: the reduction. It names the redop column; it does not change the
/// predicted time (NCCL runs every op at the same bandwidth; docs/model.md#redop).
enum class ReductionOp { kSum, kProd, kMax, kMin, kAvg };

std::string_view to_string(ReductionOp op);  ///< "sum", "prod", "max", "min", "avg"
std::optional<ReductionOp> parse_reduction_op(std::string_view text);
/// "sum", "prod", "max", "min", "avg": what parse_reduction_op accepts.
std::vector<std::string> reduction_op_names();

/// Whether nccl-tests prints the reduction in the redop column of `op` (AllReduce,
/// ReduceScatter, Reduce and, as nccl-tests does, SendRecv); the others print "none".
bool prints_redop(CollectiveOp op);
/// Whether `op` has a root rank (Broadcast, Reduce); the others print root -1.
bool has_root(CollectiveOp op);

/// The most rows one sweep may have: a prediction and an output line each. nccl-tests' widest
/// common sweep (-b 8 -e 16G -f 2) has 32; -i 1M from 1 MiB to 8 GiB has 8192
/// (docs/units.md#bounds). SweepSpec::max_rows overrides it (`coll --max-rows`).
inline constexpr double kMaxSweepRows = 10000;

/// nccl-tests' sweep flags: -b MIN -e MAX, then -f FACTOR (an integer >= 2: MIN, MIN x FACTOR,
/// ... while <= MAX) or, with -f 1, -i STEP (MIN, MIN + STEP, ... while <= MAX), as nccl-tests'
/// TimeTest loop does (src/common.cu). Bytes.
struct SweepSpec {
  double min_bytes = 0;
  double max_bytes = 0;
  double factor = 2;                 ///< -f: an integer >= 2, or 1 to step by step_bytes
  double step_bytes = 1048576;       ///< -i: nccl-tests' default stepBytes, 1 MiB
  double max_rows = kMaxSweepRows;   ///< refuse a sweep with more rows than this
};

/// The sizes `spec` visits: MIN alone when MIN == MAX, or MIN == 0 with a factor. Every size
/// is an integer <= kMaxSizeBytes. The row count is checked before any size is listed.
/// Throws ConfigError:
/// "-b: expected a size >= 0, got X", "-e: expected a size of at most 8 PiB (2^53 bytes),
/// got X", "-b (MIN) is larger than -e (MAX)", "-f: expected an integer factor >= 2, or 1 to
/// step by -i, got F", "-i: expected a step of 1 to 2^53 whole bytes, got S",
/// "--max-rows: expected at least 1, got M" and "the sweep has N sizes; expected at most M
/// (--max-rows raises the limit)".
std::vector<double> sweep_sizes(const SweepSpec& spec);
/// The same with -f `factor` and nccl-tests' default -i.
std::vector<double> sweep_sizes(double min_bytes, double max_bytes, double factor);

/// A requested size rounded as nccl-tests rounds it: count = floor(bytes / type / blocks)
/// elements per block, size = count x type x blocks, where blocks is the number of ranks for
/// AllGather, ReduceScatter and AllToAll (the size covers every rank's block) and 1 otherwise.
struct MessageSize {
  double size_bytes = 0;  ///< nccl-tests' size column
  double count = 0;       ///< nccl-tests' count column (elements of one block)
};
/// REQUIRES: requested_bytes >= 0, ranks >= 1, type.bytes >= 1.
MessageSize round_message_size(CollectiveOp op, double requested_bytes, const DataType& type,
                               int ranks);

/// One nccl-tests run: a collective over a list of sizes.
struct SweepRequest {
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::vector<double> sizes_bytes;  ///< requested sizes, before rounding (see sweep_sizes)
  DataType type = kFloat;
  ReductionOp redop = ReductionOp::kSum;
  int root = 0;  ///< -r: rank index, used by Broadcast and Reduce
  Algorithm algorithm = Algorithm::kAuto;
  Protocol protocol = Protocol::kAuto;
  SimMode mode = SimMode::kAnalytic;
};

/// One row of the sweep: nccl-tests' row prefix and the prediction.
struct SweepRow {
  double size_bytes = 0;  ///< rounded (round_message_size)
  double count = 0;
  std::string_view type;   ///< DataType::name
  std::string_view redop;  ///< to_string(ReductionOp), or "none" (prints_redop)
  int root = -1;           ///< the root for Broadcast and Reduce, else -1 (as nccl-tests prints)
  CollectiveResult result;
};

struct CollectiveSweep {
  CollectiveOp op = CollectiveOp::kAllReduce;
  int ranks = 0;
  SimMode mode = SimMode::kAnalytic;
  NcclVersion nccl_version = kDefaultNcclVersion;  ///< the communicator's modelled release
  std::vector<SweepRow> rows;  ///< one per requested size, in request order
};

/// Runs every size of `request` on `comm`: the rows `linksim coll` prints.
/// Throws ConfigError as Communicator::run does (an algorithm or protocol the machine cannot
/// use, a root out of range, a negative size).
CollectiveSweep run_sweep(const Communicator& comm, const SweepRequest& request);

}  // namespace linksim
