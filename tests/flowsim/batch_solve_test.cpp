// SPDX-License-Identifier: Apache-2.0
// The max-min solver's batch shortcuts against straightforward references, bit for bit: the
// component search of a batch started on an idle solver (no path scan) against a plain
// breadth-first search, and the lazily raised level heap against progressive filling that
// recomputes every level before each step. Also the event loop's in-order push of a re-solve's
// finish events (few distinct times) and its sorted fallback (many), on hand-derived times.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "flowsim/max_min_solver.hpp"
#include "linksim/flowsim.hpp"

namespace linksim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Flow {
  std::vector<uint32_t> path;
  double bound_Bps = kInf;
};

// A resource's user list as add() builds it on a solver that never removed: (flow, hop) of
// each crossing, flows in add order, hops in path order.
std::vector<std::vector<std::pair<uint32_t, uint32_t>>> users_of(const std::vector<Flow>& flows,
                                                                 std::size_t resources) {
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> users(resources);
  for (uint32_t f = 0; f < flows.size(); ++f) {
    for (uint32_t hop = 0; hop < flows[f].path.size(); ++hop) {
      users[flows[f].path[hop]].emplace_back(f, hop);
    }
  }
  return users;
}

// Progressive filling, eager: before each step every level is computed afresh and the least
// (level, kind, id) entry is taken, kind 0 a resource at max(0, remaining) / unfixed users,
// kind 1 an unfixed flow's bound; a resource fixes its unfixed users in list order at its
// level, and fixing a flow subtracts its rate from each resource of its path in order.
std::vector<double> eager_rates(const std::vector<double>& capacities_Bps,
                                const std::vector<Flow>& flows) {
  const std::size_t resources = capacities_Bps.size();
  const auto users = users_of(flows, resources);
  std::vector<double> remaining_Bps = capacities_Bps;
  std::vector<uint32_t> unfixed(resources);
  for (std::size_t r = 0; r < resources; ++r) unfixed[r] = users[r].size();
  std::vector<double> rate_Bps(flows.size(), kInf);
  std::vector<bool> fixed(flows.size(), false);
  const auto fix = [&](uint32_t f, double level_Bps) {
    rate_Bps[f] = level_Bps;
    fixed[f] = true;
    for (uint32_t r : flows[f].path) {
      remaining_Bps[r] -= level_Bps;
      --unfixed[r];
    }
  };
  while (true) {
    double best_level = kInf;
    int best_kind = 2;
    uint32_t best_id = 0;
    const auto consider = [&](double level, int kind, uint32_t id) {
      if (level < best_level || (level == best_level && kind < best_kind) ||
          (level == best_level && kind == best_kind && id < best_id)) {
        best_level = level;
        best_kind = kind;
        best_id = id;
      }
    };
    for (uint32_t r = 0; r < resources; ++r) {
      if (unfixed[r] > 0) consider(std::max(0.0, remaining_Bps[r]) / unfixed[r], 0, r);
    }
    for (uint32_t f = 0; f < flows.size(); ++f) {
      if (!fixed[f] && flows[f].bound_Bps < kInf) consider(flows[f].bound_Bps, 1, f);
    }
    if (best_kind == 2) break;
    if (best_kind == 1) {
      fix(best_id, best_level);
      continue;
    }
    for (auto [f, hop] : users[best_id]) {
      if (!fixed[f]) fix(f, best_level);
    }
  }
  return rate_Bps;
}

// Breadth-first from `changed` (in order): each listed resource's users in list order, each
// new flow's path resources appended. Returns the flows in visit order.
std::vector<uint32_t> bfs_flows(const std::vector<Flow>& flows, std::size_t resources,
                                const std::vector<uint32_t>& changed) {
  const auto users = users_of(flows, resources);
  std::vector<bool> listed(resources, false), visited(flows.size(), false);
  std::vector<uint32_t> queue;
  for (uint32_t r : changed) {
    if (!listed[r]) queue.push_back(r);
    listed[r] = true;
  }
  std::vector<uint32_t> order;
  for (std::size_t next = 0; next < queue.size(); ++next) {
    for (auto [f, hop] : users[queue[next]]) {
      if (visited[f]) continue;
      visited[f] = true;
      order.push_back(f);
      for (uint32_t r : flows[f].path) {
        if (!listed[r]) queue.push_back(r);
        listed[r] = true;
      }
    }
  }
  return order;
}

// Random flows over `resources` resources of a few capacities (many equal levels, so ties
// decide the order), 1-4 hops (a resource may repeat), a third of them bounded.
std::vector<Flow> random_flows(std::mt19937& random, std::size_t count, uint32_t resources) {
  std::vector<Flow> flows(count);
  for (Flow& flow : flows) {
    const uint32_t hops = 1 + random() % 4;
    for (uint32_t h = 0; h < hops; ++h) flow.path.push_back(random() % resources);
    if (random() % 3 == 0) flow.bound_Bps = 1.0 + random() % 7;
  }
  return flows;
}

std::vector<double> random_capacities(std::mt19937& random, uint32_t resources) {
  const double choices[] = {6, 10, 12, 7.5};
  std::vector<double> capacities_Bps;
  for (uint32_t r = 0; r < resources; ++r) capacities_Bps.push_back(choices[random() % 4]);
  return capacities_Bps;
}

TEST_CASE("batch solve: a batch on an idle solver gives progressive filling's bits") {
  std::mt19937 random(2024);
  for (int trial = 0; trial < 400; ++trial) {
    const uint32_t resources = 1 + random() % 12;
    const std::vector<double> capacities_Bps = random_capacities(random, resources);
    const std::vector<Flow> flows = random_flows(random, 1 + random() % 30, resources);
    MaxMinSolver solver(capacities_Bps);
    std::vector<uint32_t> slots, changed;
    for (const Flow& flow : flows) {
      slots.push_back(solver.add(flow.path, flow.bound_Bps));
      changed.insert(changed.end(), flow.path.begin(), flow.path.end());
    }
    solver.collect_component();
    // Slots are 0, 1, ... in add order on a fresh solver.
    const std::vector<uint32_t> component(solver.component_slots().begin(),
                                          solver.component_slots().end());
    CHECK(component == bfs_flows(flows, resources, changed));
    solver.solve_component();
    const std::vector<double> expected = eager_rates(capacities_Bps, flows);
    for (std::size_t f = 0; f < flows.size(); ++f) CHECK(solver.rate_Bps(slots[f]) == expected[f]);
  }
}

TEST_CASE("batch solve: progressive filling's bits whether levels start in id or search order") {
  // solve_component starts a component of at least 1/8 of the solver's resources in id order
  // and a smaller one in search order: the flows use the first `used` resources of a solver
  // with `used` (at least 1/8) or 9 * `used` (less than 1/8) resources.
  std::mt19937 random(77);
  for (const uint32_t spread : {1u, 9u}) {
    CAPTURE(spread);
    for (int trial = 0; trial < 200; ++trial) {
      const uint32_t used = 1 + random() % 12;
      std::vector<double> capacities_Bps = random_capacities(random, used * spread);
      const std::vector<Flow> flows = random_flows(random, 1 + random() % 30, used);
      MaxMinSolver solver(capacities_Bps);
      std::vector<uint32_t> slots;
      for (const Flow& flow : flows) slots.push_back(solver.add(flow.path, flow.bound_Bps));
      solver.solve();
      const std::vector<double> expected = eager_rates(capacities_Bps, flows);
      for (std::size_t f = 0; f < flows.size(); ++f) {
        CHECK(solver.rate_Bps(slots[f]) == expected[f]);
      }
    }
  }
}

TEST_CASE("batch solve: a level that rounding lowers is taken at its new level") {
  // Resources B (0), D (1), A (2) of 5 B/s, three users each: all at 5/3. B fills first (least
  // id) and fixes f1 at 5/3, which leaves A at (5 - 5/3) / 2 = 1.6666666666666665, one ulp
  // below 5/3 = 1.6666666666666667. So A fills next, before D (still at 5/3): f2 and f3 get
  // A's new level; an entry left at A's old level would have let D fix f2 at 5/3 first.
  const std::vector<double> capacities_Bps = {5, 5, 5};
  const std::vector<Flow> flows = {
      {.path = {0, 2}},  // f1
      {.path = {0}},     // b2
      {.path = {0}},     // b3
      {.path = {1, 2}},  // f2
      {.path = {2}},     // f3
      {.path = {1}},     // d2
      {.path = {1}},     // d3
  };
  const double a_level_Bps = (5.0 - 5.0 / 3) / 2;
  REQUIRE(a_level_Bps < 5.0 / 3);
  MaxMinSolver solver(capacities_Bps);
  std::vector<uint32_t> slots;
  for (const Flow& flow : flows) slots.push_back(solver.add(flow.path, flow.bound_Bps));
  solver.solve();
  CHECK(solver.rate_Bps(slots[0]) == 5.0 / 3);
  CHECK(solver.rate_Bps(slots[3]) == a_level_Bps);
  CHECK(solver.rate_Bps(slots[4]) == a_level_Bps);
  const std::vector<double> expected = eager_rates(capacities_Bps, flows);
  for (std::size_t f = 0; f < flows.size(); ++f) CHECK(solver.rate_Bps(slots[f]) == expected[f]);
}

TEST_CASE("batch solve: adds beside solved flows search their paths as before") {
  // Old flows solved first, then a batch: the search must follow the old flows' paths (the
  // shortcut does not apply), and the rates are those of the whole set solved at once.
  std::mt19937 random(77);
  for (int trial = 0; trial < 200; ++trial) {
    const uint32_t resources = 2 + random() % 10;
    const std::vector<double> capacities_Bps = random_capacities(random, resources);
    const std::vector<Flow> flows = random_flows(random, 2 + random() % 20, resources);
    const std::size_t old_count = 1 + random() % (flows.size() - 1);
    MaxMinSolver solver(capacities_Bps);
    for (std::size_t f = 0; f < old_count; ++f) solver.add(flows[f].path, flows[f].bound_Bps);
    solver.solve();
    std::vector<uint32_t> changed;
    for (std::size_t f = old_count; f < flows.size(); ++f) {
      solver.add(flows[f].path, flows[f].bound_Bps);
      changed.insert(changed.end(), flows[f].path.begin(), flows[f].path.end());
    }
    solver.collect_component();
    const std::vector<uint32_t> component(solver.component_slots().begin(),
                                          solver.component_slots().end());
    CHECK(component == bfs_flows(flows, resources, changed));
    solver.solve_component();
    const std::vector<double> expected = eager_rates(capacities_Bps, flows);
    for (uint32_t slot : component) CHECK(solver.rate_Bps(slot) == expected[slot]);
  }
}

TEST_CASE("batch solve: solves after a large component's, which frees the scratch, keep the bits") {
  // solve_component frees its per-resource scratch after a component of at least 1/8 of the
  // resources and allocates it again at the next solve that fills a resource. Rounds of adds
  // on 16 resources give components of either size (a flow's path spans up to 4 of them);
  // after each round every rate is progressive filling's of all flows so far.
  std::mt19937 random(4242);
  constexpr uint32_t kResources = 16;
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<double> capacities_Bps = random_capacities(random, kResources);
    MaxMinSolver solver(capacities_Bps);
    std::vector<Flow> flows;
    for (int round = 0; round < 4; ++round) {
      const std::vector<Flow> batch = random_flows(random, 1 + random() % 6, kResources);
      for (const Flow& flow : batch) {
        // The solver reads the path where it was added: the copy in `flows`, whose storage
        // moves with it as `flows` grows. Slots are 0, 1, ... in add order (no removal).
        flows.push_back(flow);
        CHECK(solver.add(flows.back().path, flow.bound_Bps) == flows.size() - 1);
      }
      solver.solve();
      const std::vector<double> expected = eager_rates(capacities_Bps, flows);
      for (uint32_t f = 0; f < flows.size(); ++f) CHECK(solver.rate_Bps(f) == expected[f]);
    }
  }
}

TEST_CASE("batch solve: a flow added and removed before the search keeps the path scan") {
  // Resources 0 and 1. Old flow a crosses 0 and 1; b (crossing 0) is added and removed; c
  // crosses 1. Active slots (a, c) = adds since the search (b, c) in number, but a is old: the
  // search from resource 1 must still reach resource 0 through a's path.
  const std::vector<double> capacities_Bps = {10, 4};
  const std::vector<uint32_t> path_a = {0, 1}, path_b = {0}, path_c = {1};
  MaxMinSolver solver(capacities_Bps);
  const uint32_t a = solver.add(path_a, kInf);
  solver.solve();
  const uint32_t b = solver.add(path_b, kInf);
  solver.remove(b);
  const uint32_t c = solver.add(path_c, kInf);
  solver.collect_component();
  CHECK(solver.component_resources().size() == 2);
  CHECK(solver.component_slots().size() == 2);
  solver.solve_component();
  CHECK(solver.rate_Bps(a) == 2);  // resource 1: 4 B/s shared by a and c
  CHECK(solver.rate_Bps(c) == 2);
}

TEST_CASE("batch solve: a resource's listed mark lasts until the search that lists it") {
  // Resources 0, 1, 2; a crosses 0 and 1. Touching 2 twice lists it once; after the search,
  // the same resources are listed again by new touches, each once, in order of first touch.
  const std::vector<double> capacities_Bps = {10, 10, 10};
  const std::vector<uint32_t> path_a = {0, 1};
  MaxMinSolver solver(capacities_Bps);
  solver.add(path_a, kInf);
  solver.touch(2);
  solver.touch(0);
  solver.touch(2);
  solver.collect_component();
  CHECK(std::vector<uint32_t>(solver.component_resources().begin(),
                              solver.component_resources().end()) ==
        std::vector<uint32_t>{0, 1, 2});
  solver.touch(1);  // between the search and the solve: listed for the next search
  solver.solve_component();
  solver.touch(2);
  solver.touch(1);
  solver.collect_component();
  CHECK(std::vector<uint32_t>(solver.component_resources().begin(),
                              solver.component_resources().end()) ==
        std::vector<uint32_t>{1, 2, 0});
  solver.solve_component();
  CHECK_FALSE(solver.has_changes());
}

TEST_CASE("batch solve: re-solve finishes at few and at many distinct times") {
  // n flows on n links of 1 GB/s, flow i of (1 + i mod m) MB: m distinct finish times,
  // (1 + i mod m) ms each; transfer n + i follows flow i with 1 MB on link i (1 ms more).
  // n = 2048 schedules the finishes as m groups when m = 3, one event each when m = 12; n = 24
  // one event each.
  for (uint32_t n : {24u, 2048u}) {
    for (uint32_t distinct : {3u, 12u}) {
      FlowSimulator sim(std::vector<double>(n, 1e9));
      std::vector<std::vector<ResourceId>> paths(n);
      std::vector<TransferId> firsts;
      for (uint32_t i = 0; i < n; ++i) {
        paths[i] = {ResourceId{i}};
        firsts.push_back(sim.add_transfer({.bytes = 1e6 * (1 + i % distinct), .path = paths[i]}));
      }
      for (uint32_t i = 0; i < n; ++i) {
        sim.add_transfer({.bytes = 1e6, .path = paths[i], .after = {&firsts[i], 1}});
      }
      const FlowResult result = sim.run();
      for (uint32_t i = 0; i < n; ++i) {
        const double first_s = 1e-3 * (1 + i % distinct);
        CHECK(result.transfers[i].finish_s == doctest::Approx(first_s));
        CHECK(result.transfers[n + i].ready_s == result.transfers[i].finish_s);
        CHECK(result.transfers[n + i].finish_s == doctest::Approx(first_s + 1e-3));
      }
      CHECK(result.makespan_s == doctest::Approx(1e-3 * (distinct + 1)));
    }
  }
}

TEST_CASE("batch solve: busy times whether a re-solve meters a few resources or most") {
  // 64 links of 1 GB/s. Transfers 0-1 cross links 0 and 1 (2 MB each, sharing: 4 ms busy);
  // after them, transfer 2 crosses every link (1 MB, 1 ms). The first re-solves meter 2 of 64
  // links (in search order), the last all 64 (in id order): links 0-1 are busy 5 ms, the rest
  // 1 ms.
  const uint32_t links = 64;
  FlowSimulator sim(std::vector<double>(links, 1e9));
  const std::vector<ResourceId> pair = {ResourceId{0}, ResourceId{1}};
  std::vector<ResourceId> all;
  for (uint32_t r = 0; r < links; ++r) all.push_back(ResourceId{r});
  const TransferId a = sim.add_transfer({.bytes = 2e6, .path = pair});
  const TransferId b = sim.add_transfer({.bytes = 2e6, .path = pair});
  const TransferId after[] = {a, b};
  sim.add_transfer({.bytes = 1e6, .path = all, .after = after});
  const FlowResult result = sim.run();
  CHECK(result.makespan_s == doctest::Approx(5e-3));
  for (uint32_t r = 0; r < links; ++r) {
    CHECK(result.resources[r].busy_s == doctest::Approx(r < 2 ? 5e-3 : 1e-3));
  }
}

}  // namespace
}  // namespace linksim
