// SPDX-License-Identifier: Apache-2.0
// Speed of the collective engine: analytic estimates per second, and flow-mode AllReduce of
// 1 GiB on 8 to 32768 GPUs (a single-switch star, and DGX H100 servers on an NDR
// rail-optimized fat tree). Run through scripts/bench.sh.
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <string>

#include "linksim/collectives.hpp"
#include "linksim/topology_yaml.hpp"

namespace {

using namespace linksim;

const std::string kSource = LINKSIM_SOURCE_DIR;

// N servers of one H100 and one NDR NIC each, all on one switch.
std::string star_yaml(int gpus) {
  return fmt::format(R"(
name: star{}
params: {{nodes: {}}}
node:
  devices:
    - {{name: cpu0, kind: cpu}}
    - {{name: gpu0, kind: gpu, model: h100-sxm}}
    - {{name: nic0, kind: nic, type: ib_ndr}}
  links:
    - {{from: gpu0, to: cpu0, type: pcie5}}
    - {{from: nic0, to: cpu0, type: pcie5}}
nodes: ${{nodes}}
fabric: {{kind: single_switch, radix: {}}}
)",
                     gpus, gpus, gpus);
}

CollectiveResult allreduce(const Communicator& comm, double bytes, SimMode mode) {
  CollectiveQuery q;
  q.size_bytes = bytes;
  q.mode = mode;
  return comm.run(q);
}

// One fixed communicator of every GPU of N DGX H100 servers; AllReduce of 8 B to 8 GB.
void BM_AnalyticEstimate(benchmark::State& state) {
  const std::string nodes = std::to_string(state.range(0));
  Topology t = load_topology(kSource + "/topologies/dgx-h100-ib.yaml", {{"nodes", nodes}});
  Communicator comm(t, t.gpus());
  double size = 8;
  for (auto _ : state) {
    benchmark::DoNotOptimize(allreduce(comm, size, SimMode::kAnalytic));
    size = size >= 8e9 ? 8 : size * 2;
  }
  state.counters["estimates/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["gpus"] = double(state.range(0) * 8);
}
BENCHMARK(BM_AnalyticEstimate)->Arg(64)->Arg(256)->Arg(2048);

void BM_FlowAllReduceStar(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(0));
  Topology t = parse_topology(star_yaml(gpus), "star");
  for (auto _ : state) {
    Communicator comm(t, t.gpus());
    benchmark::DoNotOptimize(allreduce(comm, 1073741824.0, SimMode::kFlow));
  }
}
BENCHMARK(BM_FlowAllReduceStar)->Arg(8)->Arg(64)->Arg(512)->Arg(4096)->Unit(benchmark::kMillisecond);

void BM_FlowAllReduceDgxCluster(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  Topology t = load_topology(kSource + "/topologies/dgx-h100-ib.yaml", {{"nodes", std::to_string(nodes)}});
  for (auto _ : state) {
    Communicator comm(t, t.gpus());
    benchmark::DoNotOptimize(allreduce(comm, 1073741824.0, SimMode::kFlow));
  }
  state.counters["gpus"] = nodes * 8;
}
BENCHMARK(BM_FlowAllReduceDgxCluster)->Arg(1)->Arg(8)->Arg(64)->Arg(512)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
