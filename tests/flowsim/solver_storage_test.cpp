// SPDX-License-Identifier: Apache-2.0
// The max-min solver's storage: ArenaLists against vectors, LevelHeap and LevelQueue against a
// sorted set.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "flowsim/arena_lists.hpp"
#include "flowsim/level_heap.hpp"
#include "flowsim/level_queue.hpp"

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

// Starts a queue (LevelHeap or LevelQueue) with `initial` entries at levels 0 ... `top_level`
// (kinds alternating; in id order, or shuffled), then checks it against a sorted multiset
// through random pops, pushes and top replacements, and while draining it.
template <typename Queue>
void check_queue_against_model(Queue& queue, uint32_t initial, int top_level, bool shuffled,
                               uint32_t seed) {
  CAPTURE(initial);
  CAPTURE(top_level);
  CAPTURE(shuffled);
  using Key = std::tuple<double, int, uint32_t>;  // level, kind, id
  std::multiset<Key> model;
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> level(0, top_level);  // small range: many ties
  std::vector<Level> entries;
  for (uint32_t id = 0; id < initial; ++id) {
    const auto kind = id % 3 == 0 ? LevelKind::kSlotBound : LevelKind::kResource;
    entries.push_back(Level{double(level(random)), id, kind});
  }
  if (shuffled) std::shuffle(entries.begin(), entries.end(), random);
  for (const Level& entry : entries) {
    queue.push_unordered(entry);
    model.insert({entry.level_Bps, int(entry.kind), entry.id});
  }
  if constexpr (requires { queue.order(); }) {
    queue.order();
  } else {
    queue.heapify();
  }
  std::uniform_int_distribution<int> later_level(0, 20);
  for (int round = 0; round < 3000 && !model.empty(); ++round) {
    const Key least = *model.begin();
    REQUIRE_FALSE(queue.empty());
    CHECK(Key{queue.top().level_Bps, int(queue.top().kind), queue.top().id} == least);
    switch (random() % 3) {
      case 0: {  // raise or lower the least entry's level
        const double at = later_level(random);
        queue.replace_top_level(at);
        model.erase(model.begin());
        model.insert({at, std::get<1>(least), std::get<2>(least)});
        break;
      }
      case 1: {  // push another entry (a resource may hold several)
        const double at = later_level(random);
        const uint32_t id = random() % 64;
        queue.push(Level{at, id, LevelKind::kResource});
        model.insert({at, 0, id});
        break;
      }
      default: {
        const Level top = queue.pop();
        CHECK(Key{top.level_Bps, int(top.kind), top.id} == least);
        model.erase(model.begin());
      }
    }
  }
  while (!model.empty() && !queue.empty()) {  // then drain
    const Level top = queue.pop();
    CHECK(Key{top.level_Bps, int(top.kind), top.id} == *model.begin());
    model.erase(model.begin());
  }
  CHECK(model.empty());
  CHECK(queue.empty());
}

TEST_CASE("level heap pops in (level, kind, id) order through pushes and top replacements") {
  // Sizes around the 4-ary heap's partial child groups (1 + 4 + 16 ... entries a depth), and
  // one of several levels.
  for (const uint32_t initial : {1u, 2u, 5u, 6u, 21u, 22u, 48u, 1000u}) {
    LevelHeap heap;
    check_queue_against_model(heap, initial, 20, false, 3);
  }
}

TEST_CASE("level queue pops as the level heap, from runs, from the heap, and from both") {
  // Levels 0 ... 5 of two kinds in id order: 12 runs (at most kMaxRuns). Levels 0 ... 20: 42
  // (level, kind) pairs, more than kMaxRuns, so every entry goes to the heap; shuffled ids
  // too. One queue through all of them: each solve starts on the emptied queue of the last.
  static_assert(LevelQueue::kMaxRuns < 42);
  LevelQueue queue;
  uint32_t seed = 5;
  for (const uint32_t initial : {1u, 2u, 6u, 22u, 1000u, 5000u}) {
    check_queue_against_model(queue, initial, 5, false, ++seed);
    check_queue_against_model(queue, initial, 20, false, ++seed);
    check_queue_against_model(queue, initial, 5, true, ++seed);
    check_queue_against_model(queue, initial, 5, false, ++seed);  // runs again after spills
  }
  queue.trim(0);
  CHECK(queue.empty());
}

}  // namespace
}  // namespace linksim::flowsim_internal
