// SPDX-License-Identifier: Apache-2.0
#include "collectives/comm_graph.hpp"

#include <algorithm>
#include <fmt/core.h>
#include <limits>
#include <map>
#include <set>

#include "collectives/link_efficiency.hpp"
#include "collectives/nccl_tuner_model.hpp"
#include "collectives/route_caps.hpp"
#include "common/check.hpp"
#include "linksim/error.hpp"

namespace linksim::detail {
namespace {

// A count per server, indexed by server_of + 1 (0: devices of no server), grown on demand.
int& count_of(std::vector<int>& per_host, std::optional<int> host) {
  const size_t slot = size_t(host.value_or(-1) + 1);
  if (slot >= per_host.size()) per_host.resize(slot + 1, 0);
  return per_host[slot];
}

// The communicator's GPUs in its fullest server: what NCCL's AMD P2P rule counts.
int gpus_per_server(const Topology& topology, const std::vector<DeviceId>& ranks) {
  std::vector<int> per_host(size_t(topology.host_count()) + 1, 0);
  int most = 0;
  for (DeviceId id : ranks) {
    if (id.value >= topology.devices().size()) continue;  // refused by the constructor
    most = std::max(most, ++count_of(per_host, server_of(topology, id)));
  }
  return most;
}

// Whether every rank's GPU hangs off its CPU by NVLink-C2C (Grace: GH200, GB200).
bool gpus_on_c2c(const Topology& topology, const std::vector<DeviceId>& ranks) {
  if (ranks.empty()) return false;
  return std::all_of(ranks.begin(), ranks.end(), [&](DeviceId gpu) {
    const auto links = topology.out_links(gpu);
    return std::any_of(links.begin(), links.end(), [&](LinkId id) {
      return topology.link(id).family == LinkFamily::kC2c;
    });
  });
}

RouterOptions router_options(const CommOptions& options, const Topology& topology,
                             const std::vector<DeviceId>& ranks) {
  RouterOptions r;
  r.p2p_disable = options.p2p_disable;
  r.p2p_level = options.p2p_level;
  r.gpus_per_server = gpus_per_server(topology, ranks);
  r.ib_hca = options.ib_hca;
  // NCCL's socket transport takes host memory only (net_socket.cc: NCCL_PTR_HOST), so its
  // GPU/NIC legs are staged as under NCCL_NET_GDR_LEVEL=LOC.
  r.net_gdr_level = options.net_socket ? std::optional(PathClass::kSelf) : options.net_gdr_level;
  // NCCL_NET_GDR_C2C (src/graph/paths.cc ncclTopoCheckGdr; default on from NCCL 2.27): a GPU
  // reaching a NIC of its own CPU through NVLink-C2C uses GPUDirect RDMA. That leg's class is
  // NODE here (the C2C link and the NIC's root port are different host bridges), so on
  // machines whose GPUs all hang off their CPU by C2C the default level becomes NODE
  // (docs/model.md#multi-rack).
  if (!r.net_gdr_level && options.nccl_version.at_least(2, 27) && gpus_on_c2c(topology, ranks)) {
    r.net_gdr_level = PathClass::kNode;
  }
  // NCCL_VERSION_CODE of the release (2.23 = 22300): its default P2P level depends on it.
  r.nccl_version = options.nccl_version.major * 10000 + options.nccl_version.minor * 100;
  return r;
}

}  // namespace

CommGraph::CommGraph(const Topology& topology, std::vector<DeviceId> ranks,
                     const CommOptions& options)
    : topology_(topology),
      ranks_(std::move(ranks)),
      options_(options),
      router_(topology, router_options(options, topology, ranks_)),
      capacity_(std::make_shared<const LinkCapacities>(
          effective_link_capacities(topology, options.calibration))),
      route_index_(ranks_.size()),
      caches_from_(std::make_unique<std::atomic<bool>[]>(ranks_.size())) {
  build();
}

CommGraph::CommGraph(const Topology& topology, std::vector<DeviceId> ranks,
                     const CommOptions& options, const CommGraph& tables_from)
    : topology_(topology),
      ranks_(std::move(ranks)),
      options_(options),
      router_(topology, router_options(options, topology, ranks_), tables_from.router_),
      // The effective capacities depend on the calibration too: shared only when it is the same.
      capacity_(tables_from.options_.calibration == options.calibration
                    ? tables_from.capacity_
                    : std::make_shared<const LinkCapacities>(
                          effective_link_capacities(topology, options.calibration))),
      latency_overrides_(tables_from.latency_overrides_),
      network_legs_by_link_id_(tables_from.network_legs_by_link_id_),
      route_index_(ranks_.size()),
      caches_from_(std::make_unique<std::atomic<bool>[]>(ranks_.size())) {
  LINKSIM_CHECK(&tables_from.topology_ == &topology, "shared tables of the same topology");
  build();
}

void CommGraph::build() {
  const Topology& topology = topology_;
  if (ranks_.empty()) throw ConfigError("a collective needs at least one GPU");
  if (options_.channels < 0 || options_.channels > kMaxChannels) {
    throw ConfigError(fmt::format("expected channels between 1 and {} (NCCL's MAXCHANNELS), or 0 "
                                  "as NCCL chooses, got {}",
                                  kMaxChannels, options_.channels));
  }
  if (options_.gpus_per_thread < 1 || options_.gpus_per_thread > int(ranks_.size())) {
    throw ConfigError(fmt::format("expected gpus per thread between 1 and {} (the GPUs of the "
                                  "communicator), got {}",
                                  ranks_.size(), options_.gpus_per_thread));
  }
  std::vector<char> seen(topology.devices().size(), 0);
  const std::string* last_model = nullptr;  // a cluster's GPUs share a model or a few
  int last_sm = 0;
  for (DeviceId id : ranks_) {
    const Device& gpu = topology.device(id);
    if (gpu.kind != DeviceKind::kGpu) {
      throw ConfigError(fmt::format("'{}' is not a GPU", topology.display_name(id)));
    }
    if (seen[id.value]++ != 0) {
      throw ConfigError(fmt::format("GPU '{}' is listed twice", topology.display_name(id)));
    }
    if (last_model == nullptr || *last_model != gpu.model) {
      last_sm = topology.gpu_model(id).sm;
      last_model = &gpu.model.str();
    }
    min_sm_ = min_sm_ == 0 ? last_sm : std::min(min_sm_, last_sm);
  }
  if (!network_legs_by_link_id_) {
    network_legs_by_link_id_ =
        std::make_shared<const bool>(detail::network_legs_by_link_id(topology));
  }
  group_nodes();
  find_gdr_nics();
  plan_rings();
  find_nvls();
  measure_network();
  measure_hop_latency();
  nccl_ring_graph_ = search_nccl_ring_graph(*this);
}

void CommGraph::measure_hop_latency() {
  // A cluster has thousands of links of a handful of types: look each type up once (the
  // catalog's lookup ignores case, which makes it slow); an interned name compares by pointer.
  std::vector<std::pair<InternedString, const LinkType*>> types;
  auto catalog_type = [&](const Link& link) {
    for (const auto& [name, type] : types) {
      if (name == topology_.link_type(link)) return type;
    }
    types.emplace_back(topology_.link_type(link), topology_.catalog().find_link_type(topology_.link_type(link).str()));
    return types.back().second;
  };
  auto excess_s = [&](const Link& link) {
    const LinkType* type = catalog_type(link);
    return link.latency_s - (type != nullptr ? type->latency_s : link.latency_s);
  };
  // Without a link whose latency differs from its type's (no `latency:` override, the common
  // case) every hop's excess is 0 and the rings need not be walked.
  hop_latency_excess_s_ = 0;
  if (!latency_overrides_) {
    // Host 0's block and the fabric's links: the other servers' repeat host 0's (the layout
    // contract of linksim/topology.hpp; a fault applies to every server).
    const auto links = topology_.links();
    const size_t per_host = topology_.links_per_host();
    const size_t blocks =
        std::min(links.size(), per_host * static_cast<size_t>(topology_.host_count()));
    const auto overridden = [&](const Link& l) { return excess_s(l) != 0; };
    latency_overrides_ = std::make_shared<const bool>(
        std::any_of(links.begin(), links.begin() + std::ptrdiff_t(per_host), overridden) ||
        std::any_of(links.begin() + std::ptrdiff_t(blocks), links.end(), overridden));
  }
  if (!*latency_overrides_) return;
  bool any = false;
  double worst_s = 0;
  for (const auto& ring : ring_.rings) {
    if (ring.size() < 2) continue;
    for (size_t i = 0; i < ring.size(); ++i) {
      with_route(ring[i], ring[(i + 1) % ring.size()], [&](const Route& r) {
        for (const Path& path : r.paths) {
          double path_excess_s = 0;
          for (LinkId id : path.links) path_excess_s += excess_s(topology_.link(id));
          worst_s = any ? std::max(worst_s, path_excess_s) : path_excess_s;
          any = true;
        }
      });
    }
  }
  hop_latency_excess_s_ = worst_s;
}

int CommGraph::channels() const {
  return options_.channels > 0 ? options_.channels : default_channels(ring_.throughput_Bps);
}

int CommGraph::nccl_comm_channels() const {
  return std::min(kMaxChannels, 2 * nccl_ring_graph_.channels);
}

namespace {

// a then b, as one route: every path of a continued by every path of b (shares multiply).
Route concatenate(const Route& a, Route b) {
  const std::vector<Path> tails = std::move(b.paths);
  Route r = std::move(b);
  r.src = a.src;
  r.paths.clear();
  for (const Path& pa : a.paths) {
    for (const Path& pb : tails) {
      Path p{{}, pa.share * pb.share};
      p.links.reserve(pa.links.size() + pb.links.size());
      p.links.insert(p.links.end(), pa.links.begin(), pa.links.end());
      p.links.insert(p.links.end(), pb.links.begin(), pb.links.end());
      r.paths.push_back(std::move(p));
    }
  }
  r.latency_s = a.latency_s + r.latency_s;  // r holds b's summary
  if (a.bw_Bps < r.bw_Bps) {
    r.bw_Bps = a.bw_Bps;
    r.bottleneck = a.bottleneck;
  }
  return r;
}

}  // namespace

// Between servers NCCL keeps traffic on its rail (PXN, NCCL 2.12+): the sender hands the data
// over NVLink to its server's GPU on the receiver's rail, whose NIC sends it to the receiver's
// NIC, so each NIC talks to its own rail's leaf (docs/model.md#rails).
CommGraph::PxnChoice CommGraph::pxn_choice(DeviceId src, DeviceId dst) const {
  using Kind = PxnChoice::Kind;
  // The ends' servers from their ids and their indices from host 0's devices (block_twin),
  // without reading the far GPUs themselves.
  const std::optional<int> s_host = server_of(topology_, src);
  const std::optional<int> d_host = server_of(topology_, dst);
  if (!s_host || !d_host || *s_host == *d_host) return {Kind::kSameServer};
  const Device& d = block_twin(topology_, dst);
  // Every server holds the same GPUs (the host-block layout), so gpus() is host-major.
  const size_t per_host = topology_.gpus().size() / static_cast<size_t>(topology_.host_count());
  if (d.index >= static_cast<int>(per_host)) return {Kind::kDirect};
  const DeviceId proxy = topology_.gpus()[static_cast<size_t>(*s_host) * per_host + d.index];
  if (proxy == src) return {Kind::kDirect};
  return {Kind::kViaProxy, proxy};
}

Route CommGraph::compute_route(DeviceId src, DeviceId dst, bool summarized) const {
  const auto between_servers = [&](DeviceId a, DeviceId b) {
    return summarized ? router_.route(a, b) : router_.route_paths(a, b);
  };
  const PxnChoice pxn = pxn_choice(src, dst);
  if (pxn.kind == PxnChoice::Kind::kSameServer) return router_.route(src, dst);
  if (pxn.kind == PxnChoice::Kind::kDirect) return between_servers(src, dst);
  Route hand_over = router_.route(src, pxn.proxy);
  if (hand_over.cls != PathClass::kNvlink || hand_over.transport != Transport::kP2p) {
    return between_servers(src, dst);
  }
  Route joined = concatenate(hand_over, between_servers(pxn.proxy, dst));
  joined.proxy = pxn.proxy;
  return joined;
}

void CommGraph::compute_route_paths(DeviceId src, DeviceId dst, Route* out) const {
  // compute_route's cases, written into `*out`: a pair routed straight between servers, and
  // one handed over to a proxy by NVLink (the server's host-0 hand-over, uncopied, then the
  // proxy's route in a per-thread scratch), as concatenate joins them.
  const PxnChoice pxn = pxn_choice(src, dst);
  if (pxn.kind == PxnChoice::Kind::kDirect) {
    router_.route_paths(src, dst, out);
    return;
  }
  if (pxn.kind == PxnChoice::Kind::kViaProxy) {
    const std::optional<Router::HostRoute> hand = router_.host_route(src, pxn.proxy);
    if (hand && hand->local->cls == PathClass::kNvlink && hand->local->transport == Transport::kP2p) {
      thread_local Route tail;
      router_.route_paths(pxn.proxy, dst, &tail);
      join_hand_over(*hand, tail, out);
      out->proxy = pxn.proxy;
      return;
    }
  }
  *out = compute_route(src, dst, false);
}

void CommGraph::join_hand_over(const Router::HostRoute& hand, const Route& tail, Route* out) {
  // concatenate(shifted hand-over, tail), field by field, reusing `*out`'s room.
  const Route& a = *hand.local;
  Route& r = *out;
  r.src = DeviceId{a.src.value + hand.device_offset};
  r.dst = tail.dst;
  r.cls = tail.cls;
  r.nvlinks = tail.nvlinks;
  r.transport = tail.transport;
  r.latency_s = a.latency_s + tail.latency_s;
  r.bw_Bps = tail.bw_Bps;
  r.bottleneck = tail.bottleneck;
  if (a.bw_Bps < tail.bw_Bps) {
    r.bw_Bps = a.bw_Bps;
    r.bottleneck = LinkId{a.bottleneck.value + hand.link_offset};
  }
  r.proxy = tail.proxy;
  r.paths.resize(a.paths.size() * tail.paths.size());
  size_t k = 0;
  for (const Path& pa : a.paths) {
    for (const Path& pb : tail.paths) {
      Path& p = r.paths[k++];
      p.share = pa.share * pb.share;
      p.links.clear();
      p.links.reserve(pa.links.size() + pb.links.size());
      for (LinkId id : pa.links) p.links.push_back(LinkId{id.value + hand.link_offset});
      p.links.insert(p.links.end(), pb.links.begin(), pb.links.end());
    }
  }
}

const Route& CommGraph::route_paths(int from_rank, int to_rank, Route* scratch) const {
  if (const Route* cached = cached_route(from_rank, to_rank)) return *cached;
  compute_route_paths(ranks_[size_t(from_rank)], ranks_[size_t(to_rank)], scratch);
  return *scratch;
}

const Route* CommGraph::cached_route(int from_rank, int to_rank) const {
  LINKSIM_CHECK(from_rank >= 0 && to_rank >= 0 && from_rank < static_cast<int>(ranks_.size()) &&
                    to_rank < static_cast<int>(ranks_.size()),
                "route between ranks of the communicator");
  if (!caches_from_[size_t(from_rank)].load(std::memory_order_acquire)) return nullptr;
  const std::lock_guard<std::mutex> lock(routes_mutex_);
  const auto index = route_index_.find(static_cast<uint32_t>(from_rank), static_cast<uint32_t>(to_rank));
  return index ? &routes_[*index] : nullptr;
}

std::optional<Router::HostRoute> CommGraph::uncapped_server_route(int from_rank,
                                                                 int to_rank) const {
  std::optional<Router::HostRoute> host =
      router_.host_route(ranks_[size_t(from_rank)], ranks_[size_t(to_rank)]);
  if (!host || host->local->transport == Transport::kShm) return std::nullopt;
  return host;
}

const Route& CommGraph::route(int from_rank, int to_rank) const {
  if (const Route* cached = cached_route(from_rank, to_rank)) return *cached;
  // Routing is the slow part: do it unlocked. Two threads may compute the same route; the
  // first to insert wins and both return that entry.
  Route computed = compute_route(ranks_[from_rank], ranks_[to_rank]);
  const auto from = static_cast<uint32_t>(from_rank);
  const auto to = static_cast<uint32_t>(to_rank);
  const std::lock_guard<std::mutex> lock(routes_mutex_);
  if (const auto index = route_index_.find(from, to)) return routes_[*index];
  route_index_.insert(from, to, static_cast<uint32_t>(routes_.size()));
  routes_.push_back(std::move(computed));
  caches_from_[from].store(true, std::memory_order_release);
  return routes_.back();
}

void CommGraph::group_nodes() {
  // By server (count_of's index): its node's index + 1, 0 before its first rank.
  std::vector<int> node_of_host(size_t(topology_.host_count()) + 1, 0);
  for (int r = 0; r < static_cast<int>(ranks_.size()); ++r) {
    int& node = count_of(node_of_host, server_of(topology_, ranks_[r]));
    if (node == 0) {
      nodes_.emplace_back();
      node = static_cast<int>(nodes_.size());
    }
    nodes_[size_t(node - 1)].push_back(r);
  }
  min_ranks_per_node_ = static_cast<int>(ranks_.size());
  for (const auto& node : nodes_) {
    max_ranks_per_node_ = std::max(max_ranks_per_node_, static_cast<int>(node.size()));
    min_ranks_per_node_ = std::min(min_ranks_per_node_, static_cast<int>(node.size()));
  }
}

void CommGraph::find_nvls() {
  nvls_.sm = min_sm_;
  // The ranks whose GPU's local id (within its server block) no earlier rank has: servers
  // are identical blocks, so a repeat has the same links and moves no minimum below (each
  // takes a strictly smaller value only).
  std::vector<DeviceId> distinct;
  std::vector<char> local_seen(topology_.devices_per_host(), 0);
  const uint64_t per_host = topology_.devices_per_host();
  for (DeviceId gpu : ranks_) {
    if (gpu.value < per_host * uint64_t(topology_.host_count())) {
      char& seen = local_seen[gpu.value % per_host];
      if (seen != 0) continue;
      seen = 1;
    }
    distinct.push_back(gpu);
  }
  for (DeviceId gpu : distinct) {
    for (LinkId id : topology_.out_links(gpu)) {
      const Link& link = topology_.link(id);
      if (link.family != LinkFamily::kNvlink) continue;
      const double lane = link.bw_Bps / std::max(1, int(link.lanes));
      if (nvlink_lane_Bps_ == 0 || lane < nvlink_lane_Bps_) {
        nvlink_lane_Bps_ = lane;
        nvlink_efficiency_ = link_efficiency(topology_, link, options_.calibration);
      }
    }
  }
  // NVLS from NCCL 2.17 (docs/model.md#nccl-version), on Hopper and later.
  if (!options_.nvls_enable || min_sm_ < 90 || ranks_.size() < 2 ||
      !options_.nccl_version.at_least(2, 17)) {
    return;
  }
  double min_bw = std::numeric_limits<double>::infinity();
  double lane_Bps = std::numeric_limits<double>::infinity();
  for (DeviceId gpu : distinct) {
    double bw = 0;
    for (LinkId id : topology_.out_links(gpu)) {
      const Link& link = topology_.link(id);
      const Device& peer = block_twin(topology_, link.to);
      if (link.family == LinkFamily::kNvlink && peer.kind == DeviceKind::kNvswitch &&
          peer.reduction) {
        bw += link.bw_Bps;
        lane_Bps = std::min(lane_Bps, link.bw_Bps / std::max(1, int(link.lanes)));
      }
    }
    min_bw = std::min(min_bw, bw);
  }
  if (min_bw <= 0) return;
  for (const auto& node : nodes_) {
    // NCCL sets NVLS up only with more than two GPUs behind the switches (ncclNvlsInit).
    if (node.size() < 3) return;
  }
  nvls_.available = true;
  nvls_.gpu_nvlink_Bps = min_bw;
  nvls_.lane_Bps = lane_Bps;
  nvls_.efficiency = nvlink_efficiency_;
}

void CommGraph::find_gdr_nics() {
  if (nodes_.size() < 2) return;  // no network route
  gdr_nics_.assign(topology_.devices().size(), false);
  // A GPU's NICs are in its server, and the leg to each is its server's copy of host 0's
  // (Router::host_route): a rank in a server block marks the NICs its local GPU reaches with
  // GPUDirect RDMA, found once per local GPU, offset to its server.
  const auto direct_nics = [&](DeviceId gpu, std::vector<DeviceId>* out) {
    for (DeviceId nic : router_.nics(gpu)) {
      if (router_.host_route(gpu, nic)->local->transport == Transport::kP2p) out->push_back(nic);
    }
  };
  const uint64_t per_host = topology_.devices_per_host();
  const uint64_t blocks = per_host * uint64_t(topology_.host_count());
  std::vector<std::vector<DeviceId>> of_local(per_host);  // host-0 ids
  std::vector<char> local_found(per_host, 0);
  std::vector<DeviceId> own;  // a rank outside the server blocks
  for (DeviceId gpu : ranks_) {
    if (gpu.value < blocks) {
      const uint64_t local = gpu.value % per_host;
      if (local_found[local] == 0) {
        direct_nics(DeviceId{uint32_t(local)}, &of_local[local]);
        local_found[local] = 1;
      }
      const uint32_t offset = uint32_t(gpu.value - local);
      for (DeviceId nic : of_local[local]) gdr_nics_[nic.value + offset] = true;
    } else {
      own.clear();
      direct_nics(gpu, &own);
      for (DeviceId nic : own) gdr_nics_[nic.value] = true;
    }
  }
}

void CommGraph::measure_network() {
  if (nodes_.size() < 2) return;
  std::set<uint32_t> nics;
  // Per NIC: the host-staged rate of the GPUs that reach it without GPUDirect RDMA (each
  // stages its own copy, docs/model.md#gdr-off); a NIC fed by PCIe peer-to-peer has none.
  std::map<uint32_t, double> staged_Bps;
  std::set<uint32_t> direct;
  for (int r : nodes_[0]) {
    const std::vector<DeviceId> gpu_nics = router_.nics(ranks_[r]);
    for (DeviceId nic : gpu_nics) {
      nics.insert(nic.value);
      const Route leg = router_.route(ranks_[r], nic);
      if (leg.transport == Transport::kShm) {
        // A GPU staging through several NICs splits its one staged copy among them.
        staged_Bps[nic.value] += host_staging_rate(topology_, leg, options_.calibration).rate_Bps /
                                 double(gpu_nics.size());
      } else {
        direct.insert(nic.value);
      }
    }
  }
  node_nic_count_ = static_cast<int>(nics.size());
  for (uint32_t nic : nics) {
    double nic_Bps = 0;
    for (LinkId id : topology_.out_links(DeviceId{nic})) {
      const Link& link = topology_.link(id);
      if (link.family != LinkFamily::kNetwork) continue;
      nic_Bps += capacities()[id.value];
      if (network_link_type_.empty()) network_link_type_ = topology_.link_type(link).str();
    }
    if (!direct.count(nic) && staged_Bps.count(nic)) nic_Bps = std::min(nic_Bps, staged_Bps[nic]);
    node_network_Bps_ += nic_Bps;
  }
}

}  // namespace linksim::detail
