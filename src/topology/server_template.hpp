// SPDX-License-Identifier: Apache-2.0
// The server template (`node:` of a topology file): its devices and links, parsed once and
// then copied for every server instance (docs/topology-format.md#the-server-template-node).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "linksim/catalog.hpp"
#include "linksim/topology.hpp"
#include "common/yaml_reader.hpp"

namespace linksim::detail {

/// One full-duplex link of the template, between local device indices.
struct LinkSpec {
  uint32_t from = 0;
  uint32_t to = 0;
  const LinkType* type = nullptr;
  int lanes = 1;           ///< NVLink links bonded, PCIe width, or parallel fixed-rate links
  double bw_Bps = 0;       ///< per direction, > 0
  double latency_s = 0;    ///< one way, >= 0
  int host_bridge = -1;
  SourceLocation where;    ///< the link's entry in `links`
};

/// Host 0's devices (host = 0) and links, in declaration order.
struct ServerTemplate {
  std::vector<Device> devices;
  std::vector<DeviceDetails> details;     ///< of each device (its `details` index is unset)
  std::vector<std::string> device_paths;  ///< YAML path of each device's entry, for notes
  std::unordered_map<std::string, uint32_t> index_of;  ///< local name -> device index
  std::vector<LinkSpec> links;
};

/// Parses `node.devices`. Throws ConfigError on unknown kinds, models or link types, bad
/// ranges, duplicate names and per-kind unknown keys.
void parse_devices(const YamlValue& devices, const Catalog& catalog, ServerTemplate& server);

/// What a link list does with a pair that `server.links` already holds when it is parsed.
enum class EarlierLinks {
  kDuplicate,  ///< an error, as a pair written twice in one list (`node.links`)
  kReplace,    ///< the new entry replaces it (`extend.links` over an included server)
};

/// Parses `node.links` (after the devices). Throws ConfigError on unknown endpoints or
/// link types, pairing mismatches, duplicate pairs, bad units and non-positive bandwidth.
void parse_links(const YamlValue& links, const Catalog& catalog, ServerTemplate& server,
                 EarlierLinks earlier = EarlierLinks::kDuplicate);

/// Parses the whole `node:` mapping, then `extend:` when given (its devices are added, its
/// links added or, for a pair the server already links, put in place of that link;
/// docs/topology-format.md#extending-an-included-server), and checks that every GPU reaches
/// every other GPU of the server through the server's own links.
ServerTemplate parse_server(const YamlValue& node, const std::optional<YamlValue>& extend,
                            const Catalog& catalog);

/// Adds the server to `topology` as host 0's block and declares `hosts` servers repeating it
/// (Topology::add_server_copies; the topology.hpp layout contract). O(template size).
void instantiate_servers(Topology& topology, const ServerTemplate& server, int hosts);

}  // namespace linksim::detail
