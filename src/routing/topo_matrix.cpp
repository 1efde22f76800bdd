// SPDX-License-Identifier: Apache-2.0
// nvidia-smi `topo -m` style matrices (classes and route bandwidth) for one server, as data.
#include "linksim/topo_matrix.hpp"

#include <fmt/core.h>

#include "routing/pcie_tree.hpp"

namespace linksim {
namespace {

void check_host(const Topology& topology, int host) {
  if (host < 0 || host >= topology.host_count()) {
    throw ConfigError(fmt::format("expected a host between 0 and {}, got {}",
                                  topology.host_count() - 1, host));
  }
}

std::string or_na(const std::string& text) { return text.empty() ? "N/A" : text; }

}  // namespace

TopoMatrix topo_matrix(const Router& router, int host) {
  const Topology& topology = router.topology();
  check_host(topology, host);
  const std::vector<DeviceId> gpus = topology.devices_of(host, DeviceKind::kGpu);
  const std::vector<DeviceId> nics = topology.devices_of(host, DeviceKind::kNic);
  std::vector<DeviceId> all = gpus;
  all.insert(all.end(), nics.begin(), nics.end());
  TopoMatrix matrix;
  matrix.gpu_count = int(gpus.size());
  for (size_t i = 0; i < gpus.size(); ++i) matrix.names.push_back(fmt::format("GPU{}", i));
  for (size_t i = 0; i < nics.size(); ++i) {
    matrix.names.push_back(fmt::format("NIC{}", i));
    const Device& nic = topology.device(nics[i]);
    const std::string& port = topology.details(nic).port_name;
    matrix.nic_ports.push_back(port.empty() ? nic.name.str() : port);
    matrix.nic_legend.push_back(fmt::format("NIC{}: {}", i, matrix.nic_ports.back()));
  }
  for (DeviceId row : all) {
    std::vector<std::string> cells;
    for (DeviceId column : all) {
      int lanes = 0;
      const PathClass cls = router.classify(row, column, &lanes);
      cells.push_back(cls == PathClass::kNvlink ? fmt::format("NV{}", lanes)
                                                : std::string(to_string(cls)));
    }
    matrix.cells.push_back(std::move(cells));
  }
  for (DeviceId gpu : gpus) {
    const int gpu_numa = topology.details(gpu).numa;
    matrix.gpu_numa_id.push_back(gpu_numa >= 0 ? fmt::format("{}", gpu_numa) : "N/A");
    const detail::UpChain chain = detail::find_up_chain(topology, gpu);
    if (chain.hops.empty()) {
      matrix.cpu_affinity.push_back("N/A");
      matrix.numa_affinity.push_back("N/A");
      continue;
    }
    const DeviceDetails& cpu = topology.details(chain.hops.back());
    matrix.cpu_affinity.push_back(or_na(cpu.cpu_affinity));
    matrix.numa_affinity.push_back(cpu.numa >= 0 ? fmt::format("{}", cpu.numa) : "N/A");
  }
  return matrix;
}

std::vector<std::vector<double>> gpu_bandwidth_matrix_GBps(const Router& router, int host) {
  const Topology& topology = router.topology();
  check_host(topology, host);
  const std::vector<DeviceId> gpus = topology.devices_of(host, DeviceKind::kGpu);
  std::vector<std::vector<double>> matrix(gpus.size(), std::vector<double>(gpus.size(), 0.0));
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (size_t j = 0; j < gpus.size(); ++j) {
      if (i != j) matrix[i][j] = router.route(gpus[i], gpus[j]).bw_Bps / 1e9;
    }
  }
  return matrix;
}

}  // namespace linksim
