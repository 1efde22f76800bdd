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
  // Host 0's block is stored; the other servers repeat it without being stored
  // (Topology::add_server_copies). Room for the fabric after it, so that large clusters are
  // never copied to regrow: per NIC at most one switch, a leaf link and at most one cable up
  // from each of the (at most four) tiers, two directed links each, with room for
  // oversubscribed uplinks. Reserved room that is never written costs address space, not
  // memory.
  size_t nics = 0;
  for (const Device& device : server.devices) nics += device.kind == DeviceKind::kNic;
  topology.reserve(server.devices.size() + size_t(hosts) * nics + 16,
                   2 * server.links.size() + size_t(hosts) * 12 * nics + 64);
  // One details entry per template device, shared by all its copies.
  for (size_t i = 0; i < server.devices.size(); ++i) {
    Device device = server.devices[i];
    device.host = 0;
    device.details = topology.add_details(server.details[i]);
    topology.add_device(std::move(device));
  }
  for (const LinkSpec& link : server.links) {
    topology.add_link(DeviceId{link.from}, DeviceId{link.to}, *link.type, link.lanes,
                      link.bw_Bps, link.latency_s, link.where, link.host_bridge);
  }
  topology.add_server_copies(hosts);
}

}  // namespace linksim::detail
