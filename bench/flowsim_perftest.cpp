// SPDX-License-Identifier: Apache-2.0
// FlowSimulator throughput: concurrent rings (one big component) and step-synchronous rings
// (millions of small, dependent transfers), held at once or generated step by step. Also
// standalone modes for wall time and peak RSS (see scripts/bench_flowsim.sh):
//   flowsim_perftest --standalone-ring N        the whole program built, then run
//   flowsim_perftest --standalone-step-ring N   the same ring as a step program
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "linksim/flow_steps.hpp"
#include "linksim/flowsim.hpp"

namespace {

using linksim::FlowSimulator;
using linksim::ResourceId;
using linksim::TransferId;

constexpr double kLinkBps = 25e9;        // one NVLink 3/4 link, per direction (DESIGN.md primer)
constexpr double kAlphaS = 3e-6;         // per-step latency, seconds
constexpr double kRingBytes = 1 << 30;   // S = 1 GiB

// N flows on a ring of N resources; flow i crosses resources i..i+7 (mod N).
FlowSimulator concurrent_ring(uint32_t n, uint32_t hops) {
  FlowSimulator sim(std::vector<double>(n, kLinkBps));
  sim.reserve(n, std::size_t(n) * hops, 0);
  std::vector<ResourceId> path(hops);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t h = 0; h < hops; ++h) path[h] = ResourceId{(i + h) % n};
    sim.add_transfer({.bytes = kRingBytes / n, .path = path});
  }
  return sim;
}

// Ring AllReduce as 2(N-1) steps of N transfers; (s, i) waits for (s-1, i-1 mod N).
FlowSimulator step_ring(uint32_t n) {
  FlowSimulator sim(std::vector<double>(n, kLinkBps));
  const uint32_t steps = 2 * (n - 1);
  const std::size_t transfers = std::size_t(steps) * n;
  sim.reserve(transfers, transfers, transfers);
  for (uint32_t s = 0; s < steps; ++s) {
    for (uint32_t i = 0; i < n; ++i) {
      const ResourceId link[] = {ResourceId{i}};
      const TransferId into_rank[] = {TransferId{(s - 1) * n + (i + n - 1) % n}};
      sim.add_transfer({.bytes = kRingBytes / n,
                        .path = link,
                        .latency_s = kAlphaS,
                        .after = s == 0 ? std::span<const TransferId>{} : into_rank});
    }
  }
  return sim;
}

// The same ring as a step program: each step generated when the simulation reaches it.
struct StepRing : linksim::StepProgram {
  uint32_t n;
  explicit StepRing(uint32_t ranks) : n(ranks) {}
  uint64_t step_count() const override { return 2 * (uint64_t(n) - 1); }
  void generate(uint64_t step, linksim::StepBuilder& out) const override {
    for (uint32_t i = 0; i < n; ++i) {
      const ResourceId link[] = {ResourceId{i}};
      const TransferId into_rank[] = {TransferId{(i + n - 1) % n}};
      out.add_transfer({.bytes = kRingBytes / n,
                        .path = link,
                        .latency_s = kAlphaS,
                        .after = step == 0 ? std::span<const TransferId>{} : into_rank});
    }
  }
  // Steps 2.. are step 1 again: indices into the previous step do not change.
  bool repeats_previous_step(uint64_t step) const override { return step >= 2; }
};

void BM_ConcurrentRing(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  FlowSimulator sim = concurrent_ring(n, 8);
  for (auto _ : state) benchmark::DoNotOptimize(sim.run().makespan_s);
  state.SetItemsProcessed(state.iterations() * int64_t(n));
  state.counters["transfers/s"] =
      benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ConcurrentRing)->RangeMultiplier(8)->Range(8, 32768)->Unit(benchmark::kMillisecond);

void BM_StepSynchronousRing(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  FlowSimulator sim = step_ring(n);
  for (auto _ : state) benchmark::DoNotOptimize(sim.run().makespan_s);
  state.counters["transfers/s"] = benchmark::Counter(double(sim.transfer_count()),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_StepSynchronousRing)->Arg(64)->Arg(256)->Arg(1024)->Arg(2048)
    ->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_StepProgramRing(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  const StepRing ring(n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        linksim::simulate_steps(std::vector<double>(n, kLinkBps), ring).makespan_s);
  }
  state.counters["transfers/s"] = benchmark::Counter(
      2.0 * (n - 1) * n, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_StepProgramRing)->Arg(64)->Arg(256)->Arg(1024)->Arg(2048)
    ->Unit(benchmark::kMillisecond)->Iterations(1);

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double peak_rss_MiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;  // ru_maxrss is KiB
}

double closed_form_s(uint32_t n) {
  return 2.0 * (n - 1) * (kAlphaS + kRingBytes / (n * kLinkBps));
}

// Builds and runs the step-synchronous ring once; prints times, the closed-form error and RSS.
int standalone(uint32_t n) {
  const auto start = std::chrono::steady_clock::now();
  FlowSimulator sim = step_ring(n);
  const double build_s = seconds_since(start);
  const auto run_start = std::chrono::steady_clock::now();
  const double makespan_s = sim.run().makespan_s;
  const double run_s = seconds_since(run_start);
  const double closed_s = closed_form_s(n);
  std::printf("step-synchronous ring N=%u: %zu transfers\n", n, sim.transfer_count());
  std::printf("build %.3f s, run %.3f s, %.3g transfers/s (run)\n", build_s, run_s,
              double(sim.transfer_count()) / run_s);
  std::printf("makespan %.12g s, closed form %.12g s, relative error %.3g\n", makespan_s,
              closed_s, std::abs(makespan_s - closed_s) / closed_s);
  std::printf("peak RSS %.1f MiB\n", peak_rss_MiB());
  return 0;
}

// Runs the step-program ring once; prints time, the closed-form error and RSS.
int standalone_steps(uint32_t n) {
  const auto start = std::chrono::steady_clock::now();
  const linksim::StepFlowResult result =
      linksim::simulate_steps(std::vector<double>(n, kLinkBps), StepRing(n));
  const double run_s = seconds_since(start);
  std::printf("step-program ring N=%u: %llu transfers, at most %zu held at once\n", n,
              static_cast<unsigned long long>(result.transfer_count),
              result.peak_held_transfers);
  std::printf("run %.3f s, %.3g transfers/s\n", run_s, double(result.transfer_count) / run_s);
  std::printf("makespan %.12g s, closed form %.12g s, relative error %.3g\n", result.makespan_s,
              closed_form_s(n), std::abs(result.makespan_s - closed_form_s(n)) / closed_form_s(n));
  std::printf("peak RSS %.1f MiB\n", peak_rss_MiB());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--standalone-ring") == 0) {
    return standalone(static_cast<uint32_t>(std::atoi(argv[2])));
  }
  if (argc == 3 && std::strcmp(argv[1], "--standalone-step-ring") == 0) {
    return standalone_steps(static_cast<uint32_t>(std::atoi(argv[2])));
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
