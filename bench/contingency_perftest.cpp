// SPDX-License-Identifier: Apache-2.0
// Speed of `linksim topo contingency`: every single fault of dgx-h100-ib (4 servers, 32 GPUs)
// against a 70B training plan, and of pcie-8gpu against a 70B decode plan; and the cost of
// rebuilding a machine with one fault. Run through scripts/bench.sh.
#include <benchmark/benchmark.h>

#include <string>

#include "linksim/contingency.hpp"
#include "linksim/faults.hpp"
#include "linksim/model.hpp"
#include "linksim/topology_yaml.hpp"

namespace {

using namespace linksim;

const std::string kSource = LINKSIM_SOURCE_DIR;

PlanRequest llama70b(PlanMode mode, int tp, int pp) {
  PlanRequest r;
  r.model = ModelCatalog::builtin().get("llama3.1-70b");
  r.mode = mode;
  r.tp = tp;
  r.pp = pp;
  return r;
}

void BM_PlanContingencyDgxH100Ib(benchmark::State& state) {
  const Topology t = load_topology(kSource + "/topologies/dgx-h100-ib.yaml");
  const PlanRequest r = llama70b(PlanMode::kTrain, 8, 2);
  size_t faults = 0;
  for (auto _ : state) faults = plan_contingency(t, r).rows.size();
  state.counters["faults"] = double(faults);
}
BENCHMARK(BM_PlanContingencyDgxH100Ib)->Unit(benchmark::kMillisecond);

void BM_PlanContingencyPcie8gpu(benchmark::State& state) {
  const Topology t = load_topology(kSource + "/topologies/pcie-8gpu.yaml");
  const PlanRequest r = llama70b(PlanMode::kDecode, 8, 1);
  size_t faults = 0;
  for (auto _ : state) faults = plan_contingency(t, r).rows.size();
  state.counters["faults"] = double(faults);
}
BENCHMARK(BM_PlanContingencyPcie8gpu)->Unit(benchmark::kMillisecond);

void BM_WithDegradedNic(benchmark::State& state) {
  const Topology t = load_topology(kSource + "/topologies/dgx-h100-ib.yaml",
                                   {{"nodes", std::to_string(state.range(0))}});
  for (auto _ : state) benchmark::DoNotOptimize(with_degraded(t, "nic3:missing"));
}
BENCHMARK(BM_WithDegradedNic)->Arg(4)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
