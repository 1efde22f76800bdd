// SPDX-License-Identifier: Apache-2.0
#include "linksim/topology_variants.hpp"

#include <stdexcept>

namespace linksim {

std::string_view to_string(LinkClass c) {
  switch (c) {
    case LinkClass::kNvlink: return "NVLink";
    case LinkClass::kNvlinkC2c: return "NVLink-C2C";
    case LinkClass::kPcie: return "PCIe";
    case LinkClass::kSocket: return "socket link";
    case LinkClass::kNic: return "NIC";
    case LinkClass::kFabric: return "fabric";
  }
  return "?";
}

LinkClass link_class(const Topology& topology, const Link& link) {
  switch (link.family) {
    case LinkFamily::kNvlink: return LinkClass::kNvlink;
    case LinkFamily::kC2c: return LinkClass::kNvlinkC2c;
    case LinkFamily::kPcie: return LinkClass::kPcie;
    case LinkFamily::kSmp: return LinkClass::kSocket;
    case LinkFamily::kNetwork: break;
  }
  const bool nic_port = topology.device(link.from).kind == DeviceKind::kNic ||
                        topology.device(link.to).kind == DeviceKind::kNic;
  return nic_port ? LinkClass::kNic : LinkClass::kFabric;
}

Topology with_faster_links(const Topology& topology, LinkClass which, double factor) {
  if (!(factor > 0)) throw std::invalid_argument("with_faster_links: factor must be > 0");
  Topology out(topology.catalog());
  out.set_name(topology.name());
  out.set_source_file(topology.source_file());
  out.set_nccl_env(topology.nccl_env());
  out.reserve(topology.devices().size(), topology.links().size());
  out.copy_details_from(topology);
  for (const Device& d : topology.devices()) out.add_device(d);
  // Links come in pairs (2k, 2k+1 = reverse); re-adding the forward one recreates both.
  const auto links = topology.links();
  for (size_t id = 0; id < links.size(); id += 2) {
    const Link& l = links[id];
    const LinkType* type = topology.catalog().find_link_type(topology.link_type(l));
    if (type == nullptr) throw std::logic_error("with_faster_links: link type not in the catalog");
    const double bw = link_class(topology, l) == which ? l.bw_Bps * factor : l.bw_Bps;
    out.add_link(l.from, l.to, *type, l.lanes, bw, l.latency_s,
                 topology.link_where(LinkId{uint32_t(id)}), l.host_bridge);
  }
  out.set_host_layout(topology.host_count(), topology.devices_per_host(), topology.links_per_host());
  out.finalize();
  return out;
}

}  // namespace linksim
