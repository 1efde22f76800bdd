// SPDX-License-Identifier: Apache-2.0
// Step programs: the lazily generated ring against its closed form, bit-identity with the
// same transfers held all at once, the window bound, and the exact texts of input errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "linksim/error.hpp"
#include "linksim/flow_steps.hpp"
#include "linksim/flowsim.hpp"

namespace linksim {
namespace {

// Ring AllReduce: in step s rank i sends S/N bytes over link i after the step s-1 transfer
// into rank i, (s-1, i-1 mod N).
struct StepRing : StepProgram {
  uint32_t ranks;
  double bytes, alpha_s;
  bool repeats = false;  // declare steps 2.. repeats of step 1 instead of generating them
  mutable uint64_t generated = 0;  // generate calls
  StepRing(uint32_t n, double s, double a) : ranks(n), bytes(s), alpha_s(a) {}
  uint64_t step_count() const override { return 2 * (ranks - 1); }
  bool repeats_previous_step(uint64_t step) const override { return repeats && step >= 2; }
  void generate(uint64_t step, StepBuilder& out) const override {
    ++generated;
    for (uint32_t i = 0; i < ranks; ++i) {
      const ResourceId link[] = {ResourceId{i}};
      const TransferId into_rank[] = {TransferId{(i + ranks - 1) % ranks}};
      out.add_transfer({.bytes = bytes / ranks,
                        .path = link,
                        .latency_s = alpha_s,
                        .after = step == 0 ? std::span<const TransferId>{} : into_rank});
    }
  }
};

// One transfer of a step, as plain data, so that the same program can be given step by step
// and all at once.
struct Described {
  double bytes = 0;
  std::vector<ResourceId> a, b;  // b empty: a single path
  double share = 1;
  double latency_s = 0;
  double rate_cap_Bps = kUnlimitedRate;
  std::vector<uint32_t> after;  // indices into the previous step
};

// A random synchronous program with shared links, multi-path splits, caps, zero-byte
// transfers and partial dependencies (so that steps drift apart). Deterministic per step.
std::size_t step_size(uint64_t step) {
  std::mt19937 rng(static_cast<uint32_t>(1000 + step));
  return 1 + rng() % 6;
}

std::vector<Described> random_step(uint64_t step) {
  std::mt19937 rng(static_cast<uint32_t>(1000 + step));
  std::vector<Described> out(1 + rng() % 6);
  const std::size_t previous_transfers = step > 0 ? step_size(step - 1) : 0;
  for (Described& d : out) {
    for (uint32_t r = 0; r < 5; ++r) {
      if (rng() % 3 == 0) d.a.push_back(ResourceId{r});
      if (rng() % 4 == 0) d.b.push_back(ResourceId{r});
    }
    if (d.a.empty()) d.a.push_back(ResourceId{static_cast<uint32_t>(rng() % 5)});
    d.share = d.b.empty() ? 1.0 : 0.1 * double(1 + rng() % 9);
    d.bytes = rng() % 7 == 0 ? 0.0 : double(1 + rng() % 1000000);
    d.latency_s = 1e-6 * double(rng() % 10);
    d.rate_cap_Bps = rng() % 4 == 0 ? 3e8 : kUnlimitedRate;
    if (step > 0) {
      const uint32_t deps = 1 + rng() % 3;
      for (uint32_t k = 0; k < deps; ++k) {
        d.after.push_back(static_cast<uint32_t>(rng() % previous_transfers));
      }
    }
  }
  return out;
}

// Adds `d` to `sink` (FlowSimulator or StepBuilder) with dependencies offset by `base`.
template <typename Sink>
void add_described(Sink& sink, const Described& d, uint32_t base) {
  std::vector<TransferId> after;
  for (uint32_t i : d.after) after.push_back(TransferId{base + i});
  const PathSpec paths[] = {{d.a, d.share}, {d.b, 1 - d.share}};
  TransferSpec spec{.bytes = d.bytes, .latency_s = d.latency_s, .rate_cap_Bps = d.rate_cap_Bps,
                    .after = after};
  if (d.b.empty()) spec.path = d.a;
  else spec.paths = paths;
  sink.add_transfer(spec);
}

struct RandomSteps : StepProgram {
  uint64_t steps;
  explicit RandomSteps(uint64_t n) : steps(n) {}
  uint64_t step_count() const override { return steps; }
  void generate(uint64_t step, StepBuilder& out) const override {
    for (const Described& d : random_step(step)) add_described(out, d, 0);
  }
};

// A random synchronous program whose steps come in runs of one content: step s has the
// content of key (s + 3) / 4 (step 0 alone, then runs of four), dependencies below both its
// own size and the previous key's, so that a step may repeat its predecessor.
uint64_t run_key(uint64_t step) { return (step + 3) / 4; }

std::vector<Described> keyed_step(uint64_t key) {
  std::vector<Described> out = random_step(key);
  if (key == 0) return out;
  const auto bound = static_cast<uint32_t>(std::min(step_size(key), step_size(key - 1)));
  for (Described& d : out) {
    for (uint32_t& dependency : d.after) dependency %= bound;
  }
  return out;
}

struct KeyedSteps : StepProgram {
  uint64_t steps;
  bool repeats;  // declare the repeats or generate every step
  mutable uint64_t generated = 0;
  KeyedSteps(uint64_t n, bool declare_repeats) : steps(n), repeats(declare_repeats) {}
  uint64_t step_count() const override { return steps; }
  bool repeats_previous_step(uint64_t step) const override {
    return repeats && step >= 2 && run_key(step) == run_key(step - 1);
  }
  void generate(uint64_t step, StepBuilder& out) const override {
    ++generated;
    for (const Described& d : keyed_step(run_key(step))) add_described(out, d, 0);
  }
};

// The same program added all at once: dependencies renumbered to global ids.
FlowSimulator all_at_once(const std::vector<double>& capacities, uint64_t steps,
                          const std::function<std::vector<Described>(uint64_t)>& step_of =
                              random_step) {
  FlowSimulator sim(capacities);
  uint32_t previous_first = 0;
  for (uint64_t s = 0; s < steps; ++s) {
    const auto first = static_cast<uint32_t>(sim.transfer_count());
    for (const Described& d : step_of(s)) add_described(sim, d, previous_first);
    previous_first = first;
  }
  return sim;
}

// A step program given by a function, for malformed programs.
struct Generated : StepProgram {
  uint64_t steps;
  std::function<void(uint64_t, StepBuilder&)> body;
  uint64_t step_count() const override { return steps; }
  void generate(uint64_t step, StepBuilder& out) const override { body(step, out); }
};

bool same_bits(const FlowResult& whole, const StepFlowResult& steps) {
  return whole.resources.size() == steps.resources.size() &&
         std::memcmp(whole.resources.data(), steps.resources.data(),
                     whole.resources.size() * sizeof(ResourceUsage)) == 0 &&
         whole.bottlenecks == steps.bottlenecks && whole.makespan_s == steps.makespan_s;
}

bool same_bits(const StepFlowResult& a, const StepFlowResult& b) {
  return a.resources.size() == b.resources.size() &&
         std::memcmp(a.resources.data(), b.resources.data(),
                     a.resources.size() * sizeof(ResourceUsage)) == 0 &&
         a.bottlenecks == b.bottlenecks && a.makespan_s == b.makespan_s &&
         a.step_finish_s == b.step_finish_s && a.transfer_count == b.transfer_count &&
         a.peak_held_transfers == b.peak_held_transfers && a.lone_steps == b.lone_steps;
}

TEST_SUITE("flowsim") {
  TEST_CASE("flowsim: the lazily generated step ring matches the closed form") {
    // N = 16, S = 1 GiB, B = 25 GB/s, alpha = 3 us: every link carries one flow at a time, so
    // step s ends at (s + 1)(alpha + S/(N B)) and the whole at 2(N-1)(alpha + S/(N B)).
    const uint32_t n = 16;
    const double bytes = 1073741824, link_Bps = 25e9, alpha_s = 3e-6;
    const StepRing ring(n, bytes, alpha_s);
    const StepFlowResult result = simulate_steps(std::vector<double>(n, link_Bps), ring);
    const double step_s = alpha_s + bytes / (n * link_Bps);
    CHECK(result.makespan_s == doctest::Approx(2.0 * (n - 1) * step_s).epsilon(1e-12));
    REQUIRE(result.step_finish_s.size() == 2 * (n - 1));
    for (std::size_t s = 0; s < result.step_finish_s.size(); ++s) {
      CHECK(result.step_finish_s[s] == doctest::Approx((s + 1) * step_s).epsilon(1e-12));
    }
    CHECK(result.transfer_count == 2 * (n - 1) * n);
    // Step s + 1 is generated at the first finish of step s, and step s retired at its last:
    // at most two steps are held at once.
    CHECK(result.peak_held_transfers == 2 * n);
    CHECK(result.resources[5].busy_s ==
          doctest::Approx(2.0 * (n - 1) * bytes / (n * link_Bps)).epsilon(1e-9));
    CHECK(result.resources[5].bytes == doctest::Approx(2.0 * (n - 1) * bytes / n).epsilon(1e-12));
    CHECK(result.bottlenecks.size() == n);
    CHECK(result.lone_steps == 2 * (n - 1));  // every link carries one flow, all alike
  }

  TEST_CASE("flowsim: a step program gives the bits of the same transfers held at once") {
    // 60 random steps on 5 links with shared paths, splits, caps, zero-byte transfers and
    // partial dependencies: times, bytes, busy times and bottlenecks must match bit for bit.
    const std::vector<double> capacities = {1e9, 2e9, 3e9, 1.5e9, 0.5e9};
    const uint64_t steps = 60;
    const FlowResult whole = all_at_once(capacities, steps).run();
    const StepFlowResult stepped = simulate_steps(capacities, RandomSteps(steps));
    CHECK(same_bits(whole, stepped));
    CHECK(stepped.transfer_count == whole.transfers.size());
    CHECK(stepped.makespan_s > 0);
    // Each step's finish is the latest finish among its transfers in the whole program.
    std::size_t first = 0;
    for (uint64_t s = 0; s < steps; ++s) {
      double latest_s = 0;
      for (std::size_t i = 0; i < step_size(s); ++i) {
        latest_s = std::max(latest_s, whole.transfers[first + i].finish_s);
      }
      CHECK(stepped.step_finish_s[s] == latest_s);
      first += step_size(s);
    }
  }

  TEST_CASE("flowsim: a lone step gives the bits the max-min solver gives") {
    // The ring's transfers are alone on their links: every step is a lone step, timed in
    // closed form. Split into two halves over the same link, each transfer's sub-flows share
    // it (C/2 each, the same duration since halving is exact), so the solver times every
    // step; the two must agree bit for bit.
    struct HalvedRing : StepProgram {
      uint32_t ranks = 64;
      uint64_t step_count() const override { return 2 * (ranks - 1); }
      void generate(uint64_t step, StepBuilder& out) const override {
        for (uint32_t i = 0; i < ranks; ++i) {
          const ResourceId link[] = {ResourceId{i}};
          const PathSpec halves[] = {{link, 0.5}, {link, 0.5}};
          const TransferId into_rank[] = {TransferId{(i + ranks - 1) % ranks}};
          out.add_transfer({.bytes = 1073741824.0 / ranks,
                            .paths = halves,
                            .latency_s = 3e-6,
                            .after = step == 0 ? std::span<const TransferId>{} : into_rank});
        }
      }
    };
    const std::vector<double> capacities(64, 25e9);
    const StepFlowResult lone = simulate_steps(capacities, StepRing(64, 1073741824, 3e-6));
    const StepFlowResult solved = simulate_steps(capacities, HalvedRing{});
    CHECK(lone.lone_steps == 2 * 63);
    CHECK(solved.lone_steps == 0);
    CHECK(lone.makespan_s == solved.makespan_s);
    CHECK(lone.step_finish_s == solved.step_finish_s);
    REQUIRE(lone.resources.size() == solved.resources.size());
    CHECK(std::memcmp(lone.resources.data(), solved.resources.data(),
                      lone.resources.size() * sizeof(ResourceUsage)) == 0);
    CHECK(lone.bottlenecks == solved.bottlenecks);
  }

  // Two links of 1 GB/s; every transfer of step s waits for both of step s - 1, then
  // `latency_s`. By s mod 3:
  //   0: 1 MB on each link            -> lone, 1 ms
  //   1: 1 MB twice on link 0         -> shared (0.5 GB/s each), 2 ms
  //   2: 2 MB on link 0, 1 MB on 1    -> lone flows of unequal durations, 2 ms (the longer)
  Generated three_kinds_of_steps(double latency_s) {
    Generated program;
    program.steps = 6;
    program.body = [latency_s](uint64_t step, StepBuilder& out) {
      const ResourceId link0[] = {ResourceId{0}}, link1[] = {ResourceId{1}};
      const TransferId both[] = {TransferId{0}, TransferId{1}};
      const std::span<const TransferId> after =
          step == 0 ? std::span<const TransferId>{} : std::span<const TransferId>(both);
      const uint64_t kind = step % 3;
      out.add_transfer({.bytes = kind == 2 ? 2e6 : 1e6, .path = link0, .latency_s = latency_s,
                        .after = after});
      out.add_transfer({.bytes = 1e6, .path = kind == 1 ? link0 : link1,
                        .latency_s = latency_s, .after = after});
    };
    return program;
  }

  TEST_CASE("flowsim: steps that share a link or differ in duration are not lone steps") {
    // Six steps with 1 us latency: steps 0 and 3 are lone; the makespan is 6 us + 2 x (1 + 2
    // + 2) ms; link 0 is saturated throughout the sharing phases, link 1 for 1 ms in kinds 0
    // and 2.
    const StepFlowResult result = simulate_steps({1e9, 1e9}, three_kinds_of_steps(1e-6));
    CHECK(result.lone_steps == 2);
    CHECK(result.makespan_s == doctest::Approx(6e-6 + 10e-3).epsilon(1e-12));
    CHECK(result.step_finish_s[3] == doctest::Approx(4e-6 + 6e-3).epsilon(1e-12));
    CHECK(result.resources[0].busy_s == doctest::Approx(10e-3).epsilon(1e-9));
    CHECK(result.resources[1].busy_s == doctest::Approx(4e-3).epsilon(1e-9));
    // Without latency a step starts within the batch of its predecessor's last finish, while
    // that batch's flows are still being retired: only step 0 starts with nothing active.
    const StepFlowResult at_once = simulate_steps({1e9, 1e9}, three_kinds_of_steps(0));
    CHECK(at_once.lone_steps == 1);
    CHECK(at_once.makespan_s == doctest::Approx(10e-3).epsilon(1e-12));
    CHECK(at_once.resources[0].busy_s == doctest::Approx(10e-3).epsilon(1e-9));
    CHECK(at_once.resources[1].busy_s == doctest::Approx(4e-3).epsilon(1e-9));
  }

  TEST_CASE("flowsim: a ring declaring its repeats gives the bits of generating every step") {
    // N = 64: steps 2..125 repeat step 1, so generate runs twice instead of 126 times, and
    // steps 3..125 replay step 2's lone plan; every step is still a lone step and every
    // figure is the same double.
    const std::vector<double> capacities(64, 25e9);
    StepRing generated(64, 1073741824, 3e-6), repeated(64, 1073741824, 3e-6);
    repeated.repeats = true;
    const StepFlowResult a = simulate_steps(capacities, generated);
    const StepFlowResult b = simulate_steps(capacities, repeated);
    CHECK(generated.generated == 126);
    CHECK(repeated.generated == 2);
    CHECK(same_bits(a, b));
    CHECK(b.lone_steps == 126);
    CHECK(b.transfer_count == 126 * 64);
    CHECK(b.peak_held_transfers == 128);
    CHECK(b.makespan_s == doctest::Approx(126 * (3e-6 + 1073741824 / (64 * 25e9))).epsilon(1e-12));
  }

  TEST_CASE("flowsim: repeated steps with shared links and drift give the bits of the whole") {
    // 41 random steps in runs of four of one content (shared links, splits, caps, zero bytes,
    // partial dependencies): declaring the 30 repeats, generating every step and adding the
    // transfers at once give the same bits.
    const std::vector<double> capacities = {1e9, 2e9, 3e9, 1.5e9, 0.5e9};
    const uint64_t steps = 41;
    const FlowResult whole =
        all_at_once(capacities, steps, [](uint64_t s) { return keyed_step(run_key(s)); }).run();
    KeyedSteps generated(steps, false), repeated(steps, true);
    const StepFlowResult a = simulate_steps(capacities, generated);
    const StepFlowResult b = simulate_steps(capacities, repeated);
    CHECK(generated.generated == 41);
    CHECK(repeated.generated == 11);
    CHECK(same_bits(a, b));
    CHECK(same_bits(whole, b));
    CHECK(b.transfer_count == whole.transfers.size());
    // Steps of at most six transfers, 32 held at once: they drift apart. Three steps are lone,
    // the others solved.
    CHECK(b.peak_held_transfers == 32);
    CHECK(b.lone_steps == 3);
  }

  TEST_CASE("flowsim: an empty step program") {
    const StepFlowResult result = simulate_steps({1e9}, RandomSteps(0));
    CHECK(result.makespan_s == 0);
    CHECK(result.transfer_count == 0);
    CHECK(result.resources.size() == 1);
  }

  TEST_CASE("flowsim: malformed step programs are rejected with a message") {
    const ResourceId link[] = {ResourceId{0}};
    const TransferId first[] = {TransferId{0}};
    const TransferId beyond[] = {TransferId{1}};
    auto run = [&](uint64_t steps, std::function<void(uint64_t, StepBuilder&)> body) {
      Generated program;
      program.steps = steps;
      program.body = std::move(body);
      return simulate_steps({1e9}, program);
    };
    CHECK_THROWS_WITH_AS(run(1, [&](uint64_t, StepBuilder& out) {
                           out.add_transfer({.bytes = 1, .path = link, .after = first});
                         }),
                         "linksim: error: flowsim: step 0, transfer 0: expected no dependency "
                         "in step 0",
                         ConfigError);
    CHECK_THROWS_WITH_AS(run(2, [&](uint64_t, StepBuilder& out) {
                           out.add_transfer({.bytes = 1, .path = link});
                         }),
                         "linksim: error: flowsim: step 1, transfer 0: expected a dependency on "
                         "a transfer of step 0 (a step program is synchronous), got none",
                         ConfigError);
    CHECK_THROWS_WITH_AS(run(2, [&](uint64_t step, StepBuilder& out) {
                           out.add_transfer({.bytes = 1, .path = link,
                                             .after = step == 0 ? std::span<const TransferId>{}
                                                                : beyond});
                         }),
                         "linksim: error: flowsim: step 1, transfer 0: expected a dependency on "
                         "a transfer of step 0 (below 1), got 1",
                         ConfigError);
    CHECK_THROWS_WITH_AS(run(2, [&](uint64_t step, StepBuilder& out) {
                           if (step == 0) out.add_transfer({.bytes = 1, .path = link});
                         }),
                         "linksim: error: flowsim: step 1: expected at least one transfer",
                         ConfigError);
    CHECK_THROWS_WITH_AS(run(1, [&](uint64_t, StepBuilder& out) {
                           out.add_transfer({.bytes = -1, .path = link});
                         }),
                         "linksim: error: flowsim: step 0, transfer 0: expected bytes >= 0, "
                         "got -1",
                         ConfigError);
    // Repeats: step 0 has no previous step, step 1's would lack dependencies, and a step
    // whose dependencies reach beyond its own size cannot follow itself.
    auto run_repeating = [&](uint64_t steps, uint64_t first_repeat,
                             std::function<void(uint64_t, StepBuilder&)> body) {
      struct Repeating : Generated {
        uint64_t first_repeat = 0;
        bool repeats_previous_step(uint64_t step) const override { return step >= first_repeat; }
      } program;
      program.steps = steps;
      program.first_repeat = first_repeat;
      program.body = std::move(body);
      return simulate_steps({1e9}, program);
    };
    auto ring_of_one = [&](uint64_t step, StepBuilder& out) {
      out.add_transfer({.bytes = 1, .path = link,
                        .after = step == 0 ? std::span<const TransferId>{} : first});
    };
    CHECK_THROWS_WITH_AS(run_repeating(3, 0, ring_of_one),
                         "linksim: error: flowsim: step 0: expected generated transfers, got a "
                         "repeat of the previous step (there is none)",
                         ConfigError);
    CHECK_THROWS_WITH_AS(run_repeating(3, 1, ring_of_one),
                         "linksim: error: flowsim: step 1: expected generated transfers, got a "
                         "repeat of step 0 (whose transfers have no dependency; a step program "
                         "is synchronous)",
                         ConfigError);
    CHECK(run_repeating(3, 2, ring_of_one).transfer_count == 3);
    CHECK_THROWS_WITH_AS(run_repeating(3, 2, [&](uint64_t step, StepBuilder& out) {
                           // step 0: two transfers; step 1: one, after transfer 1 of step 0
                           out.add_transfer({.bytes = 1, .path = link,
                                             .after = step == 0 ? std::span<const TransferId>{}
                                                                : beyond});
                           if (step == 0) out.add_transfer({.bytes = 1, .path = link});
                         }),
                         "linksim: error: flowsim: step 2, transfer 0: expected a dependency on "
                         "a transfer of step 1 (below 1), got 1",
                         ConfigError);
    CHECK_THROWS_WITH_AS(simulate_steps({0.0}, RandomSteps(1)),
                         "linksim: error: flowsim: resource 0: expected a finite capacity > 0 "
                         "bytes/s, got 0",
                         ConfigError);
  }
}

}  // namespace
}  // namespace linksim
