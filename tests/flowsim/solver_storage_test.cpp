// SPDX-License-Identifier: Apache-2.0
// The max-min solver's storage: ArenaLists against vectors, LevelHeap against a sorted set.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "flowsim/arena_lists.hpp"
#include "flowsim/level_heap.hpp"

namespace linksim::flowsim_internal {
namespace {

TEST_CASE("arena lists hold what per-list vectors hold, across moves, pages and large lists") {
  constexpr uint32_t kLists = 300;
  ArenaLists<uint64_t> lists(kLists);
  std::vector<std::vector<uint64_t>> model(kLists);
  std::mt19937 random(7);
  std::uniform_int_distribution<uint32_t> pick(1, kLists - 1);
  for (uint64_t step = 0; step < 200000; ++step) {
    // List 0 grows past a page (16384 elements) into a list of its own; the others churn.
    const uint32_t id = step % 4 == 0 ? 0 : pick(random);
    if (id != 0 && !model[id].empty() && random() % 3 == 0) {
      lists.pop_back(id);
      model[id].pop_back();
      continue;
    }
    const uint32_t index = lists.push_back(id, step);
    CHECK_EQ(index, model[id].size());
    model[id].push_back(step);
  }
  CHECK(model[0].size() == 50000);
  for (uint32_t id = 0; id < kLists; ++id) {
    const auto held = lists.list(id);
    REQUIRE(held.size() == model[id].size());
    CHECK(std::vector<uint64_t>(held.begin(), held.end()) == model[id]);
  }
}

TEST_CASE("arena lists: an empty list is an empty span; writes through list() stay") {
  ArenaLists<uint32_t> lists(3);
  CHECK(lists.list(1).empty());
  lists.push_back(1, 10);
  lists.push_back(1, 11);
  lists.list(1)[0] = 12;
  CHECK(lists.list(1)[0] == 12);
  CHECK(lists.list(1)[1] == 11);
  CHECK(lists.size(2) == 0);
}

TEST_CASE("arena lists: clear() empties a list that then refills; prefetches change nothing") {
  ArenaLists<uint32_t> lists(3);
  lists.prefetch_header(0);
  lists.prefetch_front(0);  // no block yet
  for (uint32_t value = 0; value < 5; ++value) lists.push_back(0, value);
  lists.push_back(2, 7);
  lists.prefetch_header(0);
  lists.prefetch_front(0);
  CHECK(std::vector<uint32_t>(lists.list(0).begin(), lists.list(0).end()) ==
        std::vector<uint32_t>{0, 1, 2, 3, 4});
  lists.clear(0);
  CHECK(lists.size(0) == 0);
  CHECK(lists.list(0).empty());
  CHECK(lists.push_back(0, 9) == 0);  // refills from index 0
  CHECK(lists.list(0)[0] == 9);
  CHECK(lists.list(2)[0] == 7);  // other lists untouched
}

// Starts a heap with `initial` entries, then checks it against a sorted multiset through random
// pops, pushes and top replacements, and while draining it.
void check_heap_against_model(uint32_t initial) {
  CAPTURE(initial);
  LevelHeap heap;
  using Key = std::tuple<double, int, uint32_t>;  // level, kind, id
  std::multiset<Key> model;
  std::mt19937 random(3);
  std::uniform_int_distribution<int> level(0, 20);  // small range: many ties
  for (uint32_t id = 0; id < initial; ++id) {
    const auto kind = id % 3 == 0 ? LevelKind::kSlotBound : LevelKind::kResource;
    const double at = level(random);
    heap.push_unordered(Level{at, id, kind});
    model.insert({at, int(kind), id});
  }
  heap.heapify();
  for (int round = 0; round < 3000 && !model.empty(); ++round) {
    const Key least = *model.begin();
    REQUIRE_FALSE(heap.empty());
    CHECK(Key{heap.top().level_Bps, int(heap.top().kind), heap.top().id} == least);
    switch (random() % 3) {
      case 0: {  // raise or lower the least entry's level
        const double at = level(random);
        heap.replace_top_level(at);
        model.erase(model.begin());
        model.insert({at, std::get<1>(least), std::get<2>(least)});
        break;
      }
      case 1: {  // push another entry (a resource may hold several)
        const double at = level(random);
        const uint32_t id = random() % 64;
        heap.push(Level{at, id, LevelKind::kResource});
        model.insert({at, 0, id});
        break;
      }
      default: {
        const Level top = heap.pop();
        CHECK(Key{top.level_Bps, int(top.kind), top.id} == least);
        model.erase(model.begin());
      }
    }
  }
  while (!model.empty() && !heap.empty()) {  // then drain
    const Level top = heap.pop();
    CHECK(Key{top.level_Bps, int(top.kind), top.id} == *model.begin());
    model.erase(model.begin());
  }
  CHECK(model.empty());
  CHECK(heap.empty());
}

TEST_CASE("level heap pops in (level, kind, id) order through pushes and top replacements") {
  // Sizes around the 4-ary heap's partial child groups (1 + 4 + 16 ... entries a depth), and
  // one of several levels.
  for (const uint32_t initial : {1u, 2u, 5u, 6u, 21u, 22u, 48u, 1000u}) {
    check_heap_against_model(initial);
  }
}

}  // namespace
}  // namespace linksim::flowsim_internal
