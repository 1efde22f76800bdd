// SPDX-License-Identifier: Apache-2.0
// RouteIndex: the communicator's map from rank pairs to cached routes.
#include <doctest/doctest.h>

#include <cstdint>

#include "collectives/route_index.hpp"

namespace linksim::detail {
namespace {

TEST_CASE("route index finds what was inserted, listed and dense rows alike") {
  constexpr uint32_t kRanks = 100;
  RouteIndex index(kRanks);
  // Rank 3 routes to three neighbours (a listed row); rank 5 to every rank (a dense row).
  index.insert(3, 4, 0);
  index.insert(3, 2, 1);
  index.insert(3, 40, 2);
  for (uint32_t to = 0; to < kRanks; ++to) index.insert(5, to, 10 + to);
  CHECK(index.find(3, 4) == 0u);
  CHECK(index.find(3, 2) == 1u);
  CHECK(index.find(3, 40) == 2u);
  CHECK_FALSE(index.find(3, 5).has_value());
  CHECK_FALSE(index.find(4, 3).has_value());
  for (uint32_t to = 0; to < kRanks; ++to) CHECK(index.find(5, to) == 10 + to);
}

TEST_CASE("route index: an index that never cached a route finds none") {
  const RouteIndex empty(1000);
  CHECK_FALSE(empty.find(0, 1).has_value());
  CHECK_FALSE(empty.find(999, 0).has_value());
  RouteIndex one(1000);
  one.insert(999, 0, 7);  // the first insert allocates the rows
  CHECK(one.find(999, 0) == 7u);
  CHECK_FALSE(one.find(0, 999).has_value());
}

}  // namespace
}  // namespace linksim::detail
