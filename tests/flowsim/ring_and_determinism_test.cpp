// SPDX-License-Identifier: Apache-2.0
// FlowSimulator on whole programs: rings against closed forms, and run-to-run determinism.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "linksim/flowsim.hpp"

namespace linksim {
namespace {

// Ring AllReduce as 2(N-1) synchronous steps: in step s rank i sends S/N bytes to rank i+1
// over link i (capacity B, latency alpha), after the step s-1 transfer into rank i, i.e.
// transfer (s-1, i-1 mod N). Returns the simulator ready to run.
FlowSimulator step_synchronous_ring(uint32_t ranks, double bytes, double link_Bps,
                                    double alpha_s) {
  FlowSimulator sim(std::vector<double>(ranks, link_Bps));
  const uint32_t steps = 2 * (ranks - 1);
  for (uint32_t s = 0; s < steps; ++s) {
    for (uint32_t i = 0; i < ranks; ++i) {
      const ResourceId link[] = {ResourceId{i}};
      const TransferId into_rank[] = {TransferId{(s - 1) * ranks + (i + ranks - 1) % ranks}};
      sim.add_transfer({.bytes = bytes / ranks,
                        .path = link,
                        .latency_s = alpha_s,
                        .after = s == 0 ? std::span<const TransferId>{} : into_rank});
    }
  }
  return sim;
}

TEST_SUITE("flowsim") {
  TEST_CASE("flowsim: step-synchronous ring AllReduce matches the closed form") {
    // N = 16, S = 1 GiB, B = 25 GB/s, alpha = 3 us. Every link carries one flow at a time,
    // so each step takes alpha + (S/N)/B: total 2(N-1)(alpha + S/(N B)).
    const uint32_t n = 16;
    const double bytes = 1073741824, link_Bps = 25e9, alpha_s = 3e-6;
    FlowResult result = step_synchronous_ring(n, bytes, link_Bps, alpha_s).run();
    const double expected_s = 2.0 * (n - 1) * (alpha_s + bytes / (n * link_Bps));
    CHECK(result.makespan_s == doctest::Approx(expected_s).epsilon(1e-9));
    // Each link is busy during the sharing phases only: 2(N-1) x S/(N B).
    CHECK(result.resources[5].busy_s ==
          doctest::Approx(2.0 * (n - 1) * bytes / (n * link_Bps)).epsilon(1e-9));
    CHECK(result.resources[5].bytes == doctest::Approx(2.0 * (n - 1) * bytes / n).epsilon(1e-12));
    CHECK(result.bottlenecks.size() == n);
  }

  TEST_CASE("flowsim: concurrent ring of overlapping flows") {
    // R resources of capacity C in a ring; flow i crosses resources i..i+7 (mod R). Every
    // resource carries 8 flows, so each flow runs at C/8 and all end at bytes x 8 / C.
    const uint32_t resources = 64, hops = 8;
    const double capacity_Bps = 1e9, bytes = 1e6;
    FlowSimulator sim(std::vector<double>(resources, capacity_Bps));
    for (uint32_t i = 0; i < resources; ++i) {
      std::vector<ResourceId> path;
      for (uint32_t h = 0; h < hops; ++h) path.push_back(ResourceId{(i + h) % resources});
      sim.add_transfer({.bytes = bytes, .path = path});
    }
    FlowResult result = sim.run();
    for (const TransferTimes& times : result.transfers) {
      CHECK(times.finish_s == doctest::Approx(bytes * hops / capacity_Bps).epsilon(1e-12));
    }
    CHECK(result.resources[7].busy_s == doctest::Approx(bytes * hops / capacity_Bps).epsilon(1e-12));
  }

  TEST_CASE("flowsim: the same program gives bit-identical results") {
    // A random program with shared links, multi-path splits, caps, latencies and dependencies,
    // built twice and run three times: every double must match bit for bit.
    auto build = [] {
      std::mt19937 rng(2024);
      FlowSimulator sim({1e9, 2e9, 3e9, 1.5e9, 4e9, 0.5e9});
      for (uint32_t t = 0; t < 300; ++t) {
        std::vector<ResourceId> a, b;
        for (uint32_t r = 0; r < 6; ++r) {
          if (rng() % 3 == 0) a.push_back(ResourceId{r});
          if (rng() % 3 == 0) b.push_back(ResourceId{r});
        }
        std::vector<TransferId> after;
        if (t > 0 && rng() % 2) after.push_back(TransferId{static_cast<uint32_t>(rng() % t)});
        const double share = 0.1 * double(1 + rng() % 9);
        PathSpec paths[] = {{a, share}, {b, 1 - share}};
        const bool split = rng() % 2;
        sim.add_transfer({.bytes = double(rng() % 1000000),
                          .path = split ? std::span<const ResourceId>{} : a,
                          .paths = split ? std::span<const PathSpec>(paths) : std::span<const PathSpec>{},
                          .latency_s = 1e-6 * double(rng() % 10),
                          .rate_cap_Bps = rng() % 4 == 0 ? 3e8 : kUnlimitedRate,
                          .after = after});
      }
      return sim;
    };
    FlowSimulator first = build();
    FlowSimulator second = build();
    FlowResult r1 = first.run(), r2 = first.run(), r3 = second.run();
    auto same_bits = [](const FlowResult& x, const FlowResult& y) {
      return x.transfers.size() == y.transfers.size() &&
             std::memcmp(x.transfers.data(), y.transfers.data(),
                         x.transfers.size() * sizeof(TransferTimes)) == 0 &&
             std::memcmp(x.resources.data(), y.resources.data(),
                         x.resources.size() * sizeof(ResourceUsage)) == 0 &&
             x.bottlenecks == y.bottlenecks && x.makespan_s == y.makespan_s;
    };
    CHECK(same_bits(r1, r2));
    CHECK(same_bits(r1, r3));
    CHECK(r1.makespan_s > 0);
    for (const TransferTimes& times : r1.transfers) CHECK(times.finish_s >= times.ready_s);
  }
}

}  // namespace
}  // namespace linksim
