// SPDX-License-Identifier: Apache-2.0
// MaxMinSolver: hand-derived max-min allocations and properties on random small systems.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "flowsim/max_min_solver.hpp"

namespace linksim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A system of flows written as lists of resource ids, flattened to the solver's CSR form.
struct System {
  std::vector<double> capacities_Bps;
  std::vector<std::vector<uint32_t>> paths;
  std::vector<double> bounds_Bps{};  // empty: no bounds
  std::vector<uint32_t> flat{};
  std::vector<uint32_t> begin{};

  void flatten() {
    flat.clear();
    begin.assign(1, 0);
    for (const auto& path : paths) {
      flat.insert(flat.end(), path.begin(), path.end());
      begin.push_back(static_cast<uint32_t>(flat.size()));
    }
  }
};

// Solves from scratch; returns the rate of each flow in order.
std::vector<double> solve(System& system) {
  system.flatten();
  MaxMinSolver solver(system.capacities_Bps, system.flat);
  std::vector<uint32_t> slots;
  for (std::size_t f = 0; f < system.paths.size(); ++f) {
    const double bound = system.bounds_Bps.empty() ? kInf : system.bounds_Bps[f];
    slots.push_back(solver.add(system.begin[f], system.begin[f + 1], bound));
  }
  solver.solve();
  std::vector<double> rates;
  for (uint32_t slot : slots) rates.push_back(solver.rate_Bps(slot));
  return rates;
}

TEST_SUITE("flowsim") {
  TEST_CASE("max_min: two flows on one link get equal shares") {
    // One resource of 10 B/s shared by two unbounded flows: 10 / 2 = 5 each.
    System system{.capacities_Bps = {10}, .paths = {{0}, {0}}};
    std::vector<double> rates = solve(system);
    CHECK(rates[0] == doctest::Approx(5).epsilon(1e-12));
    CHECK(rates[1] == doctest::Approx(5).epsilon(1e-12));
  }

  TEST_CASE("max_min: parking lot with unequal links") {
    // Links 0, 1, 2 with 1, 2, 3 B/s. The long flow crosses all three; s_i crosses link i.
    // Levels: link0 1/2, link1 2/2, link2 3/2. Link0 fills first: long = s0 = 0.5.
    // Then link1 has 2 - 0.5 = 1.5 left for s1; link2 has 3 - 0.5 = 2.5 left for s2.
    System system{.capacities_Bps = {1, 2, 3}, .paths = {{0, 1, 2}, {0}, {1}, {2}}};
    std::vector<double> rates = solve(system);
    CHECK(rates[0] == doctest::Approx(0.5).epsilon(1e-12));
    CHECK(rates[1] == doctest::Approx(0.5).epsilon(1e-12));
    CHECK(rates[2] == doctest::Approx(1.5).epsilon(1e-12));
    CHECK(rates[3] == doctest::Approx(2.5).epsilon(1e-12));
  }

  TEST_CASE("max_min: a bounded flow leaves its unused share to the others") {
    // 10 B/s shared by three flows, one bounded at 1 B/s: the bound is met first (1 < 10/3),
    // the other two split the remaining 9: 4.5 each.
    System system{.capacities_Bps = {10}, .paths = {{0}, {0}, {0}}, .bounds_Bps = {1, kInf, kInf}};
    std::vector<double> rates = solve(system);
    CHECK(rates[0] == doctest::Approx(1).epsilon(1e-12));
    CHECK(rates[1] == doctest::Approx(4.5).epsilon(1e-12));
    CHECK(rates[2] == doctest::Approx(4.5).epsilon(1e-12));
  }

  TEST_CASE("max_min: a bound above the fair share does not bind") {
    // 10 B/s, two flows, one bounded at 8: the fair level 5 is reached first; both get 5.
    System system{.capacities_Bps = {10}, .paths = {{0}, {0}}, .bounds_Bps = {8, kInf}};
    std::vector<double> rates = solve(system);
    CHECK(rates[0] == doctest::Approx(5).epsilon(1e-12));
    CHECK(rates[1] == doctest::Approx(5).epsilon(1e-12));
  }

  TEST_CASE("max_min: a path crossing a resource twice counts twice") {
    // Flow a crosses resource 0 twice, flow b once: 2 x + x = 6 at a common level x = 2.
    System system{.capacities_Bps = {6}, .paths = {{0, 0}, {0}}};
    std::vector<double> rates = solve(system);
    CHECK(rates[0] == doctest::Approx(2).epsilon(1e-12));
    CHECK(rates[1] == doctest::Approx(2).epsilon(1e-12));
  }

  TEST_CASE("max_min: a flow with no resources gets its bound, or infinity") {
    System system{.capacities_Bps = {1}, .paths = {{}, {}}, .bounds_Bps = {3, kInf}};
    std::vector<double> rates = solve(system);
    CHECK(rates[0] == 3);
    CHECK(rates[1] == kInf);
  }

  TEST_CASE("max_min: incremental re-solve touches only the changed component") {
    // Two disjoint components: {flows a, b on resource 0} and {flow c on resource 1}.
    // Removing b re-solves resource 0 alone: a rises from 5 to 10, c is not in the component.
    std::vector<double> capacities = {10, 4};
    std::vector<uint32_t> flat = {0, 0, 1};
    MaxMinSolver solver(capacities, flat);
    uint32_t a = solver.add(0, 1, kInf);
    uint32_t b = solver.add(1, 2, kInf);
    uint32_t c = solver.add(2, 3, kInf);
    solver.solve();
    CHECK(solver.rate_Bps(a) == 5);
    CHECK(solver.rate_Bps(c) == 4);
    solver.remove(b);
    CHECK(solver.has_changes());
    solver.collect_component();
    CHECK(solver.component_slots().size() == 1);
    CHECK(solver.component_resources().size() == 1);
    solver.solve_component();
    CHECK(!solver.has_changes());
    CHECK(solver.rate_Bps(a) == 10);
    CHECK(solver.load_Bps(0) == 10);
    CHECK(solver.rate_Bps(c) == 4);
  }

  TEST_CASE("max_min: a component lists each resource once, changed ones first in order") {
    // Flows: a over 2 then 0, b over 0 then 1 (0 changed twice), c over 3, d over 1 then 4.
    // The changes since the last solve are 2, 0, 1 (repeats dropped) then 3, 1, 4: the
    // component starts with them in that order, and nothing else is reachable.
    std::vector<double> capacities = {10, 10, 10, 10, 10};
    std::vector<uint32_t> flat = {2, 0, 0, 1, 3, 1, 4};
    MaxMinSolver solver(capacities, flat);
    solver.add(0, 2, kInf);
    solver.add(2, 4, kInf);
    solver.add(4, 5, kInf);
    solver.add(5, 7, kInf);
    solver.collect_component();
    const std::vector<uint32_t> resources(solver.component_resources().begin(),
                                          solver.component_resources().end());
    CHECK(resources == std::vector<uint32_t>{2, 0, 1, 3, 4});
    CHECK(solver.component_slots().size() == 4);
    solver.solve_component();
    // Removing b changes 0 and 1 again: the next component is reached from them alone
    // (a through 0 reaches 2; d through 1 reaches 4), each listed once.
    solver.remove(1);
    solver.touch(0);
    solver.collect_component();
    const std::vector<uint32_t> again(solver.component_resources().begin(),
                                      solver.component_resources().end());
    CHECK(again == std::vector<uint32_t>{0, 1, 2, 4});
    solver.solve_component();
    CHECK(solver.load_Bps(0) == 10);
    CHECK(solver.load_Bps(1) == 10);
  }

  TEST_CASE("max_min: properties on random small systems") {
    // For each random system: (1) no resource is loaded beyond its capacity; (2) every flow
    // is at its bound or crosses a saturated resource on which no flow is faster (max-min
    // optimality); (3) solving again gives bit-identical rates.
    std::mt19937 rng(12345);
    for (int trial = 0; trial < 200; ++trial) {
      const int resources = 1 + static_cast<int>(rng() % 6);
      const int flows = 1 + static_cast<int>(rng() % 8);
      System system;
      for (int r = 0; r < resources; ++r) system.capacities_Bps.push_back(1 + rng() % 100);
      for (int f = 0; f < flows; ++f) {
        std::vector<uint32_t> path;
        for (int r = 0; r < resources; ++r) {
          if (rng() % 2) path.push_back(static_cast<uint32_t>(r));
        }
        if (path.empty()) path.push_back(static_cast<uint32_t>(rng() % resources));
        system.paths.push_back(path);
        system.bounds_Bps.push_back(rng() % 3 == 0 ? 1.0 + rng() % 50 : kInf);
      }
      const std::vector<double> rates = solve(system);
      std::vector<double> load(resources, 0.0);
      for (int f = 0; f < flows; ++f) {
        for (uint32_t r : system.paths[f]) load[r] += rates[f];
      }
      const double tolerance = 1e-9;
      for (int r = 0; r < resources; ++r) {
        CHECK(load[r] <= system.capacities_Bps[r] * (1 + tolerance));
      }
      for (int f = 0; f < flows; ++f) {
        bool justified = rates[f] >= system.bounds_Bps[f] * (1 - tolerance);
        for (uint32_t r : system.paths[f]) {
          if (load[r] < system.capacities_Bps[r] * (1 - tolerance)) continue;
          bool fastest = true;
          for (int g = 0; g < flows; ++g) {
            for (uint32_t q : system.paths[g]) {
              if (q == r && rates[g] > rates[f] * (1 + tolerance)) fastest = false;
            }
          }
          justified = justified || fastest;
        }
        CHECK(justified);
      }
      CHECK(solve(system) == rates);
    }
  }
}

}  // namespace
}  // namespace linksim

namespace linksim {
namespace {

TEST_SUITE("flowsim") {
  TEST_CASE("max_min: incremental re-solves agree with solving from scratch") {
    // Random adds and removes on 8 resources; after each, the incremental rates of the active
    // flows must equal (to 1e-12 relative) those of a fresh solver given the same flows.
    std::mt19937 rng(7);
    std::vector<double> capacities = {1, 2, 3, 4, 5, 6, 7, 8};
    std::vector<uint32_t> flat;
    std::vector<uint32_t> begin = {0};
    for (int f = 0; f < 64; ++f) {  // a pool of candidate paths
      const uint32_t hops = 1 + rng() % 3;
      for (uint32_t h = 0; h < hops; ++h) flat.push_back(static_cast<uint32_t>(rng() % 8));
      begin.push_back(static_cast<uint32_t>(flat.size()));
    }
    MaxMinSolver incremental(capacities, flat);
    std::vector<std::pair<uint32_t, uint32_t>> active;  // (candidate, slot)
    for (int step = 0; step < 300; ++step) {
      if (active.empty() || (active.size() < 32 && rng() % 3 != 0)) {
        // A CSR range may be active only once at a time (MaxMinSolver::add's contract).
        uint32_t candidate = rng() % 64;
        while (std::any_of(active.begin(), active.end(),
                           [&](auto entry) { return entry.first == candidate; })) {
          candidate = (candidate + 1) % 64;
        }
        active.emplace_back(candidate, incremental.add(begin[candidate], begin[candidate + 1], kInf));
      } else {
        const std::size_t victim = rng() % active.size();
        incremental.remove(active[victim].second);
        active.erase(active.begin() + static_cast<std::ptrdiff_t>(victim));
      }
      incremental.solve();
      MaxMinSolver fresh(capacities, flat);
      std::vector<uint32_t> fresh_slots;
      for (auto [candidate, slot] : active) {
        fresh_slots.push_back(fresh.add(begin[candidate], begin[candidate + 1], kInf));
      }
      fresh.solve();
      for (std::size_t i = 0; i < active.size(); ++i) {
        CHECK(incremental.rate_Bps(active[i].second) ==
              doctest::Approx(fresh.rate_Bps(fresh_slots[i])).epsilon(1e-12));
      }
    }
  }
}

}  // namespace
}  // namespace linksim

namespace linksim {
namespace {

TEST_CASE("max-min solver: rate_changed tells the component's slots whose rate moved") {
  // Resources 0 (10 B/s) and 1 (4 B/s). a crosses 0; b crosses 0 and 1; c crosses 1.
  const std::vector<double> capacities_Bps = {10, 4};
  const std::vector<uint32_t> path_a = {0}, path_b = {0, 1}, path_c = {1};
  MaxMinSolver solver(capacities_Bps);
  const uint32_t a = solver.add(path_a, kInf);
  const uint32_t b = solver.add(path_b, kInf);
  solver.solve();  // resource 1 alone limits b at 4; a gets 10 - 4 = 6
  CHECK(solver.rate_Bps(a) == 6);
  CHECK(solver.rate_Bps(b) == 4);
  CHECK(solver.rate_changed(a));  // from 0 at add()
  CHECK(solver.rate_changed(b));
  const uint32_t c = solver.add(path_c, kInf);
  solver.solve();  // b and c share 4 B/s: 2 each; a gets 8
  CHECK(solver.rate_Bps(c) == 2);
  CHECK(solver.rate_changed(a));
  CHECK(solver.rate_changed(b));
  CHECK(solver.rate_changed(c));
  solver.touch(0);
  solver.solve();  // the same component, the same rates
  CHECK(solver.component_slots().size() == 3);
  CHECK_FALSE(solver.rate_changed(a));
  CHECK_FALSE(solver.rate_changed(b));
  CHECK_FALSE(solver.rate_changed(c));
  solver.remove(c);
  solver.solve();  // back to 6 and 4
  CHECK(solver.rate_Bps(a) == 6);
  CHECK(solver.rate_changed(a));
  CHECK(solver.rate_changed(b));
}

}  // namespace
}  // namespace linksim

namespace linksim {
namespace {

// The user lists as the solver's contract orders them: each crossing (slot, hop) appended at
// add(); remove() takes the slot's hops in path order, each swapped with its list's last entry.
struct UserListModel {
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> users;  // per resource: (slot, hop)

  void add(uint32_t slot, const std::vector<uint32_t>& path) {
    for (uint32_t hop = 0; hop < path.size(); ++hop) users[path[hop]].emplace_back(slot, hop);
  }
  void remove(uint32_t slot, const std::vector<uint32_t>& path) {
    for (uint32_t hop = 0; hop < path.size(); ++hop) {
      auto& list = users[path[hop]];
      const auto at = std::find(list.begin(), list.end(), std::make_pair(slot, hop));
      *at = list.back();
      list.pop_back();
    }
  }
};

// `count` paths of 1-4 hops, each hop one of `resources` resources drawn from `rng` (a
// resource may repeat within a path).
std::vector<std::vector<uint32_t>> random_paths(std::mt19937& rng, std::size_t count,
                                                uint32_t resources) {
  std::vector<std::vector<uint32_t>> paths(count);
  for (auto& path : paths) {
    path.resize(1 + rng() % 4);
    for (uint32_t& resource : path) resource = static_cast<uint32_t>(rng() % resources);
  }
  return paths;
}

// Checks, for each resource, that its load sums its users' rates in the model's list order,
// bit for bit, and that a search from it collects its users in that order.
void check_user_lists(MaxMinSolver& solver, const UserListModel& model) {
  for (uint32_t resource = 0; resource < model.users.size(); ++resource) {
    CAPTURE(resource);
    std::vector<uint32_t> expected;
    double load_Bps = 0;
    for (const auto& user : model.users[resource]) {
      load_Bps += solver.rate_Bps(user.first);
      if (std::find(expected.begin(), expected.end(), user.first) == expected.end()) {
        expected.push_back(user.first);
      }
    }
    CHECK(solver.load_Bps(resource) == load_Bps);
    solver.touch(resource);
    solver.collect_component();
    const auto slots = solver.component_slots();
    REQUIRE(slots.size() >= expected.size());
    CHECK(std::vector<uint32_t>(slots.begin(), slots.begin() + static_cast<std::ptrdiff_t>(
                                                                   expected.size())) == expected);
    solver.solve_component();
  }
}

TEST_CASE("max-min solver: user lists keep swap-remove order, paths crossing a resource twice") {
  // Paths of 1-4 hops over 4 resources (repeats are frequent); random adds and removes. After
  // each, the slots collected from one changed resource are its users in list order (first
  // crossing of each slot), and its load sums its users' rates in that order, bit for bit.
  std::mt19937 rng(11);
  const std::vector<double> capacities_Bps = {3, 5, 7, 11};
  const std::vector<std::vector<uint32_t>> paths = random_paths(rng, 48, 4);
  MaxMinSolver solver(capacities_Bps);
  UserListModel model{.users = std::vector<std::vector<std::pair<uint32_t, uint32_t>>>(4)};
  std::vector<std::pair<uint32_t, uint32_t>> active;  // (path, slot)
  for (int step = 0; step < 400; ++step) {
    if (active.empty() || (active.size() < 24 && rng() % 2 == 0)) {
      const uint32_t p = static_cast<uint32_t>(rng() % paths.size());
      const uint32_t slot = solver.add(paths[p], kInf);
      model.add(slot, paths[p]);
      active.emplace_back(p, slot);
    } else {
      const std::size_t victim = rng() % active.size();
      solver.remove(active[victim].second);
      model.remove(active[victim].second, paths[active[victim].first]);
      active.erase(active.begin() + static_cast<std::ptrdiff_t>(victim));
    }
    solver.solve();
    CAPTURE(step);
    check_user_lists(solver, model);
  }
}

TEST_CASE("max-min solver: removals batched between solves keep swap-remove order") {
  // Between two solves, 1-8 random adds and removes (a removed slot may be reused by an add of
  // the same batch), and every 25th batch removes every active slot: lists emptied whole,
  // lists left with some entries, and lists of resources crossed twice by one slot.
  std::mt19937 rng(29);
  const std::vector<double> capacities_Bps = {3, 5, 7, 11, 13};
  const std::vector<std::vector<uint32_t>> paths = random_paths(rng, 64, 5);
  MaxMinSolver solver(capacities_Bps);
  UserListModel model{.users = std::vector<std::vector<std::pair<uint32_t, uint32_t>>>(5)};
  std::vector<std::pair<uint32_t, uint32_t>> active;  // (path, slot)
  const auto remove_at = [&](std::size_t victim) {
    solver.remove(active[victim].second);
    model.remove(active[victim].second, paths[active[victim].first]);
    active.erase(active.begin() + static_cast<std::ptrdiff_t>(victim));
  };
  for (int batch = 1; batch <= 300; ++batch) {
    CAPTURE(batch);
    if (batch % 25 == 0) {
      while (!active.empty()) remove_at(rng() % active.size());
    } else {
      const uint32_t operations = 1 + static_cast<uint32_t>(rng() % 8);
      for (uint32_t i = 0; i < operations; ++i) {
        if (active.empty() || (active.size() < 32 && rng() % 2 == 0)) {
          const uint32_t p = static_cast<uint32_t>(rng() % paths.size());
          const uint32_t slot = solver.add(paths[p], kInf);
          model.add(slot, paths[p]);
          active.emplace_back(p, slot);
        } else {
          remove_at(rng() % active.size());
        }
      }
    }
    solver.solve();
    check_user_lists(solver, model);
  }
}

}  // namespace
}  // namespace linksim
