// SPDX-License-Identifier: Apache-2.0
// Routes between devices as NCCL would use them, and nvidia-smi's path classes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "linksim/topology.hpp"

namespace linksim {

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
  PathClass cls = PathClass::kSelf;  ///< nvidia-smi class of the pair (NET across servers)
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
};

struct RouterOptions {
  /// NCCL_P2P_DISABLE=1: GPU pairs without NVLink use host memory (kShm), never PCIe P2P.
  bool p2p_disable = false;
  /// NCCL_P2P_LEVEL: PCIe P2P is used only when the pair's class is at most this (default
  /// PXB, NCCL's default). NVLink is always used where present.
  PathClass p2p_level = PathClass::kPxb;
};

/// Computes routes on a finalized Topology. Thread-compatible; cheap to copy the results.
/// REQUIRES: the topology outlives the router.
class Router {
 public:
  explicit Router(const Topology& topology, RouterOptions options = {});
  ~Router();
  Router(Router&&) noexcept;

  /// The route NCCL would use to move bytes from GPU `src` to GPU `dst` (also NIC endpoints).
  Route route(DeviceId src, DeviceId dst) const;
  /// The nvidia-smi class of a pair of GPUs/NICs in one server (NV# counts in `nvlinks`).
  PathClass classify(DeviceId a, DeviceId b, int* nvlinks = nullptr) const;
  /// The NIC a GPU uses for inter-server traffic (nearest by PCIe class, then index),
  /// or nullopt when its server has none.
  std::optional<DeviceId> nearest_nic(DeviceId gpu) const;
  /// The PCIe (or C2C) links from a GPU or NIC up through its PCIe switches to its CPU, in
  /// order; empty when it reaches no CPU that way.
  std::vector<LinkId> cpu_path(DeviceId device) const;

  const Topology& topology() const { return topology_; }
  const RouterOptions& options() const { return options_; }

 private:
  struct Impl;
  const Topology& topology_;
  RouterOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace linksim
