// SPDX-License-Identifier: Apache-2.0
// FlowSimulator's invariants on random programs (seeded, so every run checks the same ones):
// every transfer finishes, no link carries more than its capacity, bytes are conserved, the
// rates are max-min fair, and the results do not depend on the order of the input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "linksim/flowsim.hpp"

namespace linksim {
namespace {

// Relative slack of every comparison: FlowSimOptions::precision (1e-9) batches events and
// counts a link saturated within it; 1e-6 leaves room for the rounding of long sums.
constexpr double kSlack = 1e-6;

// `value` within kSlack relative (doctest's default scale would add an absolute 1e-6).
doctest::Approx near(double value) { return doctest::Approx(value).epsilon(kSlack).scale(1e-12); }

// A transfer in plain vectors, so a program can be permuted and rebuilt.
struct RandomPath {
  std::vector<uint32_t> resources;
  double share = 1;
};
struct RandomTransfer {
  double bytes = 0;
  std::vector<RandomPath> paths;  // one path: the single-path form
  double latency_s = 0;
  double rate_cap_Bps = kUnlimitedRate;
  std::vector<uint32_t> after;
};
struct RandomProgram {
  std::vector<double> capacities_Bps;
  std::vector<RandomTransfer> transfers;
};

double log_uniform(std::mt19937_64& rng, double low, double high) {
  return std::exp(std::uniform_real_distribution<double>(std::log(low), std::log(high))(rng));
}

// 2-12 links of 1-100 GB/s; 1-40 transfers of 0-1 GB (some empty) over 0-4 hops (repeats
// allowed: counted twice), a quarter split over 2-3 paths, some with a latency, a rate cap or
// dependencies on earlier transfers.
RandomProgram random_program(std::mt19937_64& rng) {
  RandomProgram program;
  const int resources = 2 + int(rng() % 11);
  for (int r = 0; r < resources; ++r) program.capacities_Bps.push_back(log_uniform(rng, 1e9, 1e11));
  const int transfers = 1 + int(rng() % 40);
  auto random_hops = [&](uint32_t min_hops) {
    std::vector<uint32_t> hops(min_hops + rng() % (5 - min_hops));
    for (uint32_t& hop : hops) hop = uint32_t(rng() % resources);
    return hops;
  };
  for (int t = 0; t < transfers; ++t) {
    RandomTransfer transfer;
    transfer.bytes = rng() % 8 == 0 ? 0 : log_uniform(rng, 1e3, 1e9);
    if (rng() % 4 == 0) {
      const double shares[][3] = {{0.5, 0.5, 0}, {0.25, 0.25, 0.5}, {0.75, 0.25, 0}};
      for (double share : shares[rng() % 3]) {
        if (share > 0) transfer.paths.push_back({random_hops(1), share});
      }
    } else {
      transfer.paths.push_back({random_hops(0), 1});
    }
    if (rng() % 3 == 0) transfer.latency_s = log_uniform(rng, 1e-7, 1e-4);
    if (rng() % 4 == 0) transfer.rate_cap_Bps = log_uniform(rng, 1e8, 1e11);
    if (t > 0) {
      for (int d = int(rng() % 4); d > 0; --d) transfer.after.push_back(uint32_t(rng() % t));
    }
    program.transfers.push_back(std::move(transfer));
  }
  return program;
}

FlowResult run(const RandomProgram& program) {
  FlowSimulator sim(program.capacities_Bps);
  for (const RandomTransfer& t : program.transfers) {
    std::vector<std::vector<ResourceId>> ids;
    for (const RandomPath& path : t.paths) {
      ids.emplace_back();
      for (uint32_t r : path.resources) ids.back().push_back(ResourceId{r});
    }
    std::vector<PathSpec> paths;
    for (size_t p = 0; p < t.paths.size(); ++p) paths.push_back({ids[p], t.paths[p].share});
    std::vector<TransferId> after;
    for (uint32_t d : t.after) after.push_back(TransferId{d});
    TransferSpec spec{.bytes = t.bytes, .latency_s = t.latency_s,
                      .rate_cap_Bps = t.rate_cap_Bps, .after = after};
    if (paths.size() == 1) {
      spec.path = ids[0];
    } else {
      spec.paths = paths;
    }
    sim.add_transfer(spec);
  }
  return sim.run();
}

// The fastest a transfer can go: no sub-flow beyond share x rate cap or beyond capacity /
// (times it crosses a link) on any link of its path.
double rate_limit_Bps(const RandomProgram& program, const RandomTransfer& t) {
  double limit = t.rate_cap_Bps;
  for (const RandomPath& path : t.paths) {
    double path_limit = kUnlimitedRate;
    for (uint32_t r : path.resources) {
      const auto crossings = std::count(path.resources.begin(), path.resources.end(), r);
      path_limit = std::min(path_limit, program.capacities_Bps[r] / double(crossings));
    }
    limit = std::min(limit, path_limit / path.share);
  }
  return limit;
}

// The measure of the union of [begin, end) intervals, seconds.
double union_length_s(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0, covered_to = -1;
  for (auto [begin, end] : intervals) {
    begin = std::max(begin, covered_to);
    if (end > begin) total += end - begin;
    covered_to = std::max(covered_to, end);
  }
  return total;
}

void check_invariants(const RandomProgram& program, const FlowResult& result) {
  const size_t resources = program.capacities_Bps.size();
  REQUIRE(result.transfers.size() == program.transfers.size());
  REQUIRE(result.resources.size() == resources);
  std::vector<double> expected_bytes(resources, 0);
  std::vector<std::vector<std::pair<double, double>>> active(resources);
  double latest_finish_s = 0;
  for (size_t i = 0; i < program.transfers.size(); ++i) {
    const RandomTransfer& t = program.transfers[i];
    const TransferTimes& times = result.transfers[i];
    // Every transfer finishes, after its dependencies, its latency and the time its bytes
    // need at the fastest rate its path allows.
    REQUIRE(std::isfinite(times.finish_s));
    double ready_s = 0;
    for (uint32_t d : t.after) ready_s = std::max(ready_s, result.transfers[d].finish_s);
    CHECK(times.ready_s == near(ready_s));
    const double first_byte_s = times.ready_s + t.latency_s;
    const double limit_Bps = rate_limit_Bps(program, t);
    const double fastest_s = std::isfinite(limit_Bps) ? t.bytes / limit_Bps : 0;
    CHECK(times.finish_s >= (first_byte_s + fastest_s) * (1 - kSlack));
    latest_finish_s = std::max(latest_finish_s, times.finish_s);
    for (const RandomPath& path : t.paths) {
      for (uint32_t r : path.resources) {
        expected_bytes[r] += t.bytes * path.share;
        active[r].emplace_back(first_byte_s, times.finish_s);
      }
    }
  }
  CHECK(result.makespan_s == latest_finish_s);
  for (size_t r = 0; r < resources; ++r) {
    const ResourceUsage& usage = result.resources[r];
    const double capacity_Bps = program.capacities_Bps[r];
    // Bytes conserved: a link carries what crosses it, each crossing counted.
    CHECK(usage.bytes == near(expected_bytes[r]));
    // Never above capacity: what crossed it fits into the time something could cross it at
    // full rate, and while saturated it moved at full rate.
    const double open_s = union_length_s(active[r]);
    CHECK(usage.bytes <= capacity_Bps * open_s * (1 + kSlack) + 1e-3);
    CHECK(usage.busy_s <= open_s * (1 + kSlack) + 1e-15);
    CHECK(usage.busy_s * capacity_Bps <= usage.bytes * (1 + kSlack) + 1e-3);
  }
}

// The program with its transfers in another order that keeps every dependency earlier, and
// its resources renumbered. `transfer_of[i]` is the new position of transfer i.
RandomProgram shuffled(const RandomProgram& program, std::mt19937_64& rng,
                       std::vector<uint32_t>& transfer_of, std::vector<uint32_t>& resource_of) {
  const size_t n = program.transfers.size();
  resource_of.resize(program.capacities_Bps.size());
  std::iota(resource_of.begin(), resource_of.end(), 0u);
  std::shuffle(resource_of.begin(), resource_of.end(), rng);
  // A random topological order: repeatedly take a random transfer whose dependencies are placed.
  std::vector<uint32_t> order;
  std::vector<bool> placed(n, false);
  while (order.size() < n) {
    std::vector<uint32_t> ready;
    for (uint32_t i = 0; i < n; ++i) {
      const auto& after = program.transfers[i].after;
      if (!placed[i] && std::all_of(after.begin(), after.end(), [&](uint32_t d) { return placed[d]; })) {
        ready.push_back(i);
      }
    }
    const uint32_t next = ready[rng() % ready.size()];
    placed[next] = true;
    order.push_back(next);
  }
  transfer_of.assign(n, 0);
  for (uint32_t pos = 0; pos < n; ++pos) transfer_of[order[pos]] = pos;
  RandomProgram out;
  out.capacities_Bps.resize(program.capacities_Bps.size());
  for (size_t r = 0; r < resource_of.size(); ++r) out.capacities_Bps[resource_of[r]] = program.capacities_Bps[r];
  for (uint32_t i : order) {
    RandomTransfer t = program.transfers[i];
    for (RandomPath& path : t.paths) {
      for (uint32_t& r : path.resources) r = resource_of[r];
    }
    for (uint32_t& d : t.after) d = transfer_of[d];
    out.transfers.push_back(std::move(t));
  }
  return out;
}

TEST_SUITE("flowsim") {
  TEST_CASE("flowsim properties: 300 random programs finish, within capacity, bytes conserved") {
    std::mt19937_64 rng(20261203);
    for (int trial = 0; trial < 300; ++trial) {
      CAPTURE(trial);
      const RandomProgram program = random_program(rng);
      check_invariants(program, run(program));
    }
  }

  TEST_CASE("flowsim properties: results do not depend on the order of transfers or resources") {
    std::mt19937_64 rng(42);
    for (int trial = 0; trial < 200; ++trial) {
      CAPTURE(trial);
      const RandomProgram program = random_program(rng);
      std::vector<uint32_t> transfer_of, resource_of;
      const RandomProgram other = shuffled(program, rng, transfer_of, resource_of);
      const FlowResult a = run(program);
      const FlowResult b = run(other);
      check_invariants(other, b);
      for (size_t i = 0; i < program.transfers.size(); ++i) {
        const TransferTimes& moved = b.transfers[transfer_of[i]];
        CHECK(moved.ready_s == near(a.transfers[i].ready_s));
        CHECK(moved.finish_s == near(a.transfers[i].finish_s));
      }
      for (size_t r = 0; r < resource_of.size(); ++r) {
        const ResourceUsage& moved = b.resources[resource_of[r]];
        CHECK(moved.bytes == near(a.resources[r].bytes));
        CHECK(moved.busy_s == near(a.resources[r].busy_s));
      }
      CHECK(b.makespan_s == near(a.makespan_s));
    }
  }

  TEST_CASE("flowsim properties: the rates of simultaneous flows are max-min fair") {
    // F flows start together on random paths (some rate-capped), each carrying 1e15 B. To read
    // the rate x_f the simulator gives flow f, run the same program with f carrying 1 B: f
    // finishes first, before any rate changes, so x_f = 1 B / its finish time. The rates must
    // fit every link, and every flow must be held by its cap or by a saturated link on which no
    // flow is faster (no flow can gain without taking from one with a rate no higher).
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 100; ++trial) {
      CAPTURE(trial);
      RandomProgram program;
      const int resources = 1 + int(rng() % 8);
      for (int r = 0; r < resources; ++r) program.capacities_Bps.push_back(log_uniform(rng, 1e9, 1e11));
      const int flows = 1 + int(rng() % 12);
      for (int f = 0; f < flows; ++f) {
        RandomTransfer t;
        t.bytes = 1e15;
        std::vector<uint32_t> hops(static_cast<size_t>(resources));
        std::iota(hops.begin(), hops.end(), 0u);
        std::shuffle(hops.begin(), hops.end(), rng);
        hops.resize(1 + rng() % std::min(3, resources));
        t.paths.push_back({hops, 1});
        if (rng() % 4 == 0) t.rate_cap_Bps = log_uniform(rng, 1e8, 1e11);
        program.transfers.push_back(t);
      }
      std::vector<double> rate_Bps(static_cast<size_t>(flows));
      for (int f = 0; f < flows; ++f) {
        RandomProgram probe = program;
        probe.transfers[size_t(f)].bytes = 1;
        rate_Bps[size_t(f)] = 1 / run(probe).transfers[size_t(f)].finish_s;
      }
      std::vector<double> load_Bps(static_cast<size_t>(resources), 0.0);
      for (int f = 0; f < flows; ++f) {
        for (uint32_t r : program.transfers[size_t(f)].paths[0].resources) load_Bps[r] += rate_Bps[size_t(f)];
      }
      for (int r = 0; r < resources; ++r) CHECK(load_Bps[size_t(r)] <= program.capacities_Bps[size_t(r)] * (1 + kSlack));
      for (int f = 0; f < flows; ++f) {
        CAPTURE(f);
        const RandomTransfer& t = program.transfers[size_t(f)];
        bool held = rate_Bps[size_t(f)] >= t.rate_cap_Bps * (1 - kSlack);
        for (uint32_t r : t.paths[0].resources) {
          if (load_Bps[r] < program.capacities_Bps[r] * (1 - kSlack)) continue;
          bool fastest = true;
          for (int g = 0; g < flows; ++g) {
            const auto& hops = program.transfers[size_t(g)].paths[0].resources;
            if (std::find(hops.begin(), hops.end(), r) != hops.end() &&
                rate_Bps[size_t(g)] > rate_Bps[size_t(f)] * (1 + kSlack)) {
              fastest = false;
            }
          }
          held = held || fastest;
        }
        CHECK(held);
      }
    }
  }
}

}  // namespace
}  // namespace linksim
