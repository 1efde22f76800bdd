// SPDX-License-Identifier: Apache-2.0
// Names of the serving inputs, as the results print them.
#include <fmt/core.h>

#include "linksim/serve.hpp"

namespace linksim {

std::string LengthDistribution::describe() const {
  switch (kind) {
    case Kind::kFixed: return fmt::format("{:g}", a);
    case Kind::kUniform: return fmt::format("uniform:{:g}:{:g}", a, b);
    case Kind::kNormal: return fmt::format("normal:{:g}:{:g}", a, b);
    case Kind::kLognormal: return fmt::format("lognormal:{:g}:{:g}", a, b);
  }
  return "unknown";
}

std::string_view to_string(ReplicaRouting routing) {
  return routing == ReplicaRouting::kRoundRobin ? "round-robin" : "shortest-queue";
}

}  // namespace linksim
