// SPDX-License-Identifier: Apache-2.0
// FlowSimulator: hand-computed timings, metering, and the exact texts of input errors.
#include <doctest/doctest.h>

#include <vector>

#include "linksim/error.hpp"
#include "linksim/flowsim.hpp"

namespace linksim {
namespace {

constexpr double kGBps = 1e9;  // bytes/s

std::vector<ResourceId> path_of(std::initializer_list<uint32_t> ids) {
  std::vector<ResourceId> path;
  for (uint32_t id : ids) path.push_back(ResourceId{id});
  return path;
}

TEST_SUITE("flowsim") {
  TEST_CASE("flowsim: a single flow takes latency + bytes / capacity") {
    // 1e6 B over one 1 GB/s link after 2 us: 2e-6 + 1e6 / 1e9 = 1.002e-3 s.
    // The link is saturated during the 1e-3 s of sharing phase and carries 1e6 B.
    FlowSimulator sim({kGBps});
    auto link = path_of({0});
    sim.add_transfer({.bytes = 1e6, .path = link, .latency_s = 2e-6});
    FlowResult result = sim.run();
    CHECK(result.transfers[0].ready_s == 0);
    CHECK(result.transfers[0].finish_s == doctest::Approx(1.002e-3).epsilon(1e-12));
    CHECK(result.makespan_s == result.transfers[0].finish_s);
    CHECK(result.resources[0].bytes == 1e6);
    CHECK(result.resources[0].busy_s == doctest::Approx(1e-3).epsilon(1e-12));
    REQUIRE(result.bottlenecks.size() == 1);
    CHECK(result.bottlenecks[0] == ResourceId{0});
  }

  TEST_CASE("flowsim: without recorded transfer times the result is otherwise the same") {
    // Two flows after a dependency: 1e6 B alone (1e-3 s), then 1e6 B and 3e6 B sharing.
    auto run = [](bool record) {
      FlowSimulator sim({kGBps}, FlowSimOptions{.record_transfer_times = record});
      auto link = path_of({0});
      const TransferId first = sim.add_transfer({.bytes = 1e6, .path = link});
      const TransferId after[] = {first};
      sim.add_transfer({.bytes = 1e6, .path = link, .after = after});
      sim.add_transfer({.bytes = 3e6, .path = link, .after = after});
      return sim.run();
    };
    const FlowResult recorded = run(true);
    const FlowResult bare = run(false);
    CHECK(recorded.transfers.size() == 3);
    CHECK(bare.transfers.empty());
    CHECK(bare.makespan_s == recorded.makespan_s);
    CHECK(bare.makespan_s == doctest::Approx(5e-3).epsilon(1e-12));
    CHECK(bare.resources[0].bytes == recorded.resources[0].bytes);
    CHECK(bare.resources[0].busy_s == recorded.resources[0].busy_s);
    CHECK(bare.bottlenecks == recorded.bottlenecks);
  }

  TEST_CASE("flowsim: two flows on one link share it, then the survivor speeds up") {
    // 1 GB/s link; A = 1e6 B, B = 3e6 B. Both at 0.5 GB/s until A is done at 1e6/5e8 = 2e-3 s
    // (B moved 1e6 too); B then has 2e6 B alone at 1 GB/s: 2e-3 + 2e-3 = 4e-3 s.
    FlowSimulator sim({kGBps});
    auto link = path_of({0});
    sim.add_transfer({.bytes = 1e6, .path = link});
    sim.add_transfer({.bytes = 3e6, .path = link});
    FlowResult result = sim.run();
    CHECK(result.transfers[0].finish_s == doctest::Approx(2e-3).epsilon(1e-12));
    CHECK(result.transfers[1].finish_s == doctest::Approx(4e-3).epsilon(1e-12));
    CHECK(result.resources[0].bytes == 4e6);
    CHECK(result.resources[0].busy_s == doctest::Approx(4e-3).epsilon(1e-12));
  }

  TEST_CASE("flowsim: parking lot") {
    // Links 0, 1, 2 of 1, 2, 3 GB/s; `long` crosses all three, s_i crosses link i; 1e9 B each.
    // Max-min: link0 fills first (level 0.5 GB/s): long = s0 = 0.5; s1 = 2 - 0.5 = 1.5;
    // s2 = 3 - 0.5 = 2.5 GB/s. s2 ends at 1/2.5 = 0.4 s and s1 at 1/1.5 = 2/3 s; neither frees
    // link0, so long and s0 stay at 0.5 and end at 2 s.
    // Busy: link0 saturated for 2 s; link1 (load 2) until 2/3 s; link2 (load 3) until 0.4 s.
    FlowSimulator sim({1 * kGBps, 2 * kGBps, 3 * kGBps});
    auto all = path_of({0, 1, 2});
    auto l0 = path_of({0}), l1 = path_of({1}), l2 = path_of({2});
    sim.add_transfer({.bytes = 1e9, .path = all});
    sim.add_transfer({.bytes = 1e9, .path = l0});
    sim.add_transfer({.bytes = 1e9, .path = l1});
    sim.add_transfer({.bytes = 1e9, .path = l2});
    FlowResult result = sim.run();
    CHECK(result.transfers[0].finish_s == doctest::Approx(2).epsilon(1e-12));
    CHECK(result.transfers[1].finish_s == doctest::Approx(2).epsilon(1e-12));
    CHECK(result.transfers[2].finish_s == doctest::Approx(2.0 / 3).epsilon(1e-12));
    CHECK(result.transfers[3].finish_s == doctest::Approx(0.4).epsilon(1e-12));
    CHECK(result.resources[0].busy_s == doctest::Approx(2).epsilon(1e-12));
    CHECK(result.resources[1].busy_s == doctest::Approx(2.0 / 3).epsilon(1e-12));
    CHECK(result.resources[2].busy_s == doctest::Approx(0.4).epsilon(1e-12));
    CHECK(result.resources[1].bytes == 2e9);
    CHECK(result.bottlenecks == std::vector<ResourceId>{{0}, {1}, {2}});
  }

  TEST_CASE("flowsim: flows with different rate caps") {
    // 1 GB/s link; A capped at 0.2 GB/s, B uncapped; 1e6 B each. A = 0.2, B = 0.8 GB/s.
    // B ends at 1e6 / 8e8 = 1.25e-3 s; A stays at its cap: 1e6 / 2e8 = 5e-3 s.
    // The link is saturated only while both run: busy 1.25e-3 s.
    FlowSimulator sim({kGBps});
    auto link = path_of({0});
    sim.add_transfer({.bytes = 1e6, .path = link, .rate_cap_Bps = 0.2 * kGBps});
    sim.add_transfer({.bytes = 1e6, .path = link});
    FlowResult result = sim.run();
    CHECK(result.transfers[0].finish_s == doctest::Approx(5e-3).epsilon(1e-12));
    CHECK(result.transfers[1].finish_s == doctest::Approx(1.25e-3).epsilon(1e-12));
    CHECK(result.resources[0].busy_s == doctest::Approx(1.25e-3).epsilon(1e-12));
  }

  TEST_CASE("flowsim: the latency phase uses no bandwidth") {
    // 1 GB/s link; A (1e6 B, no latency) and B (1e6 B, latency 0.5 ms), both ready at 0.
    // A alone moves 5e5 B by 0.5 ms; then 0.5 GB/s each: A's last 5e5 B take 1 ms -> 1.5 ms,
    // while B moves 5e5; B's last 5e5 B alone at 1 GB/s take 0.5 ms -> 2 ms.
    FlowSimulator sim({kGBps});
    auto link = path_of({0});
    sim.add_transfer({.bytes = 1e6, .path = link});
    sim.add_transfer({.bytes = 1e6, .path = link, .latency_s = 5e-4});
    FlowResult result = sim.run();
    CHECK(result.transfers[0].finish_s == doctest::Approx(1.5e-3).epsilon(1e-12));
    CHECK(result.transfers[1].finish_s == doctest::Approx(2e-3).epsilon(1e-12));
    CHECK(result.resources[0].busy_s == doctest::Approx(2e-3).epsilon(1e-12));
  }

  TEST_CASE("flowsim: dependency chains and joins") {
    // 1 GB/s link. A: 1e6 B, 1 us -> ends 1e-6 + 1e-3 = 1.001e-3 s.
    // B after A: 2e6 B, 2 us -> ready 1.001e-3, ends 1.001e-3 + 2e-6 + 2e-3 = 3.003e-3 s.
    // C after A and B: 0 B, 5 us -> ready 3.003e-3, ends 3.008e-3 s.
    FlowSimulator sim({kGBps});
    auto link = path_of({0});
    TransferId a = sim.add_transfer({.bytes = 1e6, .path = link, .latency_s = 1e-6});
    TransferId a_only[] = {a};
    TransferId b = sim.add_transfer({.bytes = 2e6, .path = link, .latency_s = 2e-6, .after = a_only});
    TransferId both[] = {a, b};
    TransferId c = sim.add_transfer({.bytes = 0, .latency_s = 5e-6, .after = both});
    CHECK(c == TransferId{2});
    FlowResult result = sim.run();
    CHECK(result.transfers[b.value].ready_s == doctest::Approx(1.001e-3).epsilon(1e-12));
    CHECK(result.transfers[b.value].finish_s == doctest::Approx(3.003e-3).epsilon(1e-12));
    CHECK(result.transfers[c.value].ready_s == result.transfers[b.value].finish_s);
    CHECK(result.transfers[c.value].finish_s == doctest::Approx(3.008e-3).epsilon(1e-12));
    CHECK(result.makespan_s == result.transfers[c.value].finish_s);
  }

  TEST_CASE("flowsim: multi-path transfers end with their slowest sub-flow") {
    // 1e6 B split 1/4 over link 0 and 3/4 over link 1 (1 GB/s each).
    auto l0 = path_of({0}), l1 = path_of({1});
    SUBCASE("disjoint paths") {
      // Sub-flows of 2.5e5 and 7.5e5 B at 1 GB/s: the transfer ends at 7.5e-4 s.
      FlowSimulator sim({kGBps, kGBps});
      PathSpec paths[] = {{l0, 0.25}, {l1, 0.75}};
      sim.add_transfer({.bytes = 1e6, .paths = paths});
      FlowResult result = sim.run();
      CHECK(result.transfers[0].finish_s == doctest::Approx(7.5e-4).epsilon(1e-12));
      CHECK(result.resources[0].bytes == 2.5e5);
      CHECK(result.resources[1].bytes == 7.5e5);
    }
    SUBCASE("the rate cap is split by share") {
      // Cap 0.4 GB/s: sub-flow bounds 0.1 and 0.3 GB/s; both take 2.5e5/1e8 = 2.5e-3 s.
      FlowSimulator sim({kGBps, kGBps});
      PathSpec paths[] = {{l0, 0.25}, {l1, 0.75}};
      sim.add_transfer({.bytes = 1e6, .paths = paths, .rate_cap_Bps = 0.4 * kGBps});
      FlowResult result = sim.run();
      CHECK(result.transfers[0].finish_s == doctest::Approx(2.5e-3).epsilon(1e-12));
      CHECK(result.bottlenecks.empty());
    }
    SUBCASE("a shared first hop") {
      // Both sub-flows first cross link 2 (1 GB/s): 0.5 GB/s each; the 2.5e5 B one ends at
      // 5e-4 s; the other has 5e5 B left, alone at 1 GB/s: 5e-4 + 5e-4 = 1e-3 s.
      FlowSimulator sim({kGBps, kGBps, kGBps});
      auto via0 = path_of({2, 0}), via1 = path_of({2, 1});
      PathSpec paths[] = {{via0, 0.25}, {via1, 0.75}};
      sim.add_transfer({.bytes = 1e6, .paths = paths});
      FlowResult result = sim.run();
      CHECK(result.transfers[0].finish_s == doctest::Approx(1e-3).epsilon(1e-12));
      CHECK(result.resources[2].bytes == 1e6);
      CHECK(result.resources[2].busy_s == doctest::Approx(1e-3).epsilon(1e-12));
    }
  }

  TEST_CASE("flowsim: zero-byte transfers complete after their latency") {
    // A barrier: two zero-byte delays of 3 us and 7 us, then a zero-byte join with 1 us:
    // ready at max(3, 7) = 7 us, done at 8 us. No resource is used.
    FlowSimulator sim({kGBps});
    TransferId d3 = sim.add_transfer({.bytes = 0, .latency_s = 3e-6});
    TransferId d7 = sim.add_transfer({.bytes = 0, .path = path_of({0}), .latency_s = 7e-6});
    TransferId both[] = {d3, d7};
    sim.add_transfer({.bytes = 0, .latency_s = 1e-6, .after = both});
    FlowResult result = sim.run();
    CHECK(result.transfers[0].finish_s == 3e-6);
    CHECK(result.transfers[1].finish_s == 7e-6);
    CHECK(result.transfers[2].ready_s == 7e-6);
    CHECK(result.transfers[2].finish_s == doctest::Approx(8e-6).epsilon(1e-12));
    CHECK(result.resources[0].bytes == 0);
    CHECK(result.bottlenecks.empty());
  }

  TEST_CASE("flowsim: an empty path moves at the rate cap, or instantly") {
    // 1e6 B capped at 1 GB/s over no resource: 1e-3 s. Uncapped: its latency only (2 us).
    FlowSimulator sim({kGBps});
    sim.add_transfer({.bytes = 1e6, .rate_cap_Bps = kGBps});
    sim.add_transfer({.bytes = 1e6, .latency_s = 2e-6});
    FlowResult result = sim.run();
    CHECK(result.transfers[0].finish_s == doctest::Approx(1e-3).epsilon(1e-12));
    CHECK(result.transfers[1].finish_s == 2e-6);
  }

  TEST_CASE("flowsim: an empty program") {
    FlowSimulator sim({kGBps});
    FlowResult result = sim.run();
    CHECK(result.transfers.empty());
    CHECK(result.makespan_s == 0);
    CHECK(result.resources.size() == 1);
  }

  TEST_CASE("flowsim: bad input is rejected with a message") {
    CHECK_THROWS_WITH_AS(FlowSimulator({kGBps, 0}),
                         "linksim: error: flowsim: resource 1: expected a finite capacity > 0 "
                         "bytes/s, got 0",
                         ConfigError);
    FlowSimulator sim({kGBps});
    auto link = path_of({0});
    auto beyond = path_of({3});
    CHECK_THROWS_WITH_AS(sim.add_transfer({.bytes = -1}),
                         "linksim: error: flowsim: transfer 0: expected bytes >= 0, got -1",
                         ConfigError);
    CHECK_THROWS_WITH_AS(sim.add_transfer({.bytes = 1, .latency_s = -2}),
                         "linksim: error: flowsim: transfer 0: expected latency >= 0 s, got -2",
                         ConfigError);
    CHECK_THROWS_WITH_AS(
        sim.add_transfer({.bytes = 1, .rate_cap_Bps = 0}),
        "linksim: error: flowsim: transfer 0: expected a rate cap > 0 bytes/s, got 0",
        ConfigError);
    CHECK_THROWS_WITH_AS(
        sim.add_transfer({.bytes = 1, .path = beyond}),
        "linksim: error: flowsim: transfer 0: expected a resource id below 1, got 3",
        ConfigError);
    PathSpec halves[] = {{link, 0.5}, {link, 0.25}};
    CHECK_THROWS_WITH_AS(
        sim.add_transfer({.bytes = 1, .paths = halves}),
        "linksim: error: flowsim: transfer 0: expected path shares summing to 1, got 0.75",
        ConfigError);
    PathSpec negative[] = {{link, -0.5}, {link, 1.5}};
    CHECK_THROWS_WITH_AS(
        sim.add_transfer({.bytes = 1, .paths = negative}),
        "linksim: error: flowsim: transfer 0: expected a path share in (0, 1], got -0.5",
        ConfigError);
    PathSpec whole[] = {{link, 1.0}};
    CHECK_THROWS_WITH_AS(
        sim.add_transfer({.bytes = 1, .path = link, .paths = whole}),
        "linksim: error: flowsim: transfer 0: expected either path or paths, got both",
        ConfigError);
    TransferId self[] = {TransferId{0}};
    CHECK_THROWS_WITH_AS(
        sim.add_transfer({.bytes = 1, .after = self}),
        "linksim: error: flowsim: transfer 0: expected a dependency on an earlier transfer, got 0",
        ConfigError);
    CHECK(sim.transfer_count() == 0);
  }
}

}  // namespace
}  // namespace linksim
