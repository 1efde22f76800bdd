// SPDX-License-Identifier: Apache-2.0
// advise_huge_pages: a hint that leaves every buffer's contents as they were, whatever its
// size and alignment.
#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "common/huge_pages.hpp"

namespace linksim {
namespace {

TEST_CASE("huge pages: advising a buffer keeps its contents, written before or after") {
  // 12 MiB reserved, half written before the advice and half after.
  std::vector<uint32_t> big(1u << 20);
  std::iota(big.begin(), big.end(), 0u);
  big.reserve(3u << 20);
  advise_huge_pages(big);
  for (uint32_t i = 0; i < (1u << 20); ++i) big.push_back((1u << 20) + i);
  bool in_order = big.size() == (2u << 20);
  for (uint32_t i = 0; in_order && i < big.size(); ++i) in_order = big[i] == i;
  CHECK(in_order);
  // Buffers without a whole aligned 2 MiB page, and an empty one: nothing to do.
  std::vector<double> small(1000, 2.5);
  advise_huge_pages(small);
  advise_huge_pages(small.data() + 1, 100 * sizeof(double));
  advise_huge_pages(std::vector<char>{});
  CHECK(small[999] == 2.5);
}

}  // namespace
}  // namespace linksim
