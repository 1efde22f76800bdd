// SPDX-License-Identifier: Apache-2.0
// nvidia-smi `topo -m` style matrices (classes and route bandwidth) for one server.
#include "linksim/topo_matrix.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "routing/pcie_tree.hpp"

namespace linksim {
namespace {

// nvidia-smi's legend text, verbatim from a real output
// (data/validation/topo-m/07-rtx2080ti-x2-pix-topo-m-autodl.txt).
constexpr const char* kLegend =
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
    "(e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
    "within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
    "Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

void check_host(const Topology& topology, int host) {
  if (host < 0 || host >= topology.host_count()) {
    throw ConfigError(fmt::format("expected a host between 0 and {}, got {}",
                                  topology.host_count() - 1, host));
  }
}

std::string or_na(const std::string& text) { return text.empty() ? "N/A" : text; }

/// Left-aligned columns, two spaces apart, trailing blanks removed.
std::string render_rows(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

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
    matrix.nic_legend.push_back(
        fmt::format("NIC{}: {}", i, nic.port_name.empty() ? nic.name : nic.port_name));
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
    const routing_detail::UpChain chain = routing_detail::find_up_chain(topology, gpu);
    if (chain.hops.empty()) {
      matrix.cpu_affinity.push_back("N/A");
      matrix.numa_affinity.push_back("N/A");
      continue;
    }
    const Device& cpu = topology.device(chain.hops.back());
    matrix.cpu_affinity.push_back(or_na(cpu.cpu_affinity));
    matrix.numa_affinity.push_back(cpu.numa >= 0 ? fmt::format("{}", cpu.numa) : "N/A");
  }
  return matrix;
}

std::string render_topo_matrix(const TopoMatrix& matrix) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{""};
  header.insert(header.end(), matrix.names.begin(), matrix.names.end());
  header.push_back("CPU Affinity");
  header.push_back("NUMA Affinity");
  rows.push_back(std::move(header));
  for (size_t r = 0; r < matrix.names.size(); ++r) {
    std::vector<std::string> row{matrix.names[r]};
    row.insert(row.end(), matrix.cells[r].begin(), matrix.cells[r].end());
    if (int(r) < matrix.gpu_count) {
      row.push_back(matrix.cpu_affinity[r]);
      row.push_back(matrix.numa_affinity[r]);
    }
    rows.push_back(std::move(row));
  }
  std::string out = render_rows(rows) + "\n" + kLegend;
  if (!matrix.nic_legend.empty()) {
    out += "\nNIC Legend:\n\n";
    for (const std::string& entry : matrix.nic_legend) out += "  " + entry + "\n";
  }
  return out;
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

std::string render_bandwidth_matrix(const std::vector<std::vector<double>>& matrix_GBps) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{""};
  for (size_t i = 0; i < matrix_GBps.size(); ++i) header.push_back(fmt::format("GPU{}", i));
  rows.push_back(std::move(header));
  for (size_t i = 0; i < matrix_GBps.size(); ++i) {
    std::vector<std::string> row{fmt::format("GPU{}", i)};
    for (size_t j = 0; j < matrix_GBps.size(); ++j) {
      row.push_back(i == j ? "X" : fmt::format("{:.1f}", matrix_GBps[i][j]));
    }
    rows.push_back(std::move(row));
  }
  return render_rows(rows);
}

}  // namespace linksim
