// SPDX-License-Identifier: Apache-2.0
// nccl_log_topology: the skeleton of a log's first node, in the topology format's own
// vocabulary (sysimport/topology_writer.hpp), with the generic defaults of `topo import`.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "linksim/error.hpp"
#include "linksim/nccl_log.hpp"
#include "sysimport/import_defaults.hpp"
#include "sysimport/topology_writer.hpp"

namespace linksim {
namespace {

using sysimport::SketchDevice;
using sysimport::SketchLink;
using sysimport::TopologySketch;

struct NodeGpus {
  std::map<int, int> dev_of_rank;  ///< ranks of node 0 -> GPU index
};

NodeGpus first_node(const NcclLog& log, const NcclLog::Nodes& nodes) {
  NodeGpus out;
  for (size_t r = 0; r < nodes.node_of_rank.size(); ++r) {
    if (nodes.node_of_rank[r] != 0) continue;
    const NcclLogRank* info = log.rank(static_cast<int>(r));
    const std::optional<int> dev = info ? (info->nvml_dev ? info->nvml_dev : info->cuda_dev)
                                        : std::nullopt;
    if (!dev || *dev < 0) {
      throw ConfigError(fmt::format("cannot write a topology: the log does not name the GPU of "
                                    "rank {} (no 'cudaDev', 'nvmlDev' or 'r[dev]' for it)", r));
    }
    out.dev_of_rank[static_cast<int>(r)] = *dev;
  }
  if (out.dev_of_rank.empty()) {
    throw ConfigError("cannot write a topology: the log places no rank on a node");
  }
  return out;
}

SketchDevice device(std::string name, std::string kind) {
  SketchDevice d;
  d.name = std::move(name);
  d.kind = std::move(kind);
  return d;
}

SketchLink pcie(std::string from, std::string to, const std::string& type) {
  SketchLink l;
  l.from = std::move(from);
  l.to = std::move(to);
  l.type = type;
  return l;
}

int find_root(std::map<int, int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

}  // namespace

std::string nccl_log_topology(const NcclLog& log, const std::string& name) {
  const NcclLog::Nodes nodes = log.node_map();
  const NodeGpus node = first_node(log, nodes);
  const sysimport::ImportDefaults defaults = sysimport::resolve_defaults({}, Catalog::builtin());
  std::map<int, int> parent;  // GPU index -> union-find parent, joined by P2P hops
  for (const auto& [rank, dev] : node.dev_of_rank) parent[dev] = dev;
  std::map<std::pair<int, int>, std::set<std::string>> pair_ways;
  std::map<int, std::optional<int>> nic_gdr_gpu;  // NIC index -> a GPU using it with GDR
  for (const NcclLogHop& h : log.hops) {
    const auto from = node.dev_of_rank.find(h.from_rank);
    const auto to = h.to_rank ? node.dev_of_rank.find(*h.to_rank) : node.dev_of_rank.end();
    if (is_net(h.transport) && h.net_dev) {
      const auto own = h.receive ? to : from;
      auto& gpu = nic_gdr_gpu[*h.net_dev];
      if (own != node.dev_of_rank.end() && h.gdr && !gpu) gpu = own->second;
      continue;
    }
    if (from == node.dev_of_rank.end() || to == node.dev_of_rank.end()) continue;
    const auto key = std::minmax(from->second, to->second);
    pair_ways[{key.first, key.second}].insert(std::string(to_string(h.transport)));
    if (is_p2p(h.transport)) parent[find_root(parent, from->second)] = find_root(parent, to->second);
  }
  TopologySketch sketch;
  sketch.name = name;
  sketch.description = fmt::format("skeleton of node 0 of the NCCL log {}", log.file);
  sketch.comments.push_back(fmt::format("Written by `linksim diagnose --emit-topology` from {}: {} "
                                        "ranks on {} nodes in the log; this file is node 0.",
                                        log.file, log.rank_count(), nodes.count));
  sketch.comments.push_back("GPUs that NCCL joined by P2P share a PCIe switch; SHM pairs meet at the CPU.");
  for (const std::string& c : defaults.comments()) sketch.comments.push_back(c);
  for (const auto& [pair, ways] : pair_ways) {
    std::vector<std::string> list(ways.begin(), ways.end());
    sketch.comments.push_back(fmt::format("gpu{} <-> gpu{}: {}", pair.first, pair.second,
                                          fmt::format("{}", fmt::join(list, ", "))));
  }
  SketchDevice cpu = device("cpu0", "cpu");
  if (log.cpu) {
    cpu.platform = nccl_cpu_platform(*log.cpu, log.release());
    sketch.comments.push_back(fmt::format(
        "cpu0: NCCL's topology dump (line {}) shows {}{}.", log.cpu->source.line,
        describe_nccl_cpu(*log.cpu, log.release()),
        cpu.platform.empty() ? ", which names no platform of the catalog: set it by hand"
                             : fmt::format(": platform {}", cpu.platform)));
  }
  sketch.devices.push_back(cpu);
  std::map<int, std::string> switch_of_root;
  std::vector<int> devs;
  for (const auto& entry : parent) devs.push_back(entry.first);
  for (const int dev : devs) {
    const int root = find_root(parent, dev);
    const bool shared = std::any_of(devs.begin(), devs.end(), [&](int other) {
      return other != dev && find_root(parent, other) == root;
    });
    SketchDevice gpu = device(fmt::format("gpu{}", dev), "gpu");
    gpu.model = defaults.gpu_model;
    sketch.devices.push_back(gpu);
    if (!shared) {
      sketch.links.push_back(pcie(fmt::format("gpu{}", dev), "cpu0", defaults.pcie_type));
      continue;
    }
    auto [it, fresh] = switch_of_root.emplace(root, fmt::format("sw{}", switch_of_root.size()));
    if (fresh) {
      sketch.devices.push_back(device(it->second, "pcie_switch"));
      sketch.links.push_back(pcie(it->second, "cpu0", defaults.pcie_type));
    }
    sketch.links.push_back(pcie(fmt::format("gpu{}", dev), it->second, defaults.pcie_type));
  }
  for (const auto& [nic, gdr_gpu] : nic_gdr_gpu) {
    const std::string nic_name = fmt::format("nic{}", nic);
    SketchDevice nic_device = device(nic_name, "nic");
    nic_device.type = defaults.nic_type;
    sketch.devices.push_back(nic_device);
    std::string up = "cpu0";
    if (gdr_gpu && parent.count(*gdr_gpu)) {
      const auto sw = switch_of_root.find(find_root(parent, *gdr_gpu));
      if (sw != switch_of_root.end()) up = sw->second;
      else {
        // A GPU alone under the CPU: give it and the NIC a switch so that GDR holds (PIX).
        const std::string name_sw = fmt::format("sw{}", switch_of_root.size());
        switch_of_root.emplace(find_root(parent, *gdr_gpu), name_sw);
        sketch.devices.push_back(device(name_sw, "pcie_switch"));
        sketch.links.push_back(pcie(name_sw, "cpu0", defaults.pcie_type));
        for (SketchLink& l : sketch.links) {
          if (l.from == fmt::format("gpu{}", *gdr_gpu) && l.to == "cpu0") l.to = name_sw;
        }
        up = name_sw;
      }
    }
    sketch.links.push_back(pcie(nic_name, up, defaults.pcie_type));
  }
  return sysimport::write_topology_yaml(sketch);
}

}  // namespace linksim
