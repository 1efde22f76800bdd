// SPDX-License-Identifier: Apache-2.0
// Machines the collective and plan tests share: a four-GPU NVLink ring and a PCIe server whose
// GPU pairs share a switch uplink, written as YAML, and the repository's topology library.
#pragma once

#include <string>

#include "linksim/error.hpp"
#include "linksim/topology.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim::testing {

/// What parse_topology says of `text` (file name "input"): the error's full text, or
/// "(no error)" when it loads.
inline std::string topology_parse_error(const char* text) {
  try {
    parse_topology(text, "input");
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "(no error)";
}

/// Four H100s in an NVLink ring, one NVLink 4 lane (25 GB/s per direction) between
/// neighbours, each on PCIe Gen5 x16 to one CPU. The PCIe links are declared first, so link 0
/// is gpu0->cpu0. NCCL's rings: 0 1 2 3 and 0 3 2 1, 20.6 GB/s each (2 channels). The CPU of
/// an unknown platform stages a copy between two non-neighbours (P2P level PXB) at 4 GB/s, its
/// own measured rate (as the 2x RTX 2080 Ti host's), so no ring takes those hops.
inline Topology ring4() {
  return parse_topology(R"(
name: ring4
node:
  devices:
    - {name: cpu0, kind: cpu, host_staging_bw: 4 GB/s}
    - {name: "gpu[0-3]", kind: gpu, model: h100-sxm}
  links:
    - {from: "gpu[0-3]", to: cpu0, type: pcie5, width: 16}
    - {from: "gpu[0-3]", to: "gpu[1-3,0]", type: nvlink4, lanes: 1}
)",
                        "input");
}

/// A PCIe Gen4 server of four L40S (no NVLink) under two leaf switches of one top switch:
/// gpu0, gpu2 under pciesw0 and gpu1, gpu3 under pciesw1, every link Gen4 x16. The pairs
/// gpu0-gpu1 and gpu2-gpu3 both cross pciesw0 <-> top <-> pciesw1 (P2P through the switches,
/// PXB); the pairs gpu0-gpu2 and gpu1-gpu3 each stay under their own leaf switch.
inline Topology shared_uplink_server() {
  return parse_topology(R"(
name: shared-uplink
node:
  devices:
    - {name: cpu0, kind: cpu}
    - {name: top, kind: pcie_switch}
    - {name: "pciesw[0-1]", kind: pcie_switch}
    - {name: "gpu[0-3]", kind: gpu, model: l40s}
  links:
    - {from: top, to: cpu0, type: pcie4, width: 16}
    - {from: "pciesw[0-1]", to: top, type: pcie4, width: 16}
    - {from: gpu0, to: pciesw0, type: pcie4, width: 16}
    - {from: gpu1, to: pciesw1, type: pcie4, width: 16}
    - {from: gpu2, to: pciesw0, type: pcie4, width: 16}
    - {from: gpu3, to: pciesw1, type: pcie4, width: 16}
)",
                        "shared-uplink.yaml");
}

/// A file of topologies/ (e.g. "dgx-h100.yaml") with `sets` as --set.
inline Topology library_topology(const std::string& file, const ParamOverrides& sets = {}) {
  return load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/" + file, sets);
}

}  // namespace linksim::testing
