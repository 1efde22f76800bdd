// SPDX-License-Identifier: Apache-2.0
// Names of collectives, algorithms, protocols and modes, and nccl-tests' busbw factors.
#include <algorithm>
#include <cctype>
#include <string>

#include "collectives/algorithm.hpp"
#include "linksim/collectives.hpp"

namespace linksim {
namespace {

// Lower-cases and drops '_', '-' and ' ' so "all_reduce", "All-Reduce" and "allreduce" agree.
std::string fold(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '_' || c == '-' || c == ' ') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

// nccl-tests names its binaries <name>_perf (github.com/NVIDIA/nccl-tests, src/Makefile).
constexpr CollectiveName kCollectives[] = {
    {CollectiveOp::kAllReduce, "allreduce", "all_reduce", "AllReduce"},
    {CollectiveOp::kAllGather, "allgather", "all_gather", "AllGather"},
    {CollectiveOp::kReduceScatter, "reducescatter", "reduce_scatter", "ReduceScatter"},
    {CollectiveOp::kBroadcast, "broadcast", "broadcast", "Broadcast"},
    {CollectiveOp::kReduce, "reduce", "reduce", "Reduce"},
    {CollectiveOp::kAllToAll, "alltoall", "alltoall", "AllToAll"},
    {CollectiveOp::kSendRecv, "sendrecv", "sendrecv", "SendRecv"},
};

}  // namespace

std::span<const CollectiveName> collective_names() { return kCollectives; }

std::string_view to_string(CollectiveOp op) {
  for (const CollectiveName& c : kCollectives) {
    if (c.op == op) return c.name;
  }
  return "?";
}

std::string_view to_string(Algorithm algo) {
  if (algo == Algorithm::kAuto) return "auto";
  const detail::AlgorithmOps* ops = detail::find_algorithm(algo);
  return ops ? ops->name : "?";
}

std::string_view to_string(Protocol proto) {
  switch (proto) {
    case Protocol::kAuto: return "auto";
    case Protocol::kLL: return "LL";
    case Protocol::kLL128: return "LL128";
    case Protocol::kSimple: return "Simple";
  }
  return "?";
}

std::string_view to_string(SimMode mode) { return mode == SimMode::kFlow ? "flow" : "analytic"; }

std::optional<CollectiveOp> parse_collective(std::string_view text) {
  std::string folded = fold(text);
  constexpr std::string_view kBinarySuffix = "perf";
  if (folded.size() > kBinarySuffix.size() && folded.ends_with(kBinarySuffix)) {
    folded.resize(folded.size() - kBinarySuffix.size());
  }
  for (const CollectiveName& c : kCollectives) {
    if (folded == c.name) return c.op;
  }
  return std::nullopt;
}

std::optional<Algorithm> parse_algorithm(std::string_view text) {
  if (fold(text) == "auto") return Algorithm::kAuto;
  for (const detail::AlgorithmOps& ops : detail::algorithm_table()) {
    if (fold(text) == fold(ops.name)) return ops.algorithm;
  }
  return std::nullopt;
}

std::optional<Protocol> parse_protocol(std::string_view text) {
  for (auto p : {Protocol::kAuto, Protocol::kLL, Protocol::kLL128, Protocol::kSimple}) {
    if (fold(text) == fold(to_string(p))) return p;
  }
  return std::nullopt;
}

std::optional<SimMode> parse_sim_mode(std::string_view text) {
  if (fold(text) == "flow") return SimMode::kFlow;
  if (fold(text) == "analytic") return SimMode::kAnalytic;
  return std::nullopt;
}

std::vector<std::string> algorithm_choices() {
  std::vector<std::string> out{"auto"};
  for (const detail::AlgorithmOps& ops : detail::algorithm_table()) out.emplace_back(ops.name);
  return out;
}

std::vector<std::string> protocol_choices() {
  std::vector<std::string> out;
  for (auto p : {Protocol::kAuto, Protocol::kLL, Protocol::kLL128, Protocol::kSimple}) {
    out.push_back(fold(to_string(p)));
  }
  return out;
}

std::vector<std::string> sim_mode_choices() {
  return {std::string(to_string(SimMode::kAnalytic)), std::string(to_string(SimMode::kFlow))};
}

double bus_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::kAllReduce: return 2.0 * (n - 1) / n;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllToAll: return (n - 1) / n;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
    case CollectiveOp::kSendRecv: return 1.0;
  }
  return 1.0;
}

}  // namespace linksim
