// SPDX-License-Identifier: Apache-2.0
// The `nvidia-smi topo -m` matrix a topology implies for one server, and its GPU-to-GPU route
// bandwidth. Rendered by linksim/topo_matrix_report.hpp.
#pragma once

#include <string>
#include <vector>

#include "linksim/routing.hpp"

namespace linksim {

/// One server's GPU/NIC matrix as nvidia-smi prints it.
struct TopoMatrix {
  std::vector<std::string> names;               ///< "GPU0".."GPU7", then "NIC0".. (rows = columns)
  std::vector<std::vector<std::string>> cells;  ///< [row][column]: "X", "NV18", "PIX", "SYS"...
  /// Per GPU row (same order as the GPUs in `names`): the CPU and NUMA affinity columns as
  /// nvidia-smi prints them ("0-47,96-143", "0"), "N/A" when the topology does not say.
  std::vector<std::string> cpu_affinity;
  std::vector<std::string> numa_affinity;
  /// Per GPU row: the GPU NUMA ID column of drivers that print it, the NUMA node of the GPU's
  /// own memory (Device::numa of the GPU), "N/A" for a GPU whose memory is no NUMA node.
  std::vector<std::string> gpu_numa_id;
  std::vector<std::string> nic_legend;          ///< "NIC0: mlx5_0" (the NIC's name if no port)
  std::vector<std::string> nic_ports;           ///< "mlx5_0": the legend's names alone
  int gpu_count = 0;                            ///< the first gpu_count names are GPUs
};

/// The matrix of server `host` (0-based). Throws ConfigError when `host` is out of range.
TopoMatrix topo_matrix(const Router& router, int host);

/// GPU-to-GPU route bandwidth of server `host` in GB/s (1e9 bytes/s), per direction:
/// [i][j] = Router::route(GPUi, GPUj).bw_Bps / 1e9, 0 on the diagonal.
std::vector<std::vector<double>> gpu_bandwidth_matrix_GBps(const Router& router, int host);

}  // namespace linksim
