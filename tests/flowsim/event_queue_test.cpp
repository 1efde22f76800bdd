// SPDX-License-Identifier: Apache-2.0
// The event queue's batch push (event_queue.hpp): the same pop sequence as one push() per
// event, whatever the batch's order and whatever the queue held before.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "flowsim/event_queue.hpp"

namespace linksim {
namespace {

struct Pushed {
  double time_s;
  uint32_t id;
};

std::vector<std::pair<double, uint32_t>> drain(EventQueue& queue) {
  std::vector<std::pair<double, uint32_t>> popped;
  while (!queue.empty()) {
    const Event event = queue.pop();
    popped.emplace_back(event.time_s, event.id);
  }
  return popped;
}

// Pushes `before` one by one into both queues, then `batch` one by one into the first and as
// a batch into the second; pops `popped_first` events of each in between.
void check_same(const std::vector<Pushed>& before, const std::vector<Pushed>& batch,
                std::size_t popped_first) {
  EventQueue single, batched;
  for (const Pushed& p : before) {
    single.push(p.time_s, EventKind::kStart, p.id);
    batched.push(p.time_s, EventKind::kStart, p.id);
  }
  for (std::size_t i = 0; i < popped_first && !single.empty(); ++i) {
    const Event a = single.pop(), b = batched.pop();
    CHECK(a.id == b.id);
  }
  for (const Pushed& p : batch) single.push(p.time_s, EventKind::kFinish, p.id, 7);
  batched.begin_batch();
  for (const Pushed& p : batch) batched.batch_push(p.time_s, EventKind::kFinish, p.id, 7);
  batched.end_batch();
  CHECK(single.size() == batched.size());
  const auto a = drain(single), b = drain(batched);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].second == b[i].second);
    CHECK(std::isnan(a[i].first) == std::isnan(b[i].first));
  }
}

TEST_CASE("event queue: a batch pops as the same events pushed one by one") {
  std::mt19937 random(24);
  std::uniform_int_distribution<int> tick(0, 5);  // few distinct times: many ties
  for (int round = 0; round < 200; ++round) {
    std::vector<Pushed> before, batch;
    const int n_before = round % 7, n_batch = 1 + round % 23;
    for (int i = 0; i < n_before; ++i) before.push_back({double(tick(random)), uint32_t(i)});
    for (int i = 0; i < n_batch; ++i) batch.push_back({double(tick(random)), uint32_t(100 + i)});
    check_same(before, batch, static_cast<std::size_t>(round % 3));
  }
}

TEST_CASE("event queue: a batch after the run's last event stays in time order") {
  // The run holds 1, 2; the batch 3, 3, 5 pushed as 5, 3, 3: pops 1, 2, then ids 11, 12, 10.
  check_same({{1, 0}, {2, 1}}, {{5, 10}, {3, 11}, {3, 12}}, 0);
  EventQueue queue;
  queue.push(1, EventKind::kStart, 0);
  queue.begin_batch();
  queue.batch_push(5, EventKind::kFinish, 10);
  queue.batch_push(3, EventKind::kFinish, 11);
  queue.batch_push(3, EventKind::kFinish, 12);
  queue.end_batch();
  const std::vector<std::pair<double, uint32_t>> expected = {{1, 0}, {3, 11}, {3, 12}, {5, 10}};
  CHECK(drain(queue) == expected);
}

TEST_CASE("event queue: a batch with an empty, infinite or NaN time pops as single pushes do") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  check_same({{2, 0}}, {}, 0);
  check_same({{2, 0}, {4, 1}}, {{inf, 10}, {3, 11}, {0, 12}}, 1);
  check_same({{2, 0}, {4, 1}}, {{nan, 10}, {3, 11}, {1, 12}}, 0);
}

TEST_CASE("event queue: upcoming() names the run's later events, none once the heap holds any") {
  EventQueue queue;
  for (uint32_t id = 0; id < 5; ++id) queue.push(1.0 + id, EventKind::kStart, id);
  REQUIRE(queue.upcoming(0) != nullptr);
  CHECK(queue.upcoming(0)->id == 0);  // the next pop
  CHECK(queue.upcoming(3)->id == 3);
  CHECK(queue.upcoming(5) == nullptr);  // past the run's end
  queue.pop();
  CHECK(queue.upcoming(1)->id == 2);
  CHECK(queue.upcoming(3)->id == 4);
  CHECK(queue.upcoming(4) == nullptr);
  queue.push(0.5, EventKind::kStart, 9);  // earlier than the run's last: into the heap
  CHECK(queue.upcoming(0) == nullptr);
  CHECK(queue.pop().id == 9);
  CHECK(queue.upcoming(0)->id == 1);  // the heap is empty again
}

}  // namespace
}  // namespace linksim
