// SPDX-License-Identifier: Apache-2.0
#include "collectives/link_capacities.hpp"

namespace linksim::detail {

std::vector<double> LinkCapacities::to_vector(double scale) const {
  std::vector<double> out;
  out.reserve(size());
  const size_t per_host = host0_.size();
  for (uint64_t first = 0; first < block_links_; first += per_host) {
    for (double c : host0_) out.push_back(c * scale);
  }
  for (double c : rest_) out.push_back(c * scale);
  return out;
}

}  // namespace linksim::detail
