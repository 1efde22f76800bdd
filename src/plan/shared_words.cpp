// SPDX-License-Identifier: Apache-2.0
// describe_shared: what slowed a communication's group, in words (docs/planner.md#shared-links).
#include <fmt/core.h>

#include "linksim/plan.hpp"

namespace linksim {

std::string describe_shared(const PlanComm& comm) {
  if (!(comm.shared_slowdown > 1)) return {};
  std::string text = fmt::format("{} groups at once on {}", comm.shared_groups,
                                 comm.shared_link.empty() ? "links they share" : comm.shared_link);
  if (comm.shared_with.empty()) return text;
  constexpr size_t kShown = 3;
  const bool several = comm.shared_with.size() > 1;
  text += "; slowed by ";
  for (size_t i = 0; i < comm.shared_with.size() && i < kShown; ++i) {
    if (i > 0) text += ", ";
    text += several ? "{" + comm.shared_with[i] + "}" : comm.shared_with[i];
  }
  if (comm.shared_with.size() > kShown) {
    text += fmt::format(" and {} more", comm.shared_with.size() - kShown);
  }
  return text;
}

}  // namespace linksim
