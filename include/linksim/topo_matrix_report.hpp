// SPDX-License-Identifier: Apache-2.0
// The renderings of a server's `nvidia-smi topo -m` matrix (linksim/topo_matrix.hpp): the text
// nvidia-smi prints, and JSON.
#pragma once

#include <string>
#include <vector>

#include "linksim/topo_matrix.hpp"

namespace linksim {

/// The text `nvidia-smi topo -m` prints, tab-separated as it prints it
/// (data/validation/topo-m/13-rtx4090-x8-pcie-switch-server-topo-m-nccltests307.txt):
///   "\tGPU0\t...\tNIC0\t...\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"
///   one line per GPU: "GPU<i>\t<cell>\t...\t<cpu affinity>\t<numa affinity>\t\t<gpu numa id>"
///   one line per NIC: "NIC<i>\t<cell>\t..."
/// where the diagonal cell is " X "; trailing blanks removed, then a blank line, the
/// "Legend:" block verbatim, and a "NIC Legend:" block when there are NICs. Ends with "\n".
std::string render_topo_matrix(const TopoMatrix& matrix);

/// One JSON object, pretty-printed with a 2-space indent and followed by '\n':
///   {"topology", "host", "devices": ["GPU0", ..., "NIC0", ...],
///    "matrix": [[cell, ...], ...] (rows as `devices`, "X" on the diagonal),
///    "gpus": [{"name", "cpu_affinity", "numa_affinity", "gpu_numa_id"}],
///    "nics": [{"name", "port"}],
///    "bandwidth_GBps": [[...]] (GPU to GPU, GB = 1e9 bytes/s, per direction, 0 on the diagonal)}
std::string render_topo_matrix_json(const std::string& topology, int host,
                                    const TopoMatrix& matrix,
                                    const std::vector<std::vector<double>>& bandwidth_GBps);

/// Renders the bandwidth matrix with "GPU#" headers and one decimal ("450.0"), "X" on the
/// diagonal, columns left-aligned two spaces apart. Ends with "\n".
std::string render_bandwidth_matrix(const std::vector<std::vector<double>>& matrix_GBps);

}  // namespace linksim
