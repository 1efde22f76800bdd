// SPDX-License-Identifier: Apache-2.0
// Routes between devices as NCCL would use them, and nvidia-smi's path classes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/catalog.hpp"
#include "linksim/topology.hpp"

namespace linksim {
namespace routing_detail {
class FabricRoutes;
}  // namespace routing_detail

/// nvidia-smi's legend, best to worst, plus NET for paths between servers.
enum class PathClass {
  kSelf,    ///< X
  kNvlink,  ///< NV#: a bonded set of # NVLinks (direct or through NVSwitch)
  kPix,     ///< at most one PCIe bridge
  kPxb,     ///< several PCIe bridges, no host bridge
  kPhb,     ///< through a PCIe host bridge (the CPU)
  kNode,    ///< between PCIe host bridges within one NUMA node
  kSys,     ///< across the inter-socket SMP link (UPI / xGMI)
  kNet,     ///< across the network (different servers)
};
std::string_view to_string(PathClass cls);  ///< "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS", "NET"

/// How bytes move between two GPUs (NCCL's transports).
enum class Transport {
  kP2p,   ///< direct GPU-to-GPU: NVLink, or PCIe peer-to-peer
  kShm,   ///< staged through host memory: both PCIe legs (and the SMP link) carry the data
  kNet,   ///< through NICs and the fabric (GPUDirect RDMA when the NIC is PIX/PXB to the GPU)
};
std::string_view to_string(Transport transport);

/// One way through the graph; the traffic of a route is split over its paths by `share`.
struct Path {
  std::vector<LinkId> links;
  double share = 1.0;  ///< fraction of the route's bytes on this path; shares sum to 1
};

/// A GPU-to-GPU (or GPU/NIC) route and its summary.
struct Route {
  DeviceId src;
  DeviceId dst;
  /// nvidia-smi class of the pair (NET across servers); for a host-staged NVLink pair, the
  /// class of the path through the CPU NCCL diverts it to (at least PHB: paths.cc addInterStep).
  PathClass cls = PathClass::kSelf;
  int nvlinks = 0;                   ///< for NV#: the number of bonded NVLinks
  Transport transport = Transport::kP2p;
  std::vector<Path> paths;           ///< parallel paths (NVSwitch planes); one path otherwise
  double bw_Bps = 0;                 ///< bottleneck: min over paths of (min link bw / share)
  double latency_s = 0;              ///< sum of link latencies along the longest path
  LinkId bottleneck;                 ///< the link that sets bw_Bps
  /// PXN (between servers): the GPU of the source's server that takes the data over NVLink
  /// and sends it through its own NIC; nullopt when the source's own NIC sends.
  std::optional<DeviceId> proxy;
  /// "NV18", "PIX", "SYS", "NET"...: the nvidia-smi cell text for this pair.
  std::string label() const;
  /// Makes this a route between servers from `from` to `to` with nothing yet summarized: class
  /// NET, the network transport, no NVLinks, zero rate and latency, no bottleneck or proxy.
  /// `paths` keeps its elements (and their storage) for the caller to fill.
  void begin_network(DeviceId from, DeviceId to);
};

/// NCCL_IB_HCA: the NICs NCCL may use (NVIDIA/nccl src/transport/net_ib.cc, ncclIbInit, with
/// parseStringList / matchIfList of src/misc/utils.cc). docs/routing.md#ib-hca.
struct IbHcaFilter {
  struct Entry {
    std::string prefix;       ///< a NIC name, or its beginning ("mlx5" matches mlx5_0, mlx5_1)
    std::optional<int> port;  ///< ":port"; nullopt = any port
  };
  std::vector<Entry> entries;  ///< empty = every NIC
  bool exclude = false;        ///< '^': NCCL may use every NIC but the listed ones
  bool exact = false;          ///< '=': names match whole, not as prefixes
  /// Whether NCCL may use port `port` of the NIC named `name` (nvidia-smi's NIC legend name,
  /// "mlx5_0"; linksim's NICs are one port each, port 1).
  bool allows(std::string_view name, int port = 1) const;
};
/// Parses NCCL_IB_HCA's syntax: [^][=]name[:port][,name[:port]]... ("mlx5_0:1,mlx5_1",
/// "^=mlx5_4"). Throws ConfigError "expected ..., got ..." for an empty name or a bad port.
IbHcaFilter parse_ib_hca(std::string_view text);

/// NCCL_P2P_LEVEL's names (NVIDIA/nccl src/graph/paths.cc, ncclGetLevel): LOC (kSelf: no P2P
/// at all), NVL, PIX, PXB, PHB, SYS, case-insensitive, and the old numbers 0-5 (LOC, PIX, PXB,
/// PHB, SYS, SYS). nullopt for anything else.
std::optional<PathClass> parse_p2p_level(std::string_view text);
/// NCCL's name of a P2P level: "LOC", "NVL", "PIX", "PXB", "PHB", "SYS" (NODE counts as PHB).
std::string_view p2p_level_name(PathClass level);
/// Whether a GPU pair of class `cls` may use P2P at NCCL_P2P_LEVEL `level`: NCCL compares its
/// path type, in which nvidia-smi's NODE is PHB.
bool within_p2p_level(PathClass cls, PathClass level);

/// The first NCCL release (NCCL_VERSION_CODE 2.23.0) whose default P2P level is PXB on every
/// CPU but AMD hosts of at most two GPUs (docs/routing.md#p2p-level).
inline constexpr int kNcclPxbDefaultVersion = 22300;

/// NCCL's default P2P level on a server of `platform` whose communicator has `gpus` GPUs
/// there (ncclTopoCheckP2p, src/graph/paths.cc). NCCL 2.23 and later: PXB, but SYS on an AMD
/// x86 host with at most two GPUs; before 2.23: SYS, but PXB on Intel, Arm and Zhaoxin hosts.
/// `nccl_version` is NCCL_VERSION_CODE (2.18.3 = 21803); nullopt = a recent release.
PathClass default_p2p_level(const HostPlatform& platform, int gpus,
                            std::optional<int> nccl_version = std::nullopt);

struct RouterOptions {
  /// NCCL_P2P_DISABLE=1: NCCL's P2P level LOC. No GPU pair uses P2P, NVLink pairs included:
  /// NCCL diverts every GPU-to-GPU path through host memory (kShm).
  bool p2p_disable = false;
  /// NCCL_P2P_LEVEL: a GPU pair uses P2P (NVLink, or PCIe peer-to-peer) only when its class
  /// is within this level (within_p2p_level); kSelf = LOC. nullopt = NCCL's default for the
  /// server's host platform (default_p2p_level).
  std::optional<PathClass> p2p_level;
  /// The GPUs NCCL sees in one server (the communicator's there), for NCCL's AMD rule;
  /// 0 = every GPU of the server.
  int gpus_per_server = 0;
  /// NCCL_VERSION_CODE of the NCCL release whose rules apply; nullopt = a recent release.
  std::optional<int> nccl_version;
  /// NCCL_IB_HCA: a GPU's NIC is the nearest of the NICs the filter allows.
  IbHcaFilter ib_hca;
  /// NCCL_NET_GDR_LEVEL: a GPU/NIC leg is PCIe peer-to-peer (GPUDirect RDMA) only when its
  /// class is within this level, else it is staged through the GPU's CPU (kShm); kSelf (LOC) =
  /// never. nullopt = NCCL's default, PXB (ncclTopoCheckGdr, src/graph/paths.cc).
  std::optional<PathClass> net_gdr_level;
};

/// Computes routes on a finalized Topology. Thread-compatible; cheap to copy the results.
/// REQUIRES: the topology outlives the router.
class Router {
 public:
  explicit Router(const Topology& topology, RouterOptions options = {});
  /// With `fabric_from`'s tables of the fabric between servers (which depend on the topology
  /// alone) shared instead of built again; `fabric_from` must route the same topology.
  Router(const Topology& topology, RouterOptions options, const Router& fabric_from);
  ~Router();
  Router(Router&&) noexcept;

  /// The route NCCL would use to move bytes from GPU `src` to GPU `dst` (also NIC endpoints).
  Route route(DeviceId src, DeviceId dst) const;
  /// route(src, dst) without its summary when the ends are in different servers: the same
  /// paths, class and transport, but bw_Bps, latency_s and bottleneck left at their
  /// defaults. For callers that read the links alone (a flow lowering of many routes).
  Route route_paths(DeviceId src, DeviceId dst) const;
  /// route_paths(src, dst) written into `*out`, reusing its vectors' room: a lowering that
  /// routes many pairs one after another allocates nothing per route once `*out` has grown.
  /// Every field of `*out` is overwritten. Refuses what route() refuses.
  void route_paths(DeviceId src, DeviceId dst, Route* out) const;
  /// For NICs `nic_s` and `nic_d` of two different servers, each its own only NIC
  /// (nics(nic) == {nic}, as for every NIC NCCL_IB_HCA allows): appends to `*links` the links
  /// of the one path route_paths(nic_s, nic_d) answers when the fabric joins the two NICs
  /// directly, and returns true; returns false, `*links` as it was, when it does not
  /// (route_paths then leaves through another NIC of the rail, or refuses the pair). No
  /// allocation beyond `*links`' own growth.
  bool fabric_leg(DeviceId nic_s, DeviceId nic_d, std::vector<LinkId>* links) const;
  /// A route inside one server as the host-0 route every server repeats: route(src, dst) is
  /// `local` with `device_offset` added to its device ids and `link_offset` to its link ids.
  struct HostRoute {
    const Route* local = nullptr;
    uint32_t device_offset = 0;
    uint32_t link_offset = 0;
  };
  /// For `src` and `dst` in one server, its host-0 route (without copying it); nullopt when
  /// they are in different servers. Refuses what route() refuses.
  std::optional<HostRoute> host_route(DeviceId src, DeviceId dst) const;
  /// The nvidia-smi class of a pair of GPUs/NICs in one server (NV# counts in `nvlinks`).
  PathClass classify(DeviceId a, DeviceId b, int* nvlinks = nullptr) const;
  /// The NIC a GPU uses for inter-server traffic (nearest by PCIe class, then index),
  /// or nullopt when its server has none.
  std::optional<DeviceId> nearest_nic(DeviceId gpu) const;
  /// Every NIC a GPU sends through between servers, nearest_nic first: more than one when its
  /// server has at least twice as many equally near NICs as GPUs sharing them (a GPU with a
  /// dual-port card of its own); empty when its server has none. docs/routing.md#nics.
  std::vector<DeviceId> nics(DeviceId gpu) const;
  /// The PCIe (or C2C) links from a GPU or NIC up through its PCIe switches to its CPU, in
  /// order; empty when it reaches no CPU that way.
  std::vector<LinkId> cpu_path(DeviceId device) const;

  const Topology& topology() const { return topology_; }
  const RouterOptions& options() const { return options_; }
  /// The P2P level in force in a server: LOC (kSelf) under p2p_disable, else the options'
  /// p2p_level, else NCCL's default for the server's host platform.
  PathClass p2p_level() const;

 private:
  /// Builds the fabric's tables unless `fabric` holds them.
  Router(const Topology& topology, RouterOptions options,
         std::shared_ptr<const routing_detail::FabricRoutes> fabric);
  struct Impl;
  const Topology& topology_;
  RouterOptions options_;
  void route_into(DeviceId src, DeviceId dst, bool summarized, Route* out) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace linksim
