// SPDX-License-Identifier: Apache-2.0
// summarize_topology (linksim/topology_summary.hpp).
#include "linksim/topology_summary.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "topology/link_graph.hpp"

namespace linksim {
namespace {

GpuPathSummary summarize_gpu_paths(const Router& router, DeviceId gpu) {
  const Topology& t = router.topology();
  GpuPathSummary s;
  s.name = fmt::format("GPU{}", t.device(gpu).index);
  s.device = t.display_name(gpu);
  s.model = t.device(gpu).model;
  for (LinkId id : t.out_links(gpu)) {
    if (t.link(id).family != LinkFamily::kNvlink) continue;
    s.nvlink_lanes += t.link(id).lanes;
    s.nvlink_bw_Bps += t.link(id).bw_Bps;
  }
  s.pcie_path = t.display_name(gpu);
  for (LinkId id : router.cpu_path(gpu)) {
    s.pcie_path += " > " + t.display_name(t.link(id).to);
    const double bw_Bps = t.link(id).bw_Bps;
    s.pcie_bw_Bps = s.pcie_bw_Bps == 0 ? bw_Bps : std::min(s.pcie_bw_Bps, bw_Bps);
  }
  s.nic = "none";
  if (auto nic = router.nearest_nic(gpu)) {
    const Device& d = t.device(*nic);
    const std::string& port = t.details(d).port_name;
    s.nic = fmt::format("NIC{} ({}, {})", d.index, port.empty() ? d.name.str() : port,
                        to_string(router.classify(gpu, *nic)));
  }
  return s;
}

std::optional<double> gpu_bisection_Bps(const Topology& t) {
  const auto& gpus = t.gpus();
  if (gpus.size() < 2 || t.links().size() > kMaxLinksForBisection) return std::nullopt;
  const auto middle = gpus.begin() + long(gpus.size() / 2);
  return detail::max_flow_Bps(t, {gpus.begin(), middle}, {middle, gpus.end()});
}

HostPlatformSummary summarize_host_platform(const Router& router) {
  const Topology& t = router.topology();
  HostPlatformSummary h;
  const auto cpus = t.devices_of(0, DeviceKind::kCpu);
  h.platform = cpus.empty() ? &t.catalog().default_platform() : &t.host_platform(cpus.front());
  h.p2p_level = router.p2p_level();
  h.staging_Bps = h.platform->host_staging_Bps;
  h.staging_cross_socket_Bps = h.platform->host_staging_cross_socket_Bps;
  // A machine's own measurement, from the first CPU of the first server that declares it (the
  // 2x RTX 2080 Ti's GPUs and rate sit on its second socket).
  bool own = false, own_cross = false;
  for (const DeviceId id : cpus) {
    const DeviceDetails& cpu = t.details(id);
    if (!own && cpu.host_staging_Bps) {
      h.staging_Bps = *cpu.host_staging_Bps;
      own = true;
    }
    if (!own_cross && cpu.host_staging_cross_socket_Bps) {
      h.staging_cross_socket_Bps = *cpu.host_staging_cross_socket_Bps;
      own_cross = true;
    }
  }
  return h;
}

std::vector<LinkTypeCount> count_link_types(const Topology& t) {
  std::map<std::pair<std::string, double>, LinkTypeCount> groups;
  for (size_t i = 0; i < t.links().size(); i += 2) {
    const Link& link = t.links()[i];
    LinkTypeCount& g = groups[{t.link_type(link), link.bw_Bps}];
    g.type = t.link_type(link);
    g.bw_Bps = link.bw_Bps;
    ++g.count;
    g.lanes = link.lanes;
  }
  std::vector<LinkTypeCount> counts;
  for (const auto& entry : groups) counts.push_back(entry.second);
  return counts;
}

}  // namespace

TopologySummary summarize_topology(const Router& router) {
  const Topology& t = router.topology();
  TopologySummary s;
  s.name = t.name();
  s.source_file = t.source_file();
  s.servers = t.host_count();
  s.host = summarize_host_platform(router);
  if (t.host_count() > 1) s.fabric = summarize_fabric(t);
  s.nccl_env = t.nccl_env();
  for (const Device& d : t.devices()) ++s.devices_by_kind[std::string(to_string(d.kind))];
  s.links = count_link_types(t);
  for (DeviceId gpu : t.devices_of(0, DeviceKind::kGpu)) {
    s.gpus.push_back(summarize_gpu_paths(router, gpu));
  }
  s.bisection_Bps = gpu_bisection_Bps(t);
  return s;
}

}  // namespace linksim
