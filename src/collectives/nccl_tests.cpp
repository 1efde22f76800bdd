// SPDX-License-Identifier: Apache-2.0
// nccl-tests' tables and size rules: data types, reduction ops, the -b/-e/-f sweep and the
// per-block count rounding (github.com/NVIDIA/nccl-tests, src/common.cu and the *GetCollByteCount
// functions of src/all_gather.cu, src/reduce_scatter.cu, src/alltoall.cu).
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/check.hpp"
#include "linksim/error.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/units.hpp"

namespace linksim {
namespace {

constexpr DataType kDataTypes[] = {
    {"int8", 1},  {"uint8", 1},  {"int32", 4},    {"uint32", 4},  {"int64", 8},  {"uint64", 8},
    {"half", 2},  {"float", 4},  {"double", 8},   {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};

struct TypeAlias {
  std::string_view alias;
  std::string_view name;
};
constexpr TypeAlias kTypeAliases[] = {
    {"fp32", "float"},      {"fp16", "half"},         {"bf16", "bfloat16"}, {"fp64", "double"},
    {"fp8", "f8e4m3"},      {"fp8_e4m3", "f8e4m3"},   {"fp8_e5m2", "f8e5m2"}};

constexpr std::string_view kReductionNames[] = {"sum", "prod", "max", "min", "avg"};

}  // namespace

std::span<const DataType> data_types() { return kDataTypes; }

std::optional<DataType> parse_data_type(std::string_view text) {
  for (const TypeAlias& a : kTypeAliases) {
    if (a.alias == text) text = a.name;
  }
  for (const DataType& t : kDataTypes) {
    if (t.name == text) return t;
  }
  return std::nullopt;
}

std::vector<std::string> data_type_names() {
  std::vector<std::string> out;
  for (const DataType& t : kDataTypes) out.emplace_back(t.name);
  for (const TypeAlias& a : kTypeAliases) out.emplace_back(a.alias);
  return out;
}

std::string data_type_choices() { return fmt::format("{}", fmt::join(data_type_names(), ", ")); }

std::vector<std::string> reduction_op_names() {
  return {std::begin(kReductionNames), std::end(kReductionNames)};
}

std::string_view to_string(ReductionOp op) { return kReductionNames[static_cast<int>(op)]; }

std::optional<ReductionOp> parse_reduction_op(std::string_view text) {
  for (int i = 0; i < static_cast<int>(std::size(kReductionNames)); ++i) {
    if (kReductionNames[i] == text) return static_cast<ReductionOp>(i);
  }
  return std::nullopt;
}

bool prints_redop(CollectiveOp op) {
  return op == CollectiveOp::kAllReduce || op == CollectiveOp::kReduceScatter ||
         op == CollectiveOp::kReduce || op == CollectiveOp::kSendRecv;
}

bool has_root(CollectiveOp op) {
  return op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce;
}

namespace {

// The sweep's row count, computed without listing the sizes (so a huge sweep is refused
// before any work): a geometric sweep has at most 54 rows below 2^53, an arithmetic one
// floor((MAX - MIN) / STEP) + 1.
double sweep_row_count(const SweepSpec& s) {
  if (s.min_bytes == s.max_bytes) return 1;
  if (s.factor == 1) return std::floor((s.max_bytes - s.min_bytes) / s.step_bytes) + 1;
  double rows = 0;
  for (double size = s.min_bytes; size <= s.max_bytes; size *= s.factor) ++rows;
  return rows;
}

void check_size_field(double bytes, const char* field) {
  if (!(bytes >= 0)) {
    throw ConfigError(RequestField{field}, fmt::format("expected a size >= 0, got {}", bytes));
  }
  if (bytes > kMaxSizeBytes) {
    throw ConfigError(RequestField{field},
                      fmt::format("expected a size of at most 8 PiB (2^53 bytes), got {}", bytes));
  }
}

void check_sweep(const SweepSpec& s) {
  check_size_field(s.min_bytes, "min_bytes");
  check_size_field(s.max_bytes, "max_bytes");
  if (s.min_bytes > s.max_bytes) {
    throw ConfigError(RequestField{"min_bytes"},
                      fmt::format("({}) is larger than -e ({})", format_size(s.min_bytes),
                                  format_size(s.max_bytes)));
  }
  // nccl-tests reads -f as an integer and steps by -i bytes when it is 1 or less.
  if (!(s.factor >= 1) || s.factor != std::floor(s.factor) || s.factor > kMaxSizeBytes) {
    throw ConfigError(RequestField{"factor"}, fmt::format(
        "expected an integer factor >= 2, or 1 to step by -i, got {}", s.factor));
  }
  // 0 x FACTOR stays 0: nccl-tests repeats 0 bytes without end; a sweep that would end at
  // one row instead of reaching -e is refused rather than shrunk.
  if (s.factor > 1 && s.min_bytes == 0 && s.max_bytes > 0) {
    throw ConfigError(RequestField{"min_bytes"}, fmt::format(
        "expected a size > 0 to multiply by -f {} up to -e (0 x {} stays 0), got 0; "
        "-f 1 -i STEP steps from 0", s.factor, s.factor));
  }
  if (s.factor == 1 && s.min_bytes < s.max_bytes &&
      !(s.step_bytes >= 1 && s.step_bytes <= kMaxSizeBytes &&
        s.step_bytes == std::floor(s.step_bytes))) {
    throw ConfigError(RequestField{"step_bytes"}, fmt::format("expected a step of 1 to 2^53 whole bytes, got {}",
                                  s.step_bytes));
  }
  if (!(s.max_rows >= 1)) {
    throw ConfigError(RequestField{"max_rows"}, fmt::format("expected at least 1, got {}", s.max_rows));
  }
  const double rows = sweep_row_count(s);
  if (rows > s.max_rows) {
    throw ConfigError(fmt::format(
        "the sweep has {:.0f} sizes; expected at most {:.0f} (--max-rows raises the limit)", rows,
        s.max_rows));
  }
}

}  // namespace

std::vector<double> sweep_sizes(const SweepSpec& spec) {
  check_sweep(spec);
  std::vector<double> sizes;
  sizes.reserve(static_cast<size_t>(sweep_row_count(spec)));
  for (double s = spec.min_bytes; s <= spec.max_bytes;
       s = spec.factor > 1 ? s * spec.factor : s + spec.step_bytes) {
    sizes.push_back(s);
    if (spec.min_bytes == spec.max_bytes) break;
  }
  return sizes;
}

std::vector<double> sweep_sizes(double min_bytes, double max_bytes, double factor) {
  SweepSpec spec;
  spec.min_bytes = min_bytes;
  spec.max_bytes = max_bytes;
  spec.factor = factor;
  return sweep_sizes(spec);
}

// nccl-tests' size column counts every rank's block for these; its count column one block.
MessageSize round_message_size(CollectiveOp op, double requested_bytes, const DataType& type,
                               int ranks) {
  LINKSIM_CHECK(requested_bytes >= 0 && ranks >= 1 && type.bytes >= 1,
                "round_message_size needs a size >= 0, ranks >= 1 and a type with bytes");
  const bool per_block = op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter ||
                         op == CollectiveOp::kAllToAll;
  const int blocks = per_block ? ranks : 1;
  const double count = std::floor(requested_bytes / type.bytes / blocks);
  return {count * type.bytes * blocks, count};
}

CollectiveSweep run_sweep(const Communicator& comm, const SweepRequest& request) {
  CollectiveSweep sweep;
  sweep.op = request.op;
  sweep.ranks = comm.rank_count();
  sweep.mode = request.mode;
  sweep.nccl_version = comm.nccl_version();
  CollectiveQuery query;
  query.op = request.op;
  query.algorithm = request.algorithm;
  query.protocol = request.protocol;
  query.mode = request.mode;
  query.root = request.root;
  for (double requested : request.sizes_bytes) {
    const MessageSize m = round_message_size(request.op, requested, request.type, sweep.ranks);
    query.size_bytes = m.size_bytes;
    SweepRow row;
    row.size_bytes = m.size_bytes;
    row.count = m.count;
    row.type = request.type.name;
    row.redop = prints_redop(request.op) ? to_string(request.redop) : "none";
    row.root = has_root(request.op) ? request.root : -1;
    row.result = comm.run(query);
    sweep.rows.push_back(std::move(row));
  }
  return sweep;
}

}  // namespace linksim
