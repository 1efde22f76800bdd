// SPDX-License-Identifier: Apache-2.0
// A communicator's structure, built once: ranks grouped by server, routes between ranks,
// effective link capacities, the rings NCCL would build, and NVLS availability.
#pragma once

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collectives/link_capacities.hpp"
#include "collectives/link_efficiency.hpp"
#include "collectives/model_params.hpp"
#include "collectives/route_index.hpp"
#include "collectives/searched_graph.hpp"
#include "linksim/collectives.hpp"
#include "linksim/routing.hpp"

namespace linksim::detail {

class RouteCaps;
class RouteShapes;

/// Rings over the ranks (indices into CommGraph::ranks): each ring is a cyclic order; ring r
/// carries `weights[r]` of the data (weights sum to 1). A pipelined ring moves every rank's
/// bytes at the same rate, so the plan's throughput is one number.
struct RingPlan {
  std::vector<std::vector<int>> rings;
  std::vector<double> weights;
  double throughput_Bps = 0;  ///< bytes/s each rank sends (its busbw in nccl-tests' terms)
  /// The same for one server's own ring (equal to throughput_Bps on a single server): the
  /// rate of the intra-server chains of hierarchical algorithms.
  double intra_throughput_Bps = 0;
  /// The rate of one server's tree chain (its ring order, open), bytes/s of S: every hop
  /// carries S up and S down, so a GPU whose parent and child share its links (an NVSwitch)
  /// sends 2 S through them, one on a direct mesh S on each (docs/model.md#tree-chain).
  /// Across servers only (the tree's domain); 0 on one server.
  double tree_chain_throughput_Bps = 0;
  Bottleneck tree_chain_bottleneck;  ///< what limits the chain
  Bottleneck bottleneck;      ///< what limits it
  HopClass intra_class = HopClass::kNvlink;  ///< slowest intra-server hop kind (latency table)
  bool uses_p2p_only = true;  ///< no host-staged hop (LL128 eligibility)
};

/// Intra-server NVLink SHARP: every rank's GPU reaches reduction-capable NVSwitches.
struct NvlsInfo {
  bool available = false;
  double gpu_nvlink_Bps = 0;  ///< min over ranks of the raw NVLink bandwidth into the switches
  double lane_Bps = 0;        ///< raw rate of one of those NVLinks, bytes/s
  double efficiency = 0;      ///< their realized efficiency (link_efficiency)
  int sm = 0;
};

class CommGraph {
 public:
  CommGraph(const Topology& topology, std::vector<DeviceId> ranks, const CommOptions& options);
  /// As above, sharing `tables_from`'s tables that depend on the topology alone (effective
  /// link capacities, the fabric's routing tables) instead of building them again.
  /// REQUIRES: `tables_from` is a graph of the same topology, and outlives nothing it shares
  /// (the tables are reference-counted).
  CommGraph(const Topology& topology, std::vector<DeviceId> ranks, const CommOptions& options,
            const CommGraph& tables_from);

  const Topology& topology() const { return topology_; }
  const Router& router() const { return router_; }
  const std::vector<DeviceId>& ranks() const { return ranks_; }
  const CommOptions& options() const { return options_; }
  /// Rank indices per server, in rank order; servers in order of first appearance.
  const std::vector<std::vector<int>>& nodes() const { return nodes_; }
  int node_count() const { return static_cast<int>(nodes_.size()); }
  int max_ranks_per_node() const { return max_ranks_per_node_; }
  /// The ranks of the emptiest server (kept: estimates ask for it per call).
  int min_ranks_per_node() const { return min_ranks_per_node_; }
  int min_sm() const { return min_sm_; }
  /// Effective link capacities by link id, bytes/s (effective_link_capacities), held once
  /// per server block; LinkCapacities::to_vector gives one array.
  const LinkCapacities& capacities() const { return *capacity_; }
  /// network_legs_by_link_id(topology()) (route_caps.hpp): whether route caps between
  /// servers may be decided per route shape. Found once, shared by sibling graphs.
  bool network_legs_by_link_id() const { return *network_legs_by_link_id_; }

  /// The route between two ranks, computed on first use and cached. Thread-safe: the cache
  /// is guarded by a mutex, and a returned reference stays valid for the graph's lifetime.
  const Route& route(int from_rank, int to_rank) const;
  /// Calls `visit(const Route&)` with the route between two ranks: the cached one when
  /// route() has computed it, else one computed for this call and not kept. For passes that
  /// touch each pair once (a ring's hops, a tree's edges): on a cluster their routes would
  /// otherwise be most of the communicator's memory. Thread-safe as route().
  template <class Visit>
  void with_route(int from_rank, int to_rank, Visit&& visit) const {
    if (const Route* cached = cached_route(from_rank, to_rank)) {
      visit(*cached);
    } else {
      visit(compute_route(ranks_[size_t(from_rank)], ranks_[size_t(to_rank)]));
    }
  }
  /// As with_route, for a visitor that reads the route's paths, class and transport alone: a
  /// route computed for the call between servers comes without its summary (bw_Bps,
  /// latency_s, bottleneck; Router::route_paths), which a lowering of many routes skips.
  template <class Visit>
  void with_route_paths(int from_rank, int to_rank, Visit&& visit) const {
    if (const Route* cached = cached_route(from_rank, to_rank)) {
      visit(*cached);
    } else {
      visit(compute_route(ranks_[size_t(from_rank)], ranks_[size_t(to_rank)], false));
    }
  }
  /// The route between two ranks for a visitor as with_route_paths's: the cached one when
  /// route() has computed it, else one written into `*scratch` (its vectors' room reused, so
  /// a lowering routing many pairs in turn allocates nothing per route). The reference is
  /// valid until `*scratch` changes. Thread-safe as route() for distinct scratches.
  const Route& route_paths(int from_rank, int to_rank, Route* scratch) const;
  /// For ranks of one server whose route carries no rate cap, the host-0 route their server
  /// repeats (Router::host_route: its links plus `link_offset`), to be loaded as it is; nullopt
  /// for ranks of different servers and for a host-staged copy, whose cap (route_rate_cap)
  /// reads its own server's CPU. Inside a server every other route is P2P, and route_rate_cap
  /// caps only staged legs. The ring plan and the flow lowering both ask it.
  std::optional<Router::HostRoute> uncapped_server_route(int from_rank, int to_rank) const;
  const RingPlan& ring() const { return ring_; }
  /// Per link the rings cross: the fraction of each rank's bytes it carries (all rings with
  /// their weights), in first-touch order; empty for a single rank. Computed on first use
  /// and kept (a flow run never asks; at 16,384 servers it is 28 MiB). Thread-safe.
  const std::vector<std::pair<LinkId, double>>& ring_link_loads() const;
  /// The ring graph NCCL's search finds here (search_nccl_ring_graph), kept: every estimate
  /// of a ring or tree asks for it.
  const SearchedGraph& nccl_ring_graph() const { return nccl_ring_graph_; }
  const NvlsInfo& nvls() const { return nvls_; }
  /// Effective NIC bandwidth per server: the distinct NICs its ranks use, summed (bytes/s).
  double node_network_Bps() const { return node_network_Bps_; }
  /// The distinct NICs the ranks of one server use (those node_network_Bps() sums).
  int node_nic_count() const { return node_nic_count_; }
  /// The catalog link type of the network link leaving the first of those NICs ("ib_ndr",
  /// "roce_100"); empty on one server. Names the network kind (network_kind, model_params.hpp).
  const std::string& network_link_type() const { return network_link_type_; }
  /// By device id: the NICs some rank reaches with GPUDirect RDMA (its nearest NIC within
  /// NCCL_NET_GDR_LEVEL), whose staged legs are not capped (route_rate_cap, link_efficiency.hpp).
  const std::vector<bool>& gdr_nics() const { return gdr_nics_; }
  int channels() const;
  /// The raw per-direction rate of one NVLink lane of the ranks' GPUs (a link's rate over
  /// the links bonded), bytes/s; 0 without NVLink.
  double nvlink_lane_Bps() const { return nvlink_lane_Bps_; }
  /// The realized efficiency of that lane (link_efficiency; 0 without NVLink).
  double nvlink_efficiency() const { return nvlink_efficiency_; }
  /// What one channel (one thread block) copies over NVLink: a lane at its realized rate,
  /// bytes/s (docs/model.md#p2p: 20.1 GB/s on H100, calibration 57); 0 without NVLink.
  double nvlink_channel_Bps() const { return nvlink_lane_Bps_ * nvlink_efficiency_; }
  /// The channels NCCL's communicator opens: its ring graph's (nccl_ring_graph), doubled by
  /// ncclTopoPostset (src/graph/connect.cc), at most MAXCHANNELS.
  int nccl_comm_channels() const;
  /// How much the slowest ring hop's link latencies exceed their catalog types' latencies
  /// (a topology file's `latency:` overrides), seconds; 0 without overrides, negative when
  /// an override is faster. NCCL's latency tables stand for hops at the catalog latency, so
  /// every latency step of an algorithm adds this (docs/model.md#latency-overrides).
  double hop_latency_excess_s() const { return hop_latency_excess_s_; }

 private:
  void build();  ///< the constructors' common part, after the members are initialized
  void group_nodes();
  void find_gdr_nics();
  void plan_rings();
  /// One server's rings and the rate each carries (bytes/s per rank), and what limits them.
  struct ServerRings {
    std::vector<std::vector<int>> rings;
    std::vector<double> rates;
    Bottleneck bottleneck;
    bool link_bound = true;  ///< false when a route cap (host staging) limits
  };
  ServerRings pack_rings_greedily(const std::vector<int>& first_ring) const;
  /// Channels at one lower common rate that carry more in total than `greedy`, when a
  /// search finds them (docs/model.md#rings); nullopt otherwise.
  std::optional<ServerRings> pack_equal_speed_channels(const ServerRings& greedy) const;
  void find_nvls();
  void measure_network();
  void measure_hop_latency();
  /// How a pair is routed under PXN: inside one server; straight between servers (the
  /// receiver is not a GPU of the host block, or the sender is on the receiver's rail); or
  /// handed over to `proxy`, the sender's server's GPU on the receiver's rail.
  struct PxnChoice {
    enum class Kind { kSameServer, kDirect, kViaProxy } kind;
    DeviceId proxy{};
  };
  PxnChoice pxn_choice(DeviceId src, DeviceId dst) const;
  /// The route between two devices; `summarized` false: Router::route_paths's contract.
  Route compute_route(DeviceId src, DeviceId dst, bool summarized = true) const;
  /// compute_route(src, dst, false) written into `*out`, reusing its room.
  void compute_route_paths(DeviceId src, DeviceId dst, Route* out) const;
  /// The hand-over `hand` (a host-0 route and its server's offsets) followed by `tail`, as
  /// compute_route's concatenation of the two, written into `*out` (its room reused).
  static void join_hand_over(const Router::HostRoute& hand, const Route& tail, Route* out);
  /// The cached route between two ranks, or nullptr. REQUIRES: ranks of the communicator.
  const Route* cached_route(int from_rank, int to_rank) const;
  /// Adds every hop of a cyclic ring to `set`, each carrying `weight` (route caps included).
  void add_ring_streams(StreamSet& set, const std::vector<int>& ring, double weight) const;
  /// RingPlan's tree chain rate and bottleneck for one server's `order`.
  void plan_tree_chain(const std::vector<int>& order);
  /// The links a ring pass loads when the servers after the second are its twins
  /// (twin_rings_limit): those of the first two nodes' server blocks and the fabric's.
  struct TwinLinks {
    uint32_t links_per_host = 0;
    uint32_t block_links = 0;  ///< the first link id after the server blocks
    uint32_t first_host = 0;
    uint32_t second_host = 0;
    bool loads_host(uint32_t host) const { return host == first_host || host == second_host; }
    bool operator()(LinkId id) const {
      return id.value >= block_links || loads_host(id.value / links_per_host);
    }
  };
  /// add_ring_streams's hops with the pass's `caps` and `shapes`; with `twins`, loading only
  /// its links and false (`set` then partly loaded) at a hop that breaks the twins' premise.
  bool add_ring_hops(StreamSet& set, const std::vector<int>& ring, double weight, RouteCaps& caps,
                     RouteShapes& shapes, const TwinLinks* twins) const;
  /// StreamSet::limit of every ring with its weight (plan_rings's multi-server case), found
  /// from the links of TwinLinks alone when every server orders the same local GPUs the same
  /// way; nullopt when that premise fails (the caller then loads every link).
  std::optional<StreamSet::Limit> twin_rings_limit() const;

  const Topology& topology_;
  std::vector<DeviceId> ranks_;
  CommOptions options_;
  Router router_;
  std::shared_ptr<const LinkCapacities> capacity_;  ///< shared by sibling graphs
  /// Whether some link's latency differs from its catalog type's (a `latency:` override): the
  /// topology's alone, found once and shared by sibling graphs (measure_hop_latency).
  std::shared_ptr<const bool> latency_overrides_;
  std::shared_ptr<const bool> network_legs_by_link_id_;  ///< shared by sibling graphs
  std::vector<std::vector<int>> nodes_;
  mutable std::mutex routes_mutex_;  // guards routes_ and route_index_ (queries run concurrently)
  /// The routes computed so far, in the order computed; a deque never moves its elements, so
  /// returned references stay valid.
  mutable std::deque<Route> routes_;
  /// By rank pair: the index in routes_.
  mutable RouteIndex route_index_;
  /// By source rank: whether route() has cached a route from it, set under routes_mutex_
  /// before the route is published. cached_route reads it without the lock, so the pairs
  /// of a rank that never cached one (most tree edges and ring hops) take no lock; a reader
  /// racing the first insertion may miss it and computes the route itself (with_route's
  /// contract allows it).
  std::unique_ptr<std::atomic<bool>[]> caches_from_;
  RingPlan ring_;
  mutable std::once_flag ring_link_loads_once_;
  mutable std::vector<std::pair<LinkId, double>> ring_link_loads_;  ///< ring_link_loads()
  SearchedGraph nccl_ring_graph_;
  NvlsInfo nvls_;
  double node_network_Bps_ = 0;
  std::vector<bool> gdr_nics_;
  double nvlink_lane_Bps_ = 0;
  double nvlink_efficiency_ = 0;
  int node_nic_count_ = 0;
  std::string network_link_type_;
  double hop_latency_excess_s_ = 0;
  int min_sm_ = 0;
  int max_ranks_per_node_ = 0;
  int min_ranks_per_node_ = 0;
};

}  // namespace linksim::detail
