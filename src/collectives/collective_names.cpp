// SPDX-License-Identifier: Apache-2.0
// Collective name spellings and nccl-tests' bus-bandwidth factors.
#include <fmt/core.h>

#include <string>

#include "linksim/error.hpp"
#include "linksim/collectives.hpp"
#include "linksim/collective_rows.hpp"

namespace linksim {

std::optional<std::string> canonical_collective_name(std::string_view name) {
  const std::optional<CollectiveOp> op = parse_collective(name);
  if (!op) return std::nullopt;
  return std::string(to_string(*op));
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
