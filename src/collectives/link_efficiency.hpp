// SPDX-License-Identifier: Apache-2.0
// What GPU traffic achieves on each link (effective capacity) and on each route (caps such as
// host staging), the inputs of both the analytic and the flow mode.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collectives/link_capacities.hpp"
#include "linksim/collectives.hpp"
#include "linksim/routing.hpp"
#include "linksim/topology.hpp"

namespace linksim::detail {

/// The device a server block repeats at `id`'s place: host 0's device of the same local id
/// when `id` is in a server block (the layout contract of linksim/topology.hpp; faults keep
/// it), else `id`'s own. Its kind, index, model and reduction are `id`'s; its host and clock
/// are host 0's. Host 0's devices stay in cache where a cluster's far devices miss it.
inline Device block_twin(const Topology& topology, DeviceId id) {
  const uint64_t per_host = topology.devices_per_host();
  if (id.value < per_host * uint64_t(topology.host_count())) {
    return topology.device(DeviceId{uint32_t(id.value % per_host)});
  }
  return topology.device(id);
}

/// The server of `id`: from its id alone when it is in a server block (the layout contract of
/// linksim/topology.hpp), without reading the device, else the device's own host (nullopt
/// for a fabric device).
inline std::optional<int> server_of(const Topology& topology, DeviceId id) {
  const uint64_t per_host = topology.devices_per_host();
  if (id.value < per_host * uint64_t(topology.host_count())) return int(id.value / per_host);
  return topology.device(id).host;
}

/// The fraction of `link`'s raw rate GPU traffic achieves: NVLink by architecture, PCIe,
/// network, C2C and SMP by family (docs/model.md#link-efficiency).
double link_efficiency(const Topology& topology, const Link& link,
                       const ModelCalibration& calibration);

/// Effective per-direction capacity of every link for collective traffic, bytes/s:
/// raw rate x the family's efficiency (docs/model.md#link-efficiency). Indexed by LinkId;
/// held once per server block (LinkCapacities).
LinkCapacities effective_link_capacities(const Topology& topology,
                                         const ModelCalibration& calibration);

/// effective_link_capacities as one array by LinkId.
std::vector<double> effective_capacities(const Topology& topology,
                                         const ModelCalibration& calibration);

/// How fast a host-staged (SHM) route copies, and why (docs/model.md#shm).
/// Each term is +infinity where it does not apply.
struct HostStagingRate {
  DeviceId cpu;                   ///< the CPU whose memory stages the copy (the receiver's)
  bool crosses_socket = false;    ///< the path crosses the socket link
  bool overridden = false;        ///< the topology gives the CPU its own measured rate
  double copy_Bps = 0;            ///< B_copy: kShmCopyFraction x NCCL's PCIe bw of the path
  double memory_Bps = 0;          ///< B_mem: the CPU's memory bw / (2 x GPUs staging below it)
  int staging_gpus = 0;           ///< the GPUs below that CPU that stage through its memory
  double socket_Bps = 0;          ///< B_socket: NCCL's inter-CPU bw, across the sockets only
  double measured_Bps = 0;        ///< B_measured: the platform's (or topology's) measured rate
  double rate_Bps = 0;            ///< B_shm = min of the four, x the calibration factor
  /// Which term bounds rate_Bps: "B_copy", "B_mem", "B_socket" or "B_measured".
  const char* bound = "B_copy";
};
/// One GPU/NIC leg of a network route staged through host memory.
struct StagedLeg {
  std::vector<LinkId> links;
  DeviceId nic;  ///< the NIC at the leg's network end
};

/// By device id: the NICs some GPU of the communicator reaches with GPUDirect RDMA. NCCL's
/// search puts a ring's network hops on such a GPU (search.cc tries the PIX/PXB path types
/// first) and PXN hands a far GPU's sends to it over NVLink (paths.cc), so a staged leg to
/// such a NIC is not what NCCL runs; linksim's rings do not make that choice, so the leg is
/// left uncapped (docs/model.md#gdr-off). nullptr = cap every staged leg.
using GdrNics = std::vector<bool>;

/// A network route's GPU/NIC legs that are staged through host memory (GPUDirect RDMA off:
/// beyond NCCL_NET_GDR_LEVEL, or NCCL's socket transport): those of its legs, before its first
/// and after its last network link, that pass through a CPU, but for legs whose NIC
/// `gdr_nics` holds (docs/model.md#gdr-off). Empty for any other route.
std::vector<StagedLeg> staged_network_legs(const Topology& topology, const Route& route,
                                           const GdrNics* gdr_nics = nullptr);

/// REQUIRES: route.transport == Transport::kShm, or a kNet route with a staged leg
/// (staged_network_legs with `gdr_nics`): then the slowest of its staged legs.
HostStagingRate host_staging_rate(const Topology& topology, const Route& route,
                                  const ModelCalibration& calibration,
                                  const GdrNics* gdr_nics = nullptr);

/// A bound on one route's rate beyond its links' capacities (host-staged copies, and network
/// legs staged without GPUDirect RDMA), bytes/s; +infinity when none. `why`, when given,
/// receives the mechanism (kHostStaging).
double route_rate_cap(const Topology& topology, const Route& route,
                      const ModelCalibration& calibration, Bottleneck* why = nullptr,
                      const GdrNics* gdr_nics = nullptr);

/// The bottleneck route_rate_cap names for a host-staged `route`: kHostStaging from the
/// route's source to its destination.
Bottleneck host_staging_bottleneck(const Route& route, bool crosses_socket);

/// The bottleneck "link `id` is saturated", with the link's family.
Bottleneck link_bottleneck(const Topology& topology, LinkId id, bool name_family = true);

/// A set of concurrent streams moving data in fixed proportions (a pipelined ring: every
/// stream carries weight x T bytes/s). Throughput() finds the largest T the links allow.
class StreamSet {
 public:
  /// Over per-link capacities by link id, bytes/s, which outlive the set.
  explicit StreamSet(const std::vector<double>& capacity_Bps)
      : dense_(&capacity_Bps), links_(capacity_Bps.size()) {}
  explicit StreamSet(const LinkCapacities& capacity_Bps)
      : by_block_(&capacity_Bps), links_(capacity_Bps.size()) {}
  StreamSet(const StreamSet&) = delete;
  StreamSet& operator=(const StreamSet&) = delete;
  StreamSet(StreamSet&&) = default;
  /// Hands its per-link array back to the thread's spares, only its loaded links cleared.
  ~StreamSet();
  /// Adds a stream along `route` carrying fraction `weight` of the per-rank traffic; its
  /// links are the route's with `link_offset` added (a server's copy of a host-0 route,
  /// Router::host_route).
  void add(const Route& route, double weight, double rate_cap_Bps, const Bottleneck& cap_why,
           uint32_t link_offset = 0);
  /// As add, loading only the route's links `keep(LinkId)` accepts; the cap counts in full.
  template <class Keep>
  void add_kept(const Route& route, double weight, double rate_cap_Bps, const Bottleneck& cap_why,
                Keep&& keep) {
    for (const Path& path : route.paths) {
      for (LinkId id : path.links) {
        if (keep(id)) load(id.value, weight * path.share);
      }
    }
    note_cap(weight, rate_cap_Bps, cap_why);
  }

  struct Limit {
    double throughput_Bps = 0;  ///< largest T: per-rank bytes/s of the pattern
    bool by_link = true;        ///< limited by a link (else by a route cap)
    LinkId link;                ///< the saturated link when by_link
    Bottleneck why;             ///< the route cap's mechanism when !by_link
    /// The saturated link or the route cap's mechanism, as a Bottleneck.
    Bottleneck bottleneck(const Topology& topology, bool name_family = true) const {
      return by_link ? link_bottleneck(topology, link, name_family) : why;
    }
  };
  Limit limit() const;

  /// Per link with load: the fraction of the per-rank throughput T it carries (sum of
  /// weight x path share), in first-touch order. Link bytes = load x per-rank bytes.
  std::vector<std::pair<LinkId, double>> loads() const;

 private:
  double capacity_Bps(uint32_t id) const { return dense_ != nullptr ? (*dense_)[id] : (*by_block_)[id]; }
  /// Adds `amount` (a stream's weight x path share) to link `id`'s load.
  void load(uint32_t id, double amount) {
    if (id >= load_.size()) grow_to(id);
    if (load_[id] == 0.0) touched_.push_back(id);
    load_[id] += amount;
  }
  /// Sizes load_ to hold link `id` (from the thread's spares when it is empty).
  void grow_to(uint32_t id);
  /// Keeps the tightest stream cap: `rate_cap_Bps` / `weight` when finite.
  void note_cap(double weight, double rate_cap_Bps, const Bottleneck& cap_why);

  const std::vector<double>* dense_ = nullptr;    ///< the capacities: one of these two
  const LinkCapacities* by_block_ = nullptr;
  size_t links_ = 0;                              ///< the links they cover
  /// per link: sum of weight x share; an array over the first links while only those are
  /// loaded, else over every link, from the thread's spares
  std::vector<double> load_;
  std::vector<uint32_t> touched_;     // links with load, in first-touch order (determinism)
  double cap_limit_ = 0;              // min over streams of cap / weight
  Bottleneck cap_why_;
  bool has_cap_ = false;
};

}  // namespace linksim::detail
