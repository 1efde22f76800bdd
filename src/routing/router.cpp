// SPDX-License-Identifier: Apache-2.0
// The Router: routes inside a server are computed once for host 0 and shifted to other hosts
// (the host-block layout contract in linksim/topology.hpp); routes between servers join two
// cached server legs with an up/down fabric path. See docs/routing.md.
#include "linksim/routing.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <numeric>
#include <optional>

#include "common/check.hpp"
#include "routing/fabric_routes.hpp"
#include "routing/pcie_tree.hpp"
#include "routing/route_summary.hpp"

namespace linksim {

using routing_detail::UpChain;

namespace {

bool is_endpoint(const Device& device) {
  return device.kind == DeviceKind::kGpu || device.kind == DeviceKind::kNic;
}

/// NVLink paths from a to b (detail::nvlink_bonds): the direct bond, then one path per
/// NVSwitch plane both reach. Shares are lanes / total lanes; `*lanes` receives the total
/// (the # of NV#).
std::vector<Path> nvlink_paths(const Topology& topology, DeviceId a, DeviceId b, int* lanes) {
  const std::vector<detail::NvlinkBond> bonds = detail::nvlink_bonds(topology, a, b);
  *lanes = 0;
  for (const detail::NvlinkBond& bond : bonds) *lanes += bond.lanes;
  std::vector<Path> paths;
  for (const detail::NvlinkBond& bond : bonds) {
    paths.push_back({bond.links, double(bond.lanes) / *lanes});
  }
  return paths;
}

Route shifted(const Route& local, uint32_t device_offset, uint32_t link_offset) {
  Route route = local;
  route.src.value += device_offset;
  route.dst.value += device_offset;
  route.bottleneck.value += link_offset;
  for (Path& path : route.paths) {
    for (LinkId& id : path.links) id.value += link_offset;
  }
  return route;
}

/// Everything the router precomputes for host 0 (Router::Impl is this plus nothing).
struct HostTables {
  uint32_t host_devices = 0;  ///< devices per server block
  uint32_t host_links = 0;    ///< directed links per server block
  std::vector<std::optional<uint32_t>> endpoint_of;  ///< host-0 device id -> endpoint index
  std::vector<DeviceId> endpoints;                   ///< host-0 GPUs and NICs
  std::vector<UpChain> chains;                       ///< per endpoint
  std::vector<PathClass> classes;                    ///< [a * E + b]
  std::vector<int> nvlinks;                          ///< [a * E + b]
  /// [a * E + b], host 0, each computed on first use (local_leg) and kept: a collective
  /// touches O(E) of the E^2 pairs, so a server of many endpoints costs a pointer per pair
  /// instead of a route. A slot holds &kNoRoute for a pair without one.
  std::unique_ptr<std::atomic<const Route*>[]> routes;
  /// Per endpoint, host-0 ids: the NICs it sends through, first the one it is nearest to by
  /// index; empty when its server has none (find_nearest_nics). A NIC's list is itself.
  std::vector<std::vector<DeviceId>> nics;
  std::shared_ptr<const routing_detail::FabricRoutes> fabric;  ///< shared by sibling routers
  PathClass p2p_level = PathClass::kPxb;             ///< in force in every server
  PathClass gdr_level = PathClass::kPxb;             ///< NCCL_NET_GDR_LEVEL in force

  size_t pair(uint32_t a, uint32_t b) const { return size_t(a) * endpoints.size() + b; }

  HostTables() = default;
  HostTables(const HostTables&) = delete;
  HostTables& operator=(const HostTables&) = delete;
  ~HostTables();
};

/// The marker of a pair without a route in HostTables::routes.
const Route kNoRoute{};

HostTables::~HostTables() {
  if (!routes) return;
  const size_t count = endpoints.size() * endpoints.size();
  for (size_t i = 0; i < count; ++i) {
    const Route* route = routes[i].load(std::memory_order_relaxed);
    if (route != &kNoRoute) delete route;
  }
}

}  // namespace

struct Router::Impl : HostTables {};

namespace {

struct Located {
  int host = 0;
  uint32_t endpoint = 0;  ///< index into Impl::endpoints
};

void classify_pairs(const Topology& topology, HostTables& impl) {
  const size_t count = impl.endpoints.size();
  impl.classes.assign(count * count, PathClass::kSelf);
  impl.nvlinks.assign(count * count, 0);
  for (uint32_t a = 0; a < count; ++a) {
    for (uint32_t b = 0; b < count; ++b) {
      if (a == b) continue;
      const DeviceId da = impl.endpoints[a];
      const DeviceId db = impl.endpoints[b];
      int lanes = 0;
      if (topology.device(da).kind == DeviceKind::kGpu &&
          topology.device(db).kind == DeviceKind::kGpu) {
        nvlink_paths(topology, da, db, &lanes);
      }
      impl.nvlinks[impl.pair(a, b)] = lanes;
      impl.classes[impl.pair(a, b)] =
          lanes > 0 ? PathClass::kNvlink
                    : routing_detail::meet(topology, impl.chains[a], impl.chains[b]).cls;
    }
  }
}

// Each GPU's NICs: the nearest by PCIe class (even between NVLinked GPUs). When g GPUs share
// the same set of s equally near NICs they take them in turn by index, as NCCL spreads its
// channels over the NICs (search.cc ncclTopoSelectNets): with s >= 2g (two dual-port cards
// under a switch of two GPUs) GPU k of the set drives NICs k, k+g, k+2g, ...; otherwise NIC
// k mod s.
void find_nearest_nics(const Topology& topology, HostTables& impl, const IbHcaFilter& ib_hca) {
  const uint32_t count = static_cast<uint32_t>(impl.endpoints.size());
  impl.nics.assign(count, {});
  const auto cls_between = [&](uint32_t a, uint32_t b) {
    return a == b ? PathClass::kSelf
                  : routing_detail::meet(topology, impl.chains[a], impl.chains[b]).cls;
  };
  const auto is_nic = [&](uint32_t a) {
    return topology.device(impl.endpoints[a]).kind == DeviceKind::kNic;
  };
  std::vector<std::vector<uint32_t>> nearest(count);  // per endpoint: its best NICs by index
  for (uint32_t a = 0; a < count; ++a) {
    std::optional<PathClass> best;
    for (uint32_t b = 0; b < count; ++b) {
      const Device& nic = topology.device(impl.endpoints[b]);
      if (nic.kind != DeviceKind::kNic) continue;
      const std::string& port = topology.details(nic).port_name;
      if (!ib_hca.allows(port.empty() ? nic.name.str() : port)) continue;
      const PathClass cls = cls_between(a, b);
      if (!best || int(cls) < int(*best)) {
        best = cls;
        nearest[a].clear();
      }
      if (cls == *best) nearest[a].push_back(b);
    }
    std::sort(nearest[a].begin(), nearest[a].end(), [&](uint32_t x, uint32_t y) {
      return topology.device(impl.endpoints[x]).index < topology.device(impl.endpoints[y]).index;
    });
  }
  std::map<std::vector<uint32_t>, int> sharing;  // NIC set -> GPUs whose nearest set it is
  for (uint32_t a = 0; a < count; ++a) {
    if (!is_nic(a) && !nearest[a].empty()) ++sharing[nearest[a]];
  }
  std::map<std::vector<uint32_t>, int> taken;  // NIC set -> GPUs of that set seen so far
  std::vector<uint32_t> by_index(count);
  std::iota(by_index.begin(), by_index.end(), 0u);
  std::sort(by_index.begin(), by_index.end(), [&](uint32_t x, uint32_t y) {
    const Device& dx = topology.device(impl.endpoints[x]);
    const Device& dy = topology.device(impl.endpoints[y]);
    return std::pair(int(dx.kind), dx.index) < std::pair(int(dy.kind), dy.index);
  });
  for (uint32_t a : by_index) {
    if (nearest[a].empty()) continue;
    if (is_nic(a)) {
      impl.nics[a] = {impl.endpoints[a]};
      continue;
    }
    const std::vector<uint32_t>& set = nearest[a];
    const size_t gpus = static_cast<size_t>(sharing[set]);
    const size_t turn = static_cast<size_t>(taken[set]++);
    if (set.size() >= 2 * gpus) {
      for (size_t k = turn; k < set.size(); k += gpus) {
        impl.nics[a].push_back(impl.endpoints[set[k]]);
      }
    } else {
      impl.nics[a] = {impl.endpoints[set[turn % set.size()]]};
    }
  }
}

std::optional<Route> local_route(const Topology& topology, const HostTables& impl, uint32_t a,
                                 uint32_t b) {
  Route route;
  route.src = impl.endpoints[a];
  route.dst = impl.endpoints[b];
  route.cls = impl.classes[impl.pair(a, b)];
  route.nvlinks = impl.nvlinks[impl.pair(a, b)];
  const Device& da = topology.device(route.src);
  const Device& db = topology.device(route.dst);
  const bool gpus = da.kind == DeviceKind::kGpu && db.kind == DeviceKind::kGpu;
  if (a == b) {
    // no paths: a device to itself
  } else if (route.cls == PathClass::kNvlink && within_p2p_level(route.cls, impl.p2p_level)) {
    int lanes = 0;
    route.paths = nvlink_paths(topology, route.src, route.dst, &lanes);
  } else {
    const auto meeting = routing_detail::meet(topology, impl.chains[a], impl.chains[b]);
    // GPU pairs: NCCL's P2P rule (ncclTopoCheckP2p); GPU/NIC legs: GPUDirect RDMA needs the
    // class within NCCL_NET_GDR_LEVEL (default PXB; ncclTopoCheckGdr), else paths.cc diverts
    // the leg through the GPU's CPU (addInterStep). An NVLink pair beyond the level (LOC) is
    // diverted through the CPU like any other: its path is the PCIe one, at least PHB.
    const bool nvlink_pair = route.cls == PathClass::kNvlink;
    const bool gpu_nic = da.kind == DeviceKind::kGpu || db.kind == DeviceKind::kGpu;
    const bool p2p = gpus      ? (!nvlink_pair && da.p2p && db.p2p &&
                                  within_p2p_level(route.cls, impl.p2p_level))
                     : gpu_nic ? route.cls <= impl.gdr_level
                               : route.cls <= PathClass::kPxb;
    auto links = p2p ? routing_detail::pcie_path(topology, impl.chains[a], impl.chains[b], meeting)
                     : routing_detail::staged_path(topology, impl.chains[a], impl.chains[b]);
    if (!links) return std::nullopt;
    route.transport = p2p ? Transport::kP2p : Transport::kShm;
    if (nvlink_pair) {
      route.cls = std::max(meeting.cls, PathClass::kPhb);
      route.nvlinks = 0;
    }
    route.paths.push_back({std::move(*links), 1.0});
  }
  routing_detail::summarize(topology, &route);
  return route;
}

// The level in force: LOC under NCCL_P2P_DISABLE, the user's NCCL_P2P_LEVEL, or NCCL's default
// for the server's CPU (its first socket's platform: the sockets of a server are alike).
PathClass server_p2p_level(const Topology& topology, const HostTables& impl,
                           const RouterOptions& options) {
  if (options.p2p_disable) return PathClass::kSelf;
  if (options.p2p_level) return *options.p2p_level;
  const HostPlatform* platform = nullptr;
  int gpus = 0;
  for (uint32_t i = 0; i < impl.host_devices; ++i) {
    const Device& device = topology.device(DeviceId{i});
    if (device.kind == DeviceKind::kGpu) ++gpus;
    if (device.kind == DeviceKind::kCpu && platform == nullptr) {
      platform = &topology.host_platform(DeviceId{i});
    }
  }
  if (platform == nullptr) platform = &topology.catalog().default_platform();
  return default_p2p_level(*platform, options.gpus_per_server > 0 ? options.gpus_per_server : gpus,
                           options.nccl_version);
}

/// The NIC of server `host` with the same index as `nic` (its counterpart on every server).
std::optional<DeviceId> rail_matched_nic(const Topology& topology, const HostTables& impl,
                                         int host, DeviceId nic) {
  const int index = topology.device(nic).index;
  for (DeviceId local : impl.endpoints) {
    const Device& device = topology.device(local);
    if (device.kind == DeviceKind::kNic && device.index == index) {
      return DeviceId{local.value + uint32_t(host) * impl.host_devices};
    }
  }
  return std::nullopt;
}

Located locate(const Topology& topology, const HostTables& impl, DeviceId id) {
  // A device of a server block is host-0's device of the same local id, shifted (the layout
  // contract of linksim/topology.hpp): its server and endpoint index follow from its id
  // without reading the device (a cache miss each on a cluster of half a million devices).
  if (topology.devices_per_host() > 0 &&
      id.value < uint64_t(topology.host_count()) * impl.host_devices) {
    const uint32_t host = id.value / impl.host_devices;
    const std::optional<uint32_t>& endpoint = impl.endpoint_of[id.value - host * impl.host_devices];
    if (endpoint) return {int(host), *endpoint};
  }
  if (id.value >= topology.devices().size()) {
    throw ConfigError(fmt::format("expected a device id below {}, got {}",
                                  topology.devices().size(), id.value));
  }
  const Device& device = topology.device(id);
  if (!is_endpoint(device) || !device.host) {
    throw ConfigError(fmt::format("expected a gpu or nic to route between, got {} '{}'",
                                  to_string(device.kind), topology.display_name(id)));
  }
  const uint32_t local = id.value - uint32_t(*device.host) * impl.host_devices;
  return {*device.host, *impl.endpoint_of[local]};
}

// The NICs of `at`'s server that its endpoint uses (HostTables::nics, shifted to the server),
// without reading a device.
std::vector<DeviceId> nics_of(const HostTables& impl, const Located& at) {
  std::vector<DeviceId> nics = impl.nics[at.endpoint];
  for (DeviceId& nic : nics) nic.value += uint32_t(at.host) * impl.host_devices;
  return nics;
}

// The first of them: the NIC nearest by index.
std::optional<DeviceId> nearest_nic_of(const HostTables& impl, const Located& at) {
  const std::vector<DeviceId>& nics = impl.nics[at.endpoint];
  if (nics.empty()) return std::nullopt;
  return DeviceId{nics.front().value + uint32_t(at.host) * impl.host_devices};
}

}  // namespace

Router::Router(const Topology& topology, RouterOptions options)
    : Router(topology, options, std::shared_ptr<const routing_detail::FabricRoutes>()) {}

Router::Router(const Topology& topology, RouterOptions options, const Router& fabric_from)
    : Router(topology, options, fabric_from.impl_->fabric) {
  LINKSIM_CHECK(&fabric_from.topology_ == &topology, "a shared fabric routes the same topology");
}

Router::Router(const Topology& topology, RouterOptions options,
               std::shared_ptr<const routing_detail::FabricRoutes> fabric)
    : topology_(topology), options_(options), impl_(std::make_unique<Impl>()) {
  Impl& impl = *impl_;
  const bool layout = topology.devices_per_host() > 0;
  impl.host_devices = layout ? topology.devices_per_host() : uint32_t(topology.devices().size());
  impl.host_links = layout ? topology.links_per_host() : uint32_t(topology.links().size());
  impl.endpoint_of.assign(impl.host_devices, std::nullopt);
  for (uint32_t i = 0; i < impl.host_devices; ++i) {
    const Device& device = topology.device(DeviceId{i});
    if (!is_endpoint(device) || device.host != 0) continue;
    impl.endpoint_of[i] = uint32_t(impl.endpoints.size());
    impl.endpoints.push_back(DeviceId{i});
    impl.chains.push_back(detail::find_up_chain(topology, DeviceId{i}));
  }
  classify_pairs(topology, impl);
  find_nearest_nics(topology, impl, options_.ib_hca);
  impl.p2p_level = server_p2p_level(topology, impl, options_);
  impl.gdr_level = options_.net_gdr_level.value_or(PathClass::kPxb);
  const uint32_t count = uint32_t(impl.endpoints.size());
  impl.routes = std::make_unique<std::atomic<const Route*>[]>(size_t(count) * count);
  if (topology.host_count() > 1) {
    impl.fabric = fabric ? std::move(fabric)
                         : std::make_shared<const routing_detail::FabricRoutes>(topology);
  }
}

Router::~Router() = default;
Router::Router(Router&&) noexcept = default;

PathClass Router::classify(DeviceId a, DeviceId b, int* nvlinks) const {
  const Located la = locate(topology_, *impl_, a);
  const Located lb = locate(topology_, *impl_, b);
  if (nvlinks != nullptr) *nvlinks = 0;
  if (la.host != lb.host) return PathClass::kNet;
  const size_t pair = impl_->pair(la.endpoint, lb.endpoint);
  if (nvlinks != nullptr) *nvlinks = impl_->nvlinks[pair];
  return impl_->classes[pair];
}

PathClass Router::p2p_level() const { return impl_->p2p_level; }

std::optional<DeviceId> Router::nearest_nic(DeviceId gpu) const {
  return nearest_nic_of(*impl_, locate(topology_, *impl_, gpu));
}

std::vector<DeviceId> Router::nics(DeviceId gpu) const {
  return nics_of(*impl_, locate(topology_, *impl_, gpu));
}

std::vector<LinkId> Router::cpu_path(DeviceId device) const {
  const Located at = locate(topology_, *impl_, device);
  std::vector<LinkId> links = impl_->chains[at.endpoint].links;
  for (LinkId& id : links) id.value += uint32_t(at.host) * impl_->host_links;
  return links;
}

namespace {

// The host-0 route of a pair, computed once by whichever thread asks first (a racing thread's
// copy is dropped: both are the same route).
const Route* cached_local_route(const Topology& topology, const HostTables& impl, uint32_t a,
                                uint32_t b) {
  std::atomic<const Route*>& slot = impl.routes[impl.pair(a, b)];
  const Route* known = slot.load(std::memory_order_acquire);
  if (known != nullptr) return known;
  std::optional<Route> computed = local_route(topology, impl, a, b);
  const Route* fresh = computed ? new Route(std::move(*computed)) : &kNoRoute;
  if (slot.compare_exchange_strong(known, fresh, std::memory_order_acq_rel,
                                   std::memory_order_acquire)) {
    return fresh;
  }
  if (fresh != &kNoRoute) delete fresh;
  return known;
}

// The host-0 route of a pair in one server; refuses a pair without one.
const Route& local_leg(const Topology& topology, const HostTables& impl, uint32_t a, uint32_t b) {
  const Route* local = cached_local_route(topology, impl, a, b);
  if (local == &kNoRoute) {
    // An NVLink pair beyond the P2P level needs a way through host memory, which a server
    // whose CPUs are not linked (a GB200 rack as one server) does not have.
    const bool staged_nvlink = impl.classes[impl.pair(a, b)] == PathClass::kNvlink &&
                               !within_p2p_level(PathClass::kNvlink, impl.p2p_level);
    throw ConfigError(fmt::format(
        "no path from {} to {} in a server{}", topology.display_name(impl.endpoints[a]),
        topology.display_name(impl.endpoints[b]),
        staged_nvlink ? fmt::format(" through host memory (P2P level {}: NCCL_P2P_DISABLE or "
                                    "NCCL_P2P_LEVEL leave its NVLink unused)",
                                    p2p_level_name(impl.p2p_level))
                      : ""));
  }
  return *local;
}

// The path between two GPUs of different servers through the NICs `nic_s` and `nic_d`: the
// source's leg to its NIC, the fabric, the destination's leg; it carries `share` of the
// route's bytes. Written into `*path`, whose links' room is reused; false when the fabric
// does not join the two.
bool network_path(const Topology& topology, const HostTables& impl, const Located& ls,
                  const Located& ld, DeviceId nic_s, DeviceId nic_d, double share, Path* path) {
  // The fabric's part, in a buffer kept per thread: routing many pairs allocates nothing.
  thread_local std::vector<LinkId> fabric;
  fabric.clear();
  bool found = impl.fabric->append_route(nic_s, nic_d, &fabric);
  if (!found) {
    // Planes of a rail-optimized fabric are disjoint: leave through the source server's NIC
    // on the destination NIC's rail (docs/routing.md#planes).
    if (const auto on_rail = rail_matched_nic(topology, impl, ls.host, nic_d)) {
      found = impl.fabric->append_route(*on_rail, nic_d, &fabric);
      if (found) nic_s = *on_rail;
    }
  }
  if (!found) return false;
  // Each end's NIC, located from the host-0 tables (the servers repeat them) without reading
  // the NIC's device.
  const auto endpoint_of = [&](DeviceId nic, const Located& at) {
    return *impl.endpoint_of[nic.value - uint32_t(at.host) * impl.host_devices];
  };
  const uint32_t nic_s_endpoint = endpoint_of(nic_s, ls);
  const uint32_t nic_d_endpoint = endpoint_of(nic_d, ld);
  // A leg from an endpoint to itself (a NIC's own end) has no links (local_route), and is
  // skipped without reading its route.
  const auto leg_links = [&](uint32_t a, uint32_t b) {
    if (a == b) return size_t{0};
    size_t count = 0;
    for (const Path& p : local_leg(topology, impl, a, b).paths) count += p.links.size();
    return count;
  };
  path->share = share;
  path->links.clear();
  path->links.reserve(leg_links(ls.endpoint, nic_s_endpoint) + fabric.size() +
                      leg_links(nic_d_endpoint, ld.endpoint));
  const auto append_leg = [&](const Located& where, uint32_t a, uint32_t b) {
    if (a == b) return;
    const uint32_t offset = uint32_t(where.host) * impl.host_links;
    for (const Path& p : local_leg(topology, impl, a, b).paths) {
      for (LinkId id : p.links) path->links.push_back(LinkId{id.value + offset});
    }
  };
  append_leg(ls, ls.endpoint, nic_s_endpoint);
  path->links.insert(path->links.end(), fabric.begin(), fabric.end());
  append_leg(ld, nic_d_endpoint, ld.endpoint);
  return true;
}

}  // namespace

std::optional<Router::HostRoute> Router::host_route(DeviceId src, DeviceId dst) const {
  const Impl& impl = *impl_;
  const Located ls = locate(topology_, impl, src);
  const Located ld = locate(topology_, impl, dst);
  if (ls.host != ld.host) return std::nullopt;
  return HostRoute{&local_leg(topology_, impl, ls.endpoint, ld.endpoint),
                   uint32_t(ls.host) * impl.host_devices, uint32_t(ls.host) * impl.host_links};
}

Route Router::route(DeviceId src, DeviceId dst) const {
  Route route;
  route_into(src, dst, true, &route);
  return route;
}

Route Router::route_paths(DeviceId src, DeviceId dst) const {
  Route route;
  route_into(src, dst, false, &route);
  return route;
}

void Router::route_paths(DeviceId src, DeviceId dst, Route* out) const {
  route_into(src, dst, false, out);
}

bool Router::fabric_leg(DeviceId nic_s, DeviceId nic_d, std::vector<LinkId>* links) const {
  // route_into's path for two NICs whose NIC lists are themselves: network_path with no leg
  // inside either server, its fabric part alone.
  return impl_->fabric && impl_->fabric->append_route(nic_s, nic_d, links);
}

void Router::route_into(DeviceId src, DeviceId dst, bool summarized, Route* out) const {
  const Impl& impl = *impl_;
  const Located ls = locate(topology_, impl, src);
  const Located ld = locate(topology_, impl, dst);
  if (ls.host == ld.host) {
    *out = shifted(local_leg(topology_, impl, ls.endpoint, ld.endpoint),
                   uint32_t(ls.host) * impl.host_devices, uint32_t(ls.host) * impl.host_links);
    return;
  }

  // One path per NIC of the end that drives more of them, each carrying an equal share: a GPU
  // with two ports of its own spreads its channels over both (find_nearest_nics). The NICs
  // are host 0's, offset to each end's server.
  const std::vector<DeviceId>& nics_s = impl.nics[ls.endpoint];
  const std::vector<DeviceId>& nics_d = impl.nics[ld.endpoint];
  const uint32_t s_offset = uint32_t(ls.host) * impl.host_devices;
  const uint32_t d_offset = uint32_t(ld.host) * impl.host_devices;
  const auto no_path = [&] {
    const bool filtered = !options_.ib_hca.entries.empty() && (nics_s.empty() || nics_d.empty());
    return ConfigError(fmt::format("no network path from {} to {}{}", topology_.display_name(src),
                                   topology_.display_name(dst),
                                   filtered ? " (NCCL_IB_HCA leaves its server no NIC)" : ""));
  };
  if (nics_s.empty() || nics_d.empty() || !impl.fabric) throw no_path();
  Route& route = *out;
  route.begin_network(src, dst);
  const size_t count = std::max(nics_s.size(), nics_d.size());
  route.paths.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const DeviceId nic_s{nics_s[i % nics_s.size()].value + s_offset};
    const DeviceId nic_d{nics_d[i % nics_d.size()].value + d_offset};
    if (!network_path(topology_, impl, ls, ld, nic_s, nic_d, 1.0 / double(count),
                      &route.paths[i])) {
      throw no_path();
    }
  }
  if (summarized) routing_detail::summarize(topology_, &route);
}

}  // namespace linksim
