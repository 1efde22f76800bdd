// SPDX-License-Identifier: Apache-2.0
// Collective name spellings and nccl-tests' bus-bandwidth factors.
#include <fmt/core.h>

#include <string>

#include "linksim/error.hpp"
#include "linksim/collectives.hpp"
#include "linksim/report.hpp"

namespace linksim {

std::optional<std::string> canonical_collective_name(std::string_view name) {
  // Fold case and drop the separators people put inside names ("all_reduce", "All-Reduce"),
  // and nccl-tests' binary suffix ("all_reduce_perf").
  std::string folded;
  for (char c : name) {
    if (c == '_' || c == '-' || c == ' ') continue;
    folded += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  constexpr std::string_view kPerfSuffix = "perf";
  if (folded.size() > kPerfSuffix.size() &&
      std::string_view(folded).substr(folded.size() - kPerfSuffix.size()) == kPerfSuffix) {
    folded.resize(folded.size() - kPerfSuffix.size());
  }
  for (std::string_view canonical : kCollectiveNames) {
    if (folded == canonical) return std::string(canonical);
  }
  return std::nullopt;
}

double busbw_factor(std::string_view collective, int ranks) {
  const std::optional<std::string> name = canonical_collective_name(collective);
  if (!name) {
    throw ConfigError(fmt::format(
        "expected a collective (allreduce, allgather, reducescatter, alltoall, broadcast, "
        "reduce, sendrecv), got '{}'",
        collective));
  }
  if (ranks < 1) throw ConfigError(fmt::format("expected at least 1 rank, got {}", ranks));
  // One definition of nccl-tests' factors: the collectives module's (docs/model.md).
  return bus_factor(*parse_collective(*name), ranks);
}

}  // namespace linksim
