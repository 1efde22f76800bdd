// SPDX-License-Identifier: Apache-2.0
// InstantTable against references held as doubles, through compactions.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "flowsim/instant_table.hpp"

namespace linksim::flowsim_internal {
namespace {

TEST_CASE("instant table: an instant equal to the last shares its index; others append") {
  InstantTable table;
  const uint32_t a = table.index_of(0.5);
  CHECK(table.index_of(0.5) == a);
  const uint32_t b = table.index_of(0.75);
  CHECK(b == a + 1);
  CHECK(table.index_of(0.5) == b + 1);  // equal to an earlier entry, not the last: appended
  CHECK(table.at(a) == 0.5);
  CHECK(table.at(b) == 0.75);
  CHECK(table.size() == 3);
  CHECK_FALSE(table.wants_compaction());
}

TEST_CASE("instant table: compaction keeps what references name, bit for bit, and only that") {
  // 1000 references, each reassigned at random to new instants (times that step by
  // irregular amounts, repeats included) or to kNone, over 300,000 instants: the table is
  // compacted whenever it asks, and every reference reads back the double it was given.
  std::mt19937 random(9);
  InstantTable table;
  std::vector<uint32_t> references(1000, InstantTable::kNone);
  std::vector<double> expected_s(references.size(), 0);
  const auto for_each_reference = [&](auto&& visit) {
    for (uint32_t& reference : references) visit(reference);
  };
  double now_s = 0;
  int compactions = 0;
  for (int step = 0; step < 300000; ++step) {
    if (random() % 4 != 0) now_s += 1e-7 * (1 + random() % 1000) / 3.0;
    const std::size_t i = random() % references.size();
    if (random() % 10 == 0) {
      references[i] = InstantTable::kNone;
    } else {
      references[i] = table.index_of(now_s);
      expected_s[i] = now_s;
    }
    if (table.wants_compaction()) {
      table.compact(for_each_reference);
      ++compactions;
      std::set<uint32_t> named;
      for (uint32_t reference : references) {
        if (reference != InstantTable::kNone) named.insert(reference);
      }
      CHECK(table.size() == named.size());  // only what references name
      CHECK_FALSE(table.wants_compaction());
    }
  }
  CHECK(compactions >= 2);
  for (std::size_t i = 0; i < references.size(); ++i) {
    if (references[i] != InstantTable::kNone) CHECK(table.at(references[i]) == expected_s[i]);
  }
}

}  // namespace
}  // namespace linksim::flowsim_internal
