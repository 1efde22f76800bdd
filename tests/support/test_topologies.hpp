// SPDX-License-Identifier: Apache-2.0
// Machines the collective tests share: a four-GPU NVLink ring written as YAML, and the
// repository's topology library.
#pragma once

#include <string>

#include "linksim/topology.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim::testing {

/// Four H100s in an NVLink ring, one NVLink 4 lane (25 GB/s per direction) between
/// neighbours, each on PCIe Gen5 x16 to one CPU. The PCIe links are declared first, so link 0
/// is gpu0->cpu0. NCCL's rings: 0 1 2 3 and 0 3 2 1, 20.6 GB/s each (2 channels).
inline Topology ring4() {
  return parse_topology(R"(
name: ring4
node:
  devices:
    - {name: cpu0, kind: cpu}
    - {name: "gpu[0-3]", kind: gpu, model: h100-sxm}
  links:
    - {from: "gpu[0-3]", to: cpu0, type: pcie5, width: 16}
    - {from: "gpu[0-3]", to: "gpu[1-3,0]", type: nvlink4, lanes: 1}
)",
                        "input");
}

/// A file of topologies/ (e.g. "dgx-h100.yaml") with `sets` as --set.
inline Topology library_topology(const std::string& file, const ParamOverrides& sets = {}) {
  return load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/" + file, sets);
}

}  // namespace linksim::testing
