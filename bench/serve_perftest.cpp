// SPDX-License-Identifier: Apache-2.0
// Serving simulation speed: 100,000 requests of Llama 3.1 70B, TP=8 on DGX H100 under vLLM's
// continuous batching (target under 2 s), and a 40-point rate sweep of 1,000 requests each
// (target under 10 s). Each benchmark builds its simulator inside the timed loop, so the step
// model's set-up and every iteration shape it times are counted.
//   serve_perftest --standalone   prints the two wall times and the cache figures once
#include <benchmark/benchmark.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <string>

#include "linksim/model.hpp"
#include "linksim/serve.hpp"
#include "linksim/topology_yaml.hpp"

namespace {

using linksim::LengthDistribution;
using linksim::ServeRequest;
using linksim::ServeSimulator;

linksim::Topology bench_topology() {
  return linksim::load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100.yaml");
}

// ShareGPT-like lengths: prompts lognormal around e^6 ~ 400 tokens, outputs uniform 32..512.
ServeRequest bench_request(int requests, double rate) {
  ServeRequest r;
  r.plan.model = linksim::ModelCatalog::builtin().get("llama3.1-70b");
  r.plan.tp = 8;
  r.plan.dp = 1;
  r.engine = *linksim::find_engine("vllm");
  r.input.kind = LengthDistribution::Kind::kLognormal;
  r.input.a = 6;
  r.input.b = 0.7;
  r.output.kind = LengthDistribution::Kind::kUniform;
  r.output.a = 32;
  r.output.b = 512;
  r.requests = requests;
  r.rate_per_s = rate;
  return r;
}

constexpr int kBigRun = 100000;
constexpr double kBigRate = 10;  // requests/s: near the replica's capacity for these lengths

void BM_Serve100k(benchmark::State& state) {
  const linksim::Topology t = bench_topology();
  for (auto _ : state) {
    ServeSimulator sim(t, bench_request(kBigRun, kBigRate));
    benchmark::DoNotOptimize(sim.run().ttft_s.p99);
  }
}
BENCHMARK(BM_Serve100k)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_RateSweep40(benchmark::State& state) {
  const linksim::Topology t = bench_topology();
  for (auto _ : state) {
    ServeSimulator sim(t, bench_request(1000, 1));
    benchmark::DoNotOptimize(sim.sweep(0.5, 20, 0.5).size());
  }
}
BENCHMARK(BM_RateSweep40)->Unit(benchmark::kMillisecond)->Iterations(1);

double cpu_s() { return double(std::clock()) / CLOCKS_PER_SEC; }

// Wall and CPU time: on a shared machine the wall time counts other processes' turns.
int standalone() {
  const linksim::Topology t = bench_topology();
  double c0 = cpu_s();
  auto t0 = std::chrono::steady_clock::now();
  ServeSimulator big(t, bench_request(kBigRun, kBigRate));
  const linksim::ServeResult r = big.run();
  const double big_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("100k requests: %.3f s wall, %.3f s CPU (%ld iterations, %ld shapes timed), TTFT "
              "p99 %.3f s, TPOT p50 %.2f ms, %.0f output tokens/s\n",
              big_s, cpu_s() - c0, r.iterations, r.distinct_iterations, r.ttft_s.p99, r.tpot_s.p50 * 1e3,
              r.throughput.output_tokens_per_s);
  c0 = cpu_s();
  t0 = std::chrono::steady_clock::now();
  ServeSimulator sweep(t, bench_request(1000, 1));
  const auto points = sweep.sweep(0.5, 20, 0.5);
  const double sweep_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("rate sweep: %zu points of 1000 requests, %.3f s wall, %.3f s CPU\n", points.size(),
              sweep_s, cpu_s() - c0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--standalone") == 0) return standalone();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
