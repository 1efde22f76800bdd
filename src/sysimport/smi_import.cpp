// SPDX-License-Identifier: Apache-2.0
// `topo import nvidia-smi`: a topology file that reproduces a real `topo -m` matrix.
//
// The matrix gives classes, not wires, so the importer builds the simplest PCIe tree with the
// same classes (docs/verify-and-lint.md#import):
//  1. sockets: devices joined by PIX/PXB/PHB/NODE share a CPU; the remaining groups are placed
//     first-fit into sockets, never beside a device they are SYS to (nor, for NV# pairs,
//     beside a device of another NUMA node when both NUMA affinities are printed);
//  2. host bridges: PIX/PXB/PHB groups within a socket share a host bridge (NODE between them);
//  3. switch trees: PIX/PXB groups hang from one top switch, PIX groups from one leaf switch;
//  4. NVLink: NV# cells become direct links of # lanes, or one NVSwitch when every GPU pair
//     shows the same NV#.
#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <numeric>
#include <optional>

#include "sysimport/import_defaults.hpp"
#include "sysimport/topology_writer.hpp"

namespace linksim {

namespace {

using sysimport::ImportDefaults;
using sysimport::SketchDevice;
using sysimport::SketchLink;
using sysimport::TopologySketch;

class DisjointSets {
 public:
  explicit DisjointSets(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  size_t find(size_t x) { return parent_[x] == x ? x : parent_[x] = find(parent_[x]); }
  void join(size_t a, size_t b) { parent_[find(a)] = find(b); }
  /// Groups of `members`, each in member order, groups ordered by their first member.
  std::vector<std::vector<size_t>> groups(const std::vector<size_t>& members) {
    std::vector<std::vector<size_t>> out;
    std::vector<size_t> roots;
    for (size_t m : members) {
      const size_t root = find(m);
      auto it = std::find(roots.begin(), roots.end(), root);
      if (it == roots.end()) {
        roots.push_back(root);
        out.push_back({m});
      } else {
        out[size_t(it - roots.begin())].push_back(m);
      }
    }
    return out;
  }

 private:
  std::vector<size_t> parent_;
};

bool at_most(PathClass cls, PathClass limit) {
  return cls != PathClass::kSelf && cls != PathClass::kNvlink &&
         static_cast<int>(cls) <= static_cast<int>(limit);
}

std::optional<int> numa_of(const SmiDevice& device) {
  const std::string& text = device.numa_affinity;
  if (text.empty() || !std::all_of(text.begin(), text.end(), ::isdigit)) return std::nullopt;
  // The parser bounds NUMA ids (check_numa_id); from_chars keeps this total all the same.
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Groups of `members` joined by cells of class at most `limit` (NV# cells join nothing).
std::vector<std::vector<size_t>> group_by(const SmiMatrix& m, const std::vector<size_t>& members,
                                          PathClass limit) {
  DisjointSets sets(m.devices.size());
  for (size_t a : members) {
    for (size_t b : members) {
      if (a < b && at_most(m.cells[a][b].cls, limit)) sets.join(a, b);
    }
  }
  return sets.groups(members);
}

bool conflicts(const SmiMatrix& m, const std::vector<size_t>& group,
               const std::vector<size_t>& socket) {
  for (size_t a : group) {
    for (size_t b : socket) {
      const SmiCell& cell = m.cells[a][b];
      if (cell.cls == PathClass::kSys) return true;
      const auto na = numa_of(m.devices[a]);
      const auto nb = numa_of(m.devices[b]);
      if (cell.cls == PathClass::kNvlink && na && nb && *na != *nb) return true;
    }
  }
  return false;
}

void check_group_consistent(const SmiMatrix& m, const std::vector<size_t>& group) {
  for (size_t a : group) {
    for (size_t b : group) {
      if (a < b && m.cells[a][b].cls == PathClass::kSys) {
        throw ConfigError({m.source, 0, 0},
                          fmt::format("cannot import a contradictory matrix: {} and {} are SYS, "
                                      "yet PCIe cells put them under one CPU",
                                      m.devices[a].label, m.devices[b].label));
      }
    }
  }
}

std::vector<std::vector<size_t>> assign_sockets(const SmiMatrix& m) {
  std::vector<size_t> all(m.devices.size());
  std::iota(all.begin(), all.end(), 0);
  std::vector<std::vector<size_t>> sockets;
  for (const auto& group : group_by(m, all, PathClass::kNode)) {
    check_group_consistent(m, group);
    auto home = std::find_if(sockets.begin(), sockets.end(), [&](const auto& socket) {
      return !conflicts(m, group, socket);
    });
    if (home == sockets.end()) {
      sockets.push_back(group);
    } else {
      home->insert(home->end(), group.begin(), group.end());
      std::sort(home->begin(), home->end());
    }
  }
  return sockets;
}

std::string device_name(const SmiDevice& d) {
  return fmt::format("{}{}", d.kind == DeviceKind::kGpu ? "gpu" : "nic", d.index);
}

// Builds the PCIe side of the sketch: CPUs, switches and the links of every GPU and NIC.
class PcieBuilder {
 public:
  PcieBuilder(const SmiMatrix& m, const ImportDefaults& d, TopologySketch& out)
      : m_(m), d_(d), out_(out) {}

  void build() {
    const auto sockets = assign_sockets(m_);
    for (size_t s = 0; s < sockets.size(); ++s) add_cpu(s, sockets[s]);
    for (size_t a = 0; a < cpus_.size(); ++a) {
      for (size_t b = a + 1; b < cpus_.size(); ++b) {
        out_.links.push_back({cpus_[a], cpus_[b], d_.smp_type, 0, 0, -1, "", ""});
      }
    }
  }

  std::vector<SketchDevice> cpu_devices;
  std::vector<SketchDevice> switch_devices;

 private:
  void add_cpu(size_t s, const std::vector<size_t>& members) {
    SketchDevice cpu{fmt::format("cpu{}", s), "cpu", "", "", "", "", int(s), std::nullopt};
    for (size_t i : members) {
      const SmiDevice& dev = m_.devices[i];
      if (dev.kind != DeviceKind::kGpu) continue;
      if (auto numa = numa_of(dev)) cpu.numa = *numa;
      if (!dev.cpu_affinity.empty() && dev.cpu_affinity != "N/A") cpu.cores = dev.cpu_affinity;
      break;
    }
    cpus_.push_back(cpu.name);
    cpu_devices.push_back(cpu);
    int next_bridge = 0;
    for (const auto& bridge : group_by(m_, members, PathClass::kPhb)) {
      const auto trees = group_by(m_, bridge, PathClass::kPxb);
      const int host_bridge = trees.size() > 1 ? next_bridge++ : -1;
      for (const auto& tree : trees) add_tree(cpu.name, host_bridge, tree);
    }
  }

  std::string add_switch(const std::string& parent, int host_bridge) {
    std::string name = fmt::format("sw{}", switch_devices.size());
    switch_devices.push_back({name, "pcie_switch", "", "", "", "", std::nullopt, std::nullopt});
    out_.links.push_back({name, parent, d_.pcie_type, 0, 16, host_bridge, "", ""});
    return name;
  }

  void attach(size_t device, const std::string& parent, int host_bridge) {
    out_.links.push_back(
        {device_name(m_.devices[device]), parent, d_.pcie_type, 0, 16, host_bridge, "", ""});
  }

  void add_tree(const std::string& cpu, int host_bridge, const std::vector<size_t>& tree) {
    const auto leaves = group_by(m_, tree, PathClass::kPix);
    if (tree.size() == 1) {
      attach(tree[0], cpu, host_bridge);
      return;
    }
    const std::string top = add_switch(cpu, host_bridge);
    if (leaves.size() == 1) {
      for (size_t device : tree) attach(device, top, -1);
      return;
    }
    for (const auto& leaf : leaves) {
      const std::string name = add_switch(top, -1);
      for (size_t device : leaf) attach(device, name, -1);
    }
  }

  const SmiMatrix& m_;
  const ImportDefaults& d_;
  TopologySketch& out_;
  std::vector<std::string> cpus_;
};

// NVLink links: one NVSwitch when every GPU pair shows the same NV# (3+ GPUs), else direct.
void add_nvlinks(const SmiMatrix& m, const ImportDefaults& d, TopologySketch& out,
                 std::vector<SketchDevice>& nvswitches) {
  std::vector<size_t> gpus;
  for (size_t i = 0; i < m.devices.size(); ++i) {
    if (m.devices[i].kind == DeviceKind::kGpu) gpus.push_back(i);
  }
  std::optional<int> uniform;
  bool all_same = gpus.size() >= 3;
  for (size_t a = 0; a < gpus.size() && all_same; ++a) {
    for (size_t b = a + 1; b < gpus.size() && all_same; ++b) {
      const SmiCell& cell = m.cells[gpus[a]][gpus[b]];
      if (!uniform) uniform = cell.nvlinks;
      all_same = cell.cls == PathClass::kNvlink && cell.nvlinks == *uniform;
    }
  }
  if (all_same) {
    nvswitches.push_back({"nvswitch0", "nvswitch", "", "", "", "", std::nullopt, std::nullopt});
    for (size_t g : gpus) {
      out.links.push_back({device_name(m.devices[g]), "nvswitch0", d.nvlink_type, *uniform, 0,
                           -1, "", ""});
    }
    return;
  }
  for (size_t a = 0; a < gpus.size(); ++a) {
    for (size_t b = a + 1; b < gpus.size(); ++b) {
      const SmiCell& cell = m.cells[gpus[a]][gpus[b]];
      if (cell.cls != PathClass::kNvlink) continue;
      out.links.push_back({device_name(m.devices[gpus[a]]), device_name(m.devices[gpus[b]]),
                           d.nvlink_type, cell.nvlinks, 0, -1, "", ""});
    }
  }
}

std::string default_name(const std::string& source) {
  std::string stem = std::filesystem::path(source).stem().string();
  return stem.empty() ? "imported" : stem;
}

}  // namespace

std::string import_nvidia_smi(const SmiMatrix& matrix, const ImportOptions& options,
                              const Catalog& catalog) {
  const ImportDefaults defaults = sysimport::resolve_defaults(options, catalog);
  TopologySketch sketch;
  sketch.name = options.name.empty() ? default_name(matrix.source) : options.name;
  sketch.description = fmt::format("imported from nvidia-smi topo -m ({} GPUs, {} NICs)",
                                   matrix.count(DeviceKind::kGpu),
                                   matrix.count(DeviceKind::kNic));
  sketch.comments = {
      fmt::format("Imported from {} by `linksim topo import nvidia-smi`.", matrix.source),
      "The matrix gives path classes only: this is the simplest PCIe tree with the same",
      "classes. Devices with only NV# or SYS cells hang straight from their socket's CPU.",
  };
  for (const std::string& line : defaults.comments()) sketch.comments.push_back(line);
  PcieBuilder pcie(matrix, defaults, sketch);
  pcie.build();
  std::vector<SketchDevice> nvswitches;
  add_nvlinks(matrix, defaults, sketch, nvswitches);
  if (!nvswitches.empty()) {
    sketch.comments.push_back("Every GPU pair shows the same NV#: one NVSwitch stands for the "
                              "switch planes (the count is not in the matrix).");
  }
  // Declaration order fixes nvidia-smi numbering: GPUs, then NICs, each by index.
  sketch.devices = pcie.cpu_devices;
  sketch.devices.insert(sketch.devices.end(), nvswitches.begin(), nvswitches.end());
  sketch.devices.insert(sketch.devices.end(), pcie.switch_devices.begin(),
                        pcie.switch_devices.end());
  for (const SmiDevice& d : matrix.devices) {
    if (d.kind == DeviceKind::kGpu) {
      sketch.devices.push_back({device_name(d), "gpu", defaults.gpu_model, "", "", "",
                                std::nullopt, std::nullopt});
    }
  }
  for (const SmiDevice& d : matrix.devices) {
    if (d.kind == DeviceKind::kNic) {
      sketch.devices.push_back({device_name(d), "nic", "", defaults.nic_type, d.port_name, "",
                                std::nullopt, std::nullopt});
    }
  }
  return sysimport::write_topology_yaml(sketch);
}

}  // namespace linksim
