// SPDX-License-Identifier: Apache-2.0
// A table's collective and rank count when its text does not state them, from the rows
// themselves: nccl-tests prints busbw = algbw x factor, the factor 2(n-1)/n for AllReduce,
// (n-1)/n for AllGather, ReduceScatter and AllToAll, 1 for Broadcast, Reduce and SendRecv
// (nccl-tests doc/PERFORMANCE.md), next to the reduction ("none" where the collective has
// none) and the root (-1 where it has none). docs/calibration.md#pasted-tables.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "sysimport/nccl_tests_text.hpp"

namespace linksim::nccl_tests {
namespace {

// nccl-tests prints algbw and busbw with two decimals; below 1 GB/s their ratio is known to
// worse than 1 %, too coarse to tell 2(n-1)/n from 2n/(n+1).
constexpr double kMinAlgbwForRatio_GBps = 1.0;
// The most ranks a ratio is read as: beyond, (n-1)/n and n/(n+1) differ by less than the
// two-decimal rounding of a 1 GB/s row.
constexpr int kMaxRanksFromRatio = 4096;

// The row whose busbw/algbw is known best: the largest algbw (nullptr when none reaches
// kMinAlgbwForRatio_GBps).
const NcclTestsRow* ratio_row(const NcclTestsTable& table) {
  const NcclTestsRow* best = nullptr;
  for (const NcclTestsRow& row : table.rows) {
    if (row.algbw_GBps >= kMinAlgbwForRatio_GBps &&
        (best == nullptr || row.algbw_GBps > best->algbw_GBps)) {
      best = &row;
    }
  }
  return best;
}

// Whether busbw/algbw of `row` is `factor` within the two-decimal rounding of both numbers.
bool ratio_is(const NcclTestsRow& row, double factor) {
  const double rounding_GBps = 0.005 * (1 + factor) + 1e-9;
  return std::abs(row.busbw_GBps - row.algbw_GBps * factor) <= rounding_GBps;
}

// The rank count `op`'s factor gives for `row`'s ratio, when it depends on the count and the
// count reproduces the ratio.
std::optional<int> ranks_for(CollectiveOp op, const NcclTestsRow& row) {
  const double ratio = row.busbw_GBps / row.algbw_GBps;
  double per_rank = 0;  // (n-1)/n
  if (op == CollectiveOp::kAllReduce) per_rank = ratio / 2;
  else if (op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter ||
           op == CollectiveOp::kAllToAll) per_rank = ratio;
  else return std::nullopt;
  if (!(per_rank >= 0.5) || per_rank >= 1) return std::nullopt;  // n >= 2
  const double n = std::round(1.0 / (1.0 - per_rank));
  if (n > kMaxRanksFromRatio) return std::nullopt;
  const int ranks = static_cast<int>(n);
  if (!ratio_is(row, bus_factor(op, ranks))) return std::nullopt;
  return ranks;
}

bool factor_depends_on_ranks(CollectiveOp op) {
  return op == CollectiveOp::kAllReduce || op == CollectiveOp::kAllGather ||
         op == CollectiveOp::kReduceScatter || op == CollectiveOp::kAllToAll;
}

// Whether the redop and root nccl-tests prints for `op` are those of `row`. nccl-tests prints
// "none" for the collectives without a reduction except SendRecv, which prints the type's
// sum; a root >= 0 for Broadcast and Reduce, -1 for the others.
bool columns_fit(CollectiveOp op, const NcclTestsRow& row) {
  const bool reduces = op == CollectiveOp::kAllReduce || op == CollectiveOp::kReduceScatter ||
                       op == CollectiveOp::kReduce;
  if (op != CollectiveOp::kSendRecv && (row.redop != "none") != reduces) return false;
  if (!row.root) return true;
  const bool rooted = op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce;
  return (*row.root >= 0) == rooted;
}

struct Candidate {
  CollectiveOp op;
  int ranks = 0;  // 0 when the rows cannot tell
};

std::vector<Candidate> candidates(const NcclTestsRow& row, int known_ranks) {
  std::vector<Candidate> found;
  for (const CollectiveName& name : collective_names()) {
    if (!columns_fit(name.op, row)) continue;
    if (known_ranks > 0) {
      if (ratio_is(row, bus_factor(name.op, known_ranks))) found.push_back({name.op, known_ranks});
    } else if (factor_depends_on_ranks(name.op)) {
      if (auto ranks = ranks_for(name.op, row)) found.push_back({name.op, *ranks});
    } else if (ratio_is(row, 1.0)) {
      found.push_back({name.op, 0});
    }
  }
  return found;
}

std::string choice_list(const std::vector<Candidate>& found) {
  std::string text;
  for (size_t i = 0; i < found.size(); ++i) {
    if (i > 0) text += i + 1 == found.size() ? " or " : ", ";
    text += to_string(found[i].op);
    if (found[i].ranks > 0) text += fmt::format(" ({} ranks)", found[i].ranks);
  }
  return text;
}

int last_line_of(const TableContext& context) {
  return context.file_lines.empty() ? 1 : context.file_lines.back().number;
}

[[noreturn]] void throw_unknown_collective(const NcclTestsTable& table, int line,
                                           std::string_view why) {
  throw ConfigError({table.file, line, 1},
                    fmt::format("expected a '# collective:' header, an nccl-tests binary name "
                                "such as all_reduce_perf or rows that tell the collective, got "
                                "{}; name it (--collective NAME)",
                                why));
}

void infer_collective(NcclTestsTable& table, const TableContext& context) {
  const NcclTestsRow* row = ratio_row(table);
  if (row == nullptr) {
    const int line = table.rows.empty() ? last_line_of(context) : table.rows.front().line;
    throw_unknown_collective(table, line,
                             table.rows.empty() ? "no rows"
                                                : "no row with algbw of at least 1 GB/s");
  }
  if (row->redop.empty()) {
    throw_unknown_collective(table, row->line, "a table without its redop column");
  }
  const std::vector<Candidate> found = candidates(*row, table.ranks);
  const double ratio = row->busbw_GBps / row->algbw_GBps;
  if (found.empty()) {
    throw ConfigError({table.file, row->line, 1},
                      fmt::format("expected busbw/algbw to be a collective's factor (2(n-1)/n, "
                                  "(n-1)/n or 1{}), got {:.4f} with redop '{}'",
                                  table.ranks > 0 ? fmt::format(" for {} ranks", table.ranks) : "",
                                  ratio, row->redop));
  }
  if (found.size() > 1) {
    throw ConfigError({table.file, row->line, 1},
                      fmt::format("expected one collective to fit the rows, got {}: busbw/algbw "
                                  "{:.4f} with redop '{}'{}; name it (--collective NAME)",
                                  choice_list(found), ratio, row->redop,
                                  row->root ? fmt::format(" and root {}", *row->root) : ""));
  }
  table.collective = std::string(to_string(found.front().op));
  table.collective_source = "busbw/algbw and redop";
  if (table.ranks == 0 && found.front().ranks > 0) {
    table.ranks = found.front().ranks;
    table.ranks_source = "busbw/algbw";
  }
}

void complete_collective(NcclTestsTable& table, const TableContext& context) {
  const std::string& given = context.options ? context.options->collective : std::string();
  std::optional<std::string> given_key;
  if (!given.empty()) {
    given_key = collective_key(given);
    if (!given_key) {
      throw ConfigError(fmt::format("expected a collective (allreduce, allgather, reducescatter, "
                                    "alltoall, broadcast, reduce, sendrecv), got '{}'",
                                    given));
    }
  }
  if (table.collective.empty()) {
    if (auto name = collective_from_text(context.region)) {
      table.collective = *name;
      table.collective_source = "the binary name";
    } else if (context.previous != nullptr) {
      table.collective = context.previous->collective;
      table.collective_source = context.previous->collective_source;
    } else if (auto anywhere = collective_from_text(context.file_lines)) {
      table.collective = *anywhere;
      table.collective_source = "the binary name";
    }
  }
  if (given_key && !table.collective.empty() && *given_key != table.collective &&
      table.collective_source != "the caller") {
    const int line = table.rows.empty() ? last_line_of(context) : table.rows.front().line;
    throw ConfigError({table.file, line, 1},
                      fmt::format("expected the collective {} names ({}), got '{}' from the "
                                  "caller (--collective)",
                                  table.collective_source, table.collective, given));
  }
  if (!table.collective.empty()) return;
  if (given_key) {
    table.collective = *given_key;
    table.collective_source = "the caller";
    return;
  }
  infer_collective(table, context);
}

void complete_ranks(NcclTestsTable& table, const TableContext& context) {
  if (table.ranks > 0) return;
  if (auto ranks = ranks_from_device_lines(context.region)) {
    table.ranks = *ranks;
    table.ranks_source = "the device lines";
  } else if (context.previous != nullptr) {
    table.ranks = context.previous->ranks;
    table.ranks_source = context.previous->ranks_source;
  } else if (auto anywhere = ranks_from_device_lines(context.file_lines)) {
    table.ranks = *anywhere;
    table.ranks_source = "the device lines";
  } else if (const NcclTestsRow* row = ratio_row(table)) {
    if (auto from_ratio = ranks_for(*parse_collective(table.collective), *row)) {
      table.ranks = *from_ratio;
      table.ranks_source = "busbw/algbw";
    }
  }
}

}  // namespace

void complete_table(NcclTestsTable& table, const TableContext& context) {
  // Ranks stated in the text come first: with them the ratio tells the collective best.
  if (table.ranks == 0) {
    if (auto ranks = ranks_from_device_lines(context.region)) {
      table.ranks = *ranks;
      table.ranks_source = "the device lines";
    }
  }
  complete_collective(table, context);
  complete_ranks(table, context);
  if (table.ranks == 0) {
    throw ConfigError({table.file, last_line_of(context), 1},
                      "expected '# gpus_per_node:' and '# nodes:' headers, nccl-tests '#  Rank N' "
                      "device lines or a busbw/algbw that depends on the rank count to tell the "
                      "number of ranks, got none");
  }
}

}  // namespace linksim::nccl_tests
