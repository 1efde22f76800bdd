// SPDX-License-Identifier: Apache-2.0
#include "topology/server_reach.hpp"

#include <deque>
#include <optional>

#include <fmt/format.h>

namespace linksim::detail {
namespace {

struct Neighbour {
  uint32_t device = 0;
  LinkFamily family = LinkFamily::kPcie;
};

// Each device's links in declaration order, both directions: the order of Topology::out_links
// for host 0, which the router's searches follow.
std::vector<std::vector<Neighbour>> neighbours_of(const ServerTemplate& server) {
  std::vector<std::vector<Neighbour>> out(server.devices.size());
  for (const LinkSpec& link : server.links) {
    out[link.from].push_back({link.to, link.type->family});
    out[link.to].push_back({link.from, link.type->family});
  }
  return out;
}

// routing_detail::find_up_chain: breadth-first over PCIe and C2C links from `start`, through
// PCIe switches only, to the first CPU; the chain's devices, or none without a CPU.
std::vector<uint32_t> up_chain(const ServerTemplate& server,
                               const std::vector<std::vector<Neighbour>>& adjacent, uint32_t start) {
  std::vector<std::optional<uint32_t>> parent(server.devices.size());
  std::vector<char> seen(server.devices.size(), 0);
  std::deque<uint32_t> queue{start};
  seen[start] = 1;
  while (!queue.empty()) {
    const uint32_t at = queue.front();
    queue.pop_front();
    if (server.devices[at].kind == DeviceKind::kCpu) {
      std::vector<uint32_t> hops;
      for (uint32_t d = at; d != start; d = *parent[d]) hops.insert(hops.begin(), d);
      return hops;
    }
    if (at != start && server.devices[at].kind != DeviceKind::kPcieSwitch) continue;
    for (const Neighbour& n : adjacent[at]) {
      if ((n.family != LinkFamily::kPcie && n.family != LinkFamily::kC2c) || seen[n.device]) continue;
      seen[n.device] = 1;
      parent[n.device] = at;
      queue.push_back(n.device);
    }
  }
  return {};
}

// routing_detail::smp_path: socket links from one CPU to the other.
bool socket_joined(const std::vector<std::vector<Neighbour>>& adjacent, uint32_t from, uint32_t to) {
  std::vector<char> seen(adjacent.size(), 0);
  std::deque<uint32_t> queue{from};
  seen[from] = 1;
  while (!queue.empty()) {
    const uint32_t at = queue.front();
    queue.pop_front();
    if (at == to) return true;
    for (const Neighbour& n : adjacent[at]) {
      if (n.family != LinkFamily::kSmp || seen[n.device]) continue;
      seen[n.device] = 1;
      queue.push_back(n.device);
    }
  }
  return false;
}

// Router nvlink_paths: a direct NVLink, or NVLinks into one NVSwitch from both GPUs.
bool nvlinked(const ServerTemplate& server, const std::vector<std::vector<Neighbour>>& adjacent,
              uint32_t a, uint32_t b) {
  for (const Neighbour& n : adjacent[a]) {
    if (n.family != LinkFamily::kNvlink) continue;
    if (n.device == b) return true;
    if (server.devices[n.device].kind != DeviceKind::kNvswitch) continue;
    for (const Neighbour& m : adjacent[n.device]) {
      if (m.family == LinkFamily::kNvlink && m.device == b) return true;
    }
  }
  return false;
}

class Reach {
 public:
  explicit Reach(const ServerTemplate& server)
      : server_(server), adjacent_(neighbours_of(server)), chains_(server.devices.size()) {}

  bool routes(uint32_t a, uint32_t b) {
    const Device& da = server_.devices[a];
    const Device& db = server_.devices[b];
    const bool gpus = da.kind == DeviceKind::kGpu && db.kind == DeviceKind::kGpu;
    if (gpus && nvlinked(server_, adjacent_, a, b)) return true;
    const std::vector<uint32_t>& ca = chain(a);
    const std::vector<uint32_t>& cb = chain(b);
    // Staged through host memory: both ends below a CPU, the CPUs one or socket-linked.
    const bool staged = !ca.empty() && !cb.empty() && socket_joined(adjacent_, ca.back(), cb.back());
    if (staged) return true;
    // Peer to peer where the chains meet below a CPU (at a PCIe switch); GPUs must allow it.
    bool meet_at_switch = false;
    for (uint32_t hop : ca) {
      if (server_.devices[hop].kind == DeviceKind::kCpu) break;
      for (uint32_t other : cb) meet_at_switch = meet_at_switch || other == hop;
    }
    return meet_at_switch && (!gpus || (da.p2p && db.p2p));
  }

 private:
  const std::vector<uint32_t>& chain(uint32_t d) {
    if (!chains_[d]) chains_[d] = up_chain(server_, adjacent_, d);
    return *chains_[d];
  }

  const ServerTemplate& server_;
  std::vector<std::vector<Neighbour>> adjacent_;
  std::vector<std::optional<std::vector<uint32_t>>> chains_;
};

[[noreturn]] void refuse(const YamlValue& node, const ServerTemplate& server, uint32_t device,
                         uint32_t other) {
  std::vector<std::string> notes = {"in " + server.device_paths[device]};
  notes.insert(notes.end(), node.file().notes.begin(), node.file().notes.end());
  throw ConfigError(server.devices[device].where,
                    fmt::format("{} has no path to {} within the server",
                                server.devices[device].name, server.devices[other].name),
                    std::move(notes));
}

}  // namespace

void check_server_reach(const YamlValue& node, const ServerTemplate& server) {
  std::vector<uint32_t> gpus, nics;
  for (uint32_t d = 0; d < server.devices.size(); ++d) {
    if (server.devices[d].kind == DeviceKind::kGpu) gpus.push_back(d);
    if (server.devices[d].kind == DeviceKind::kNic) nics.push_back(d);
  }
  if (gpus.empty()) return;
  Reach reach(server);
  for (size_t j = 1; j < gpus.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      if (!reach.routes(gpus[i], gpus[j]) || !reach.routes(gpus[j], gpus[i])) {
        refuse(node, server, gpus[j], gpus[i]);
      }
    }
  }
  for (uint32_t nic : nics) {
    bool reached = false;
    for (size_t i = 0; i < gpus.size() && !reached; ++i) reached = reach.routes(gpus[i], nic);
    if (!reached) refuse(node, server, nic, gpus.front());
  }
}

}  // namespace linksim::detail
