// SPDX-License-Identifier: Apache-2.0
// Topology YAML, then everything a loaded machine must answer: a route between every pair of
// GPUs of the first server (and one across servers), its nvidia-smi matrix and NCCL XML, and
// an AllReduce and an AllToAll on its first GPUs. The loader promises that whatever it
// accepts can be routed, so a ConfigError after loading is a finding.
#include <algorithm>
#include <cmath>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "linksim/collectives.hpp"
#include "linksim/routing.hpp"
#include "linksim/sysimport.hpp"
#include "linksim/topology_yaml.hpp"

namespace {

using namespace linksim;

// Bounds the work per input, so one input stays well inside the fuzzer's time limit: the
// router classifies every pair of a server's devices when it is built (seconds under ASan for
// the 72 GPUs of topologies/gb200-nvl72.yaml). Larger machines are loaded, not routed.
constexpr size_t kMaxDevices = 512;
constexpr size_t kMaxGpusPerServer = 16;
constexpr size_t kMaxRanks = 8;

void check_route(const Router& router, DeviceId a, DeviceId b, std::string_view text) {
  const Route route = router.route(a, b);
  if (a != b && !(route.bw_Bps > 0 && std::isfinite(route.bw_Bps))) {
    fuzz::finding("a route without a finite positive bandwidth", text);
  }
  if (!(route.latency_s >= 0 && std::isfinite(route.latency_s))) {
    fuzz::finding("a route with a negative or infinite latency", text);
  }
  (void)route.label();
}

void check_collective(const Topology& topology, std::string_view text) {
  const std::vector<DeviceId>& gpus = topology.gpus();
  std::vector<DeviceId> ranks(gpus.begin(), gpus.begin() + std::min(gpus.size(), kMaxRanks));
  const Communicator comm(topology, ranks);
  for (CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kAllToAll}) {
    const CollectiveResult result = comm.run({.op = op, .size_bytes = 1 << 20});
    if (!(result.time_s > 0 && std::isfinite(result.time_s))) {
      fuzz::finding("a collective without a finite positive time", text);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::string file = fuzz::source_path("topologies/fuzz-input.yaml");
  std::optional<Topology> topology;
  try {
    topology.emplace(parse_topology(text, file));
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, file);
    return 0;
  }
  if (topology->devices().size() > kMaxDevices ||
      topology->devices_of(0, DeviceKind::kGpu).size() > kMaxGpusPerServer) {
    return 0;
  }
  try {
    const Router router(*topology);
    const std::vector<DeviceId> local = topology->devices_of(0, DeviceKind::kGpu);
    for (DeviceId a : local) {
      for (DeviceId b : local) check_route(router, a, b, text);
    }
    const std::vector<DeviceId>& gpus = topology->gpus();
    if (!gpus.empty()) check_route(router, gpus.front(), gpus.back(), text);
    (void)render_matrix(implied_matrix(router, 0));
    (void)export_nccl_xml(router, 0);
    if (!gpus.empty()) check_collective(*topology, text);
  } catch (const ConfigError& error) {
    fuzz::finding(std::string("a loaded topology refused after loading: ") + error.what(), text);
  }
  return 0;
}
