// SPDX-License-Identifier: Apache-2.0
// The server template: parsing `node:`, the GPU connectivity check, and instantiation.
#include "topology/server_template.hpp"

#include "topology/server_reach.hpp"

#include <fmt/format.h>

namespace linksim::detail {

ServerTemplate parse_server(const YamlValue& node, const std::optional<YamlValue>& extend,
                            const Catalog& catalog) {
  node.check_keys({"devices", "links"});
  ServerTemplate server;
  YamlValue devices = node.at("devices");
  parse_devices(devices, catalog, server);
  if (server.devices.empty()) devices.fail("expected at least one device, got none");
  if (auto links = node.find("links")) parse_links(*links, catalog, server);
  if (extend) {
    extend->check_keys({"devices", "links"});
    if (auto more = extend->find("devices")) parse_devices(*more, catalog, server);
    if (auto more = extend->find("links")) {
      parse_links(*more, catalog, server, EarlierLinks::kReplace);
    }
  }
  check_server_reach(node, server, catalog);
  return server;
}

void instantiate_servers(Topology& topology, const ServerTemplate& server, int hosts) {
  // Room for the hosts and the fabric, so that large clusters are never copied to regrow:
  // per NIC a leaf link and at most one cable up from each of the (at most four) tiers,
  // two directed links each, with room for oversubscribed uplinks. Reserved room that is
  // never written costs address space, not memory.
  size_t nics = 0;
  for (const Device& device : server.devices) nics += device.kind == DeviceKind::kNic;
  topology.reserve(size_t(hosts) * (server.devices.size() + nics) + 16,
                   size_t(hosts) * (2 * server.links.size() + 12 * nics) + 64);
  // One details entry per template device, shared by all its copies.
  std::vector<Device> host_block = server.devices;
  for (size_t i = 0; i < host_block.size(); ++i) {
    host_block[i].details = topology.add_details(server.details[i]);
  }
  for (int h = 0; h < hosts; ++h) {
    for (const Device& device : host_block) {
      Device copy = device;
      copy.host = h;
      topology.add_device(copy);
    }
  }
  uint32_t devices_per_host = uint32_t(server.devices.size());
  for (int h = 0; h < hosts; ++h) {
    uint32_t offset = uint32_t(h) * devices_per_host;
    for (const LinkSpec& link : server.links) {
      // Hosts after the first report host 0's declaration (Topology::link_where).
      topology.add_link(DeviceId{offset + link.from}, DeviceId{offset + link.to}, *link.type,
                        link.lanes, link.bw_Bps, link.latency_s,
                        h == 0 ? link.where : SourceLocation{}, link.host_bridge);
    }
  }
  // Each template link is two directed links (topology.hpp: ids 2k and 2k+1).
  topology.set_host_layout(hosts, devices_per_host, uint32_t(2 * server.links.size()));
}

}  // namespace linksim::detail
