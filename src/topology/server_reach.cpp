// SPDX-License-Identifier: Apache-2.0
#include "topology/server_reach.hpp"

#include <fmt/format.h>

#include "topology/server_tree.hpp"

namespace linksim::detail {
namespace {

[[noreturn]] void refuse(const YamlValue& node, const ServerTemplate& server, uint32_t device,
                         uint32_t other) {
  std::vector<std::string> notes = {"in " + server.device_paths[device]};
  notes.insert(notes.end(), node.file().notes.begin(), node.file().notes.end());
  throw ConfigError(server.details[device].where,
                    fmt::format("{} has no path to {} within the server",
                                server.devices[device].name, server.devices[other].name),
                    std::move(notes));
}

}  // namespace

void check_server_reach(const YamlValue& node, const ServerTemplate& server,
                        const Catalog& catalog) {
  std::vector<uint32_t> gpus, nics;
  for (uint32_t d = 0; d < server.devices.size(); ++d) {
    if (server.devices[d].kind == DeviceKind::kGpu) gpus.push_back(d);
    if (server.devices[d].kind == DeviceKind::kNic) nics.push_back(d);
  }
  if (gpus.empty()) return;
  // One instance of the server: device d of the template is device d of host 0.
  Topology one(catalog);
  instantiate_servers(one, server, 1);
  one.finalize();
  const ServerTree tree = build_server_tree(one, 0);
  const auto routes = [&](uint32_t a, uint32_t b) {
    return reaches(one, DeviceId{a}, tree.chains[a], DeviceId{b}, tree.chains[b]);
  };
  for (size_t j = 1; j < gpus.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      if (!routes(gpus[i], gpus[j]) || !routes(gpus[j], gpus[i])) refuse(node, server, gpus[j], gpus[i]);
    }
  }
  for (uint32_t nic : nics) {
    bool reached = false;
    for (size_t i = 0; i < gpus.size() && !reached; ++i) reached = routes(gpus[i], nic);
    if (!reached) refuse(node, server, nic, gpus.front());
  }
}

}  // namespace linksim::detail
