// SPDX-License-Identifier: Apache-2.0
#include "collectives/link_capacities.hpp"

#include "common/huge_pages.hpp"

namespace linksim::detail {

std::vector<double> LinkCapacities::to_vector(double scale) const {
  std::vector<double> out;
  out.reserve(size());
  advise_huge_pages(out);  // a cluster's links: tens of MiB, written once in order
  const size_t per_host = host0_.size();
  for (uint64_t first = 0; first < block_links_; first += per_host) {
    for (double c : host0_) out.push_back(c * scale);
  }
  for (double c : rest_) out.push_back(c * scale);
  return out;
}

}  // namespace linksim::detail
