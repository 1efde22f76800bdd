// SPDX-License-Identifier: Apache-2.0
// A machine sketched in the topology format's own vocabulary, and its YAML text
// (docs/topology-format.md). Importers build a sketch; the writer only formats it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace linksim::sysimport {

/// One `node.devices` entry. Empty strings and nullopt fields are not written.
struct SketchDevice {
  std::string name;   ///< "gpu0", "sw3", "cpu1"
  std::string kind;   ///< "gpu", "cpu", "pcie_switch", "nvswitch", "nic"
  std::string model;  ///< gpu: catalog key
  std::string type;   ///< nic: link type of its network port ("ib_ndr")
  std::string port;   ///< nic: nvidia-smi NIC legend name ("mlx5_0")
  std::string cores;  ///< cpu: CPU Affinity text
  std::optional<int> numa;  ///< cpu: NUMA node id
  std::optional<bool> p2p;  ///< gpu: only when it must differ from the catalog
  std::string platform = "";  ///< cpu: catalog host platform key; "" = not written (generic)
};

/// One `node.links` entry between two single devices.
struct SketchLink {
  std::string from;
  std::string to;
  std::string type;         ///< catalog link type: "nvlink3", "pcie4", "upi"
  int lanes = 0;            ///< NVLink links bonded; 0 = not written (default 1)
  int width = 0;            ///< PCIe width; 0 = not written (default 16)
  int host_bridge = -1;     ///< PCIe into a CPU: shared host bridge number; -1 = not written
  std::string bandwidth;    ///< per-direction override with a unit ("22.5 GB/s"); "" = catalog
  std::string comment;      ///< trailing "# ..." comment, "" for none
};

/// A whole single-server topology file.
struct TopologySketch {
  std::string name;
  std::string description;
  std::vector<std::string> comments;  ///< header comment lines (without "# ")
  std::vector<SketchDevice> devices;
  std::vector<SketchLink> links;
};

/// The YAML text: header comments, name, description, node.devices, node.links, one flow
/// mapping per entry. Deterministic; ends with a newline.
std::string write_topology_yaml(const TopologySketch& sketch);

/// `text` as a double-quoted YAML scalar on one line (backslash and quote escaped, control
/// characters as \xNN).
std::string yaml_quote(const std::string& text);

}  // namespace linksim::sysimport
