// SPDX-License-Identifier: Apache-2.0
// --degrade specs on two shipped machines (a two-server DGX H100 cluster and an 8-GPU PCIe
// server): the spec parses and the degraded machine keeps positive, finite link rates, whole
// server blocks and at least one GPU, and an AllReduce on its first GPUs runs; or the spec is
// refused with a message.
#include <algorithm>
#include <cmath>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "linksim/collectives.hpp"
#include "linksim/faults.hpp"
#include "linksim/topology_yaml.hpp"

namespace {

using namespace linksim;

constexpr size_t kMaxRanks = 4;

const std::vector<Topology>& machines() {
  static const std::vector<Topology> list = [] {
    std::vector<Topology> m;
    m.push_back(load_topology(fuzz::source_path("topologies/dgx-h100-ib.yaml"), {{"nodes", "2"}}));
    m.push_back(load_topology(fuzz::source_path("topologies/pcie-8gpu.yaml")));
    return m;
  }();
  return list;
}

void check_machine(const Topology& t, std::string_view text) {
  if (t.gpus().empty()) fuzz::finding("a degraded machine without GPUs", text);
  if (size_t(t.host_count()) * t.devices_per_host() > t.devices().size()) {
    fuzz::finding("server blocks larger than the machine", text);
  }
  for (const Link& l : t.links()) {
    if (!(l.bw_Bps > 0 && std::isfinite(l.bw_Bps)) || l.lanes < 1) {
      fuzz::finding("a link without a positive finite rate or lanes", text);
    }
  }
  const std::vector<DeviceId>& gpus = t.gpus();
  const std::vector<DeviceId> ranks(gpus.begin(), gpus.begin() + std::min(gpus.size(), kMaxRanks));
  try {
    const Communicator comm(t, ranks);
    CollectiveQuery query;
    query.size_bytes = 1 << 20;
    const double time_s = comm.run(query).time_s;
    if (!(time_s >= 0 && std::isfinite(time_s))) fuzz::finding("a non-finite time", text);
  } catch (const ConfigError&) {
    // A machine may lose its only route between two GPUs (no NIC left on a rail's path).
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  for (const Topology& machine : machines()) {
    try {
      check_machine(with_degraded(machine, text), text);
    } catch (const ConfigError& error) {
      if (error.message().empty()) fuzz::finding("a refusal without a message", text);
    }
  }
  return 0;
}
