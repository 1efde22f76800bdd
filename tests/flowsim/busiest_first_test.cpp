// SPDX-License-Identifier: Apache-2.0
// busiest_first: the bottleneck order against a stable sort of (busy time, id) in id order.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "flowsim/busiest_first.hpp"

namespace linksim::flowsim_internal {
namespace {

std::vector<ResourceId> reference_order(const std::vector<ResourceUsage>& resources) {
  std::vector<std::pair<double, uint32_t>> keys;
  for (uint32_t r = 0; r < resources.size(); ++r) {
    if (resources[r].busy_s > 0) keys.emplace_back(resources[r].busy_s, r);
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<ResourceId> order;
  for (const auto& key : keys) order.push_back(ResourceId{key.second});
  return order;
}

TEST_CASE("busiest_first orders by busy time descending, ties by id, few or many times") {
  std::mt19937 random(5);
  // Distinct busy times drawn from: below, at and above the few-times limit (the bucket and
  // the sort paths), with idle resources (busy 0) among them.
  for (const std::size_t times : {std::size_t{1}, std::size_t{2}, kFewBusyTimes,
                                  kFewBusyTimes + 1, std::size_t{1000}}) {
    CAPTURE(times);
    std::vector<double> values;
    for (std::size_t i = 0; i < times; ++i) values.push_back(1e-3 * (1 + random() % 100000));
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<ResourceUsage> resources(1 + random() % 3000);
      for (ResourceUsage& resource : resources) {
        resource.busy_s = random() % 4 == 0 ? 0.0 : values[random() % values.size()];
      }
      CHECK(busiest_first(resources) == reference_order(resources));
    }
  }
}

TEST_CASE("busiest_first: hand-made order, and nothing busy") {
  const std::vector<ResourceUsage> resources = {
      {.bytes = 1, .busy_s = 2}, {.bytes = 1, .busy_s = 0}, {.bytes = 1, .busy_s = 5},
      {.bytes = 1, .busy_s = 2}, {.bytes = 1, .busy_s = 5}};
  CHECK(busiest_first(resources) ==
        std::vector<ResourceId>{ResourceId{2}, ResourceId{4}, ResourceId{0}, ResourceId{3}});
  CHECK(busiest_first(std::vector<ResourceUsage>(4)).empty());
}

}  // namespace
}  // namespace linksim::flowsim_internal
