// SPDX-License-Identifier: Apache-2.0
// Collective operations on a set of GPUs: NCCL's algorithms and protocols, predicted either in
// closed form (analytic) or by lowering them to flows for the flow-level simulator (flow).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/model_calibration.hpp"
#include "linksim/nccl_lists.hpp"
#include "linksim/nccl_version.hpp"
#include "linksim/routing.hpp"
#include "linksim/topology.hpp"

namespace linksim {

enum class CollectiveOp { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAllToAll, kSendRecv };
/// NCCL's algorithms; kDirect is the peer-to-peer pattern of AllToAll and SendRecv.
enum class Algorithm { kAuto, kRing, kTree, kNvls, kNvlsTree, kDirect };
enum class Protocol { kAuto, kLL, kLL128, kSimple };
enum class SimMode { kAnalytic, kFlow };

/// The collective-name table: one row per collective, in nccl-tests' order of binaries.
struct CollectiveName {
  CollectiveOp op;
  std::string_view name;             ///< canonical: "allreduce"
  std::string_view nccl_tests_name;  ///< "all_reduce" (its binary is all_reduce_perf)
  std::string_view title;            ///< "AllReduce"
};
std::span<const CollectiveName> collective_names();

std::string_view to_string(CollectiveOp op);   ///< the canonical name: "allreduce", ...
std::string_view to_string(Algorithm algo);    ///< "auto", "ring", "tree", "nvls", "nvls_tree", "direct"
std::string_view to_string(Protocol proto);    ///< "auto", "LL", "LL128", "Simple"
std::string_view to_string(SimMode mode);      ///< "analytic", "flow"
/// Any spelling of a name in collective_names(), case, '_', '-' and ' ' ignored, and
/// nccl-tests' binary names: "allreduce", "all_reduce", "All-Reduce", "all_reduce_perf".
std::optional<CollectiveOp> parse_collective(std::string_view text);
std::optional<Algorithm> parse_algorithm(std::string_view text);
std::optional<Protocol> parse_protocol(std::string_view text);
std::optional<SimMode> parse_sim_mode(std::string_view text);
/// What the parsers above accept, as messages and --help list them: "auto", "ring", "tree",
/// "nvls", "nvls_tree", "direct"; "auto", "ll", "ll128", "simple"; "analytic", "flow".
std::vector<std::string> algorithm_choices();
std::vector<std::string> protocol_choices();
std::vector<std::string> sim_mode_choices();

/// nccl-tests' busbw factor: AllReduce 2(n-1)/n; AllGather, ReduceScatter, AllToAll (n-1)/n;
/// Broadcast, Reduce, SendRecv 1 (docs/model.md#nccl-tests-conventions).
double bus_factor(CollectiveOp op, int ranks);

/// NCCL's MAXCHANNELS (NVIDIA/nccl src/include/device.h): a communicator has at most 64
/// channels, so NCCL_MIN/MAX_NCHANNELS beyond it mean nothing (docs/units.md#bounds).
inline constexpr int kMaxChannels = 64;

/// How the communicator is set up, mirroring what users set on real machines.
struct CommOptions {
  /// NCCL_P2P_DISABLE=1 (P2P level LOC): every GPU pair, NVLink pairs included, goes through
  /// host memory (SHM); NVLS is not affected (docs/model.md#p2p-disable).
  bool p2p_disable = false;
  /// NCCL_P2P_LEVEL (kSelf = LOC); nullopt = NCCL's default for the host CPU
  /// (default_p2p_level, include/linksim/routing.hpp). p2p_disable wins, as in NCCL.
  std::optional<PathClass> p2p_level;
  /// NCCL_IB_HCA: the NICs NCCL may use; empty = every NIC.
  IbHcaFilter ib_hca;
  /// NCCL_NET_GDR_LEVEL: a GPU's network traffic uses GPUDirect RDMA only when its NIC is
  /// within this class of it; kSelf (LOC) = never, as without a peer-memory module. nullopt =
  /// NCCL's default, PXB (docs/model.md#gdr-off).
  std::optional<PathClass> net_gdr_level;
  /// NCCL's socket transport between servers (NET/Socket: NCCL_NET=Socket, NCCL_IB_DISABLE=1
  /// or no usable IB device): host memory only, so every network leg is host-staged
  /// (docs/model.md#net-socket).
  bool net_socket = false;
  bool nvls_enable = true;   ///< NCCL_NVLS_ENABLE: allow NVLink SHARP where the switches offer it
  /// NCCL_ALGO / NCCL_PROTO lists: the pairs NCCL's tuner may choose, per collective
  /// (docs/model.md#tuner-lists); default every pair.
  NcclLists nccl_lists;
  /// NCCL_MIN/MAX_NCHANNELS, 1..kMaxChannels; 0 = as NCCL would choose.
  int channels = 0;
  /// GPUs driven by one host thread, as nccl-tests' -g: their kernel launches serialize
  /// (docs/model.md#launch-overhead). 1 = one process per GPU (mpirun / srun).
  int gpus_per_thread = 1;
  /// The NCCL release modelled (--nccl-version): which algorithms exist and which tuner
  /// constants apply (docs/model.md#nccl-version).
  NcclVersion nccl_version = kDefaultNcclVersion;
  /// The per-mechanism corrections fitted to this machine (`--calibration`,
  /// docs/calibration.md); neutral leaves the model as docs/model.md states it.
  ModelCalibration calibration;
};

/// One question: how long does `op` of `size_bytes` take? size_bytes means what nccl-tests'
/// size column means for that collective: the per-rank buffer for AllReduce, Broadcast,
/// Reduce and SendRecv; the whole gathered / scattered array for AllGather and ReduceScatter;
/// the whole send buffer of one rank for AllToAll.
struct CollectiveQuery {
  CollectiveOp op = CollectiveOp::kAllReduce;
  double size_bytes = 0;
  Algorithm algorithm = Algorithm::kAuto;
  Protocol protocol = Protocol::kAuto;
  SimMode mode = SimMode::kAnalytic;
  int root = 0;  ///< rank index for Broadcast and Reduce
};

/// The mechanism that limits a collective's bandwidth.
enum class BottleneckKind {
  kNone,         ///< a single rank: no data moves
  kLink,         ///< a link's capacity: Bottleneck::link
  kHostStaging,  ///< a host-staged copy (SHM: no P2P between the GPUs) from -> to
  kNvls,         ///< each GPU's NVLink into the NVSwitches under NVLS: rate_Bps per GPU
  kServerNics,   ///< the servers' NICs: rate_Bps per server (0 when the pattern is all-to-all)
  kP2pChannels,  ///< the channels NCCL gives a point-to-point send of size_bytes over NVLink
  kRingChannels, ///< the channels NCCL opens for a ring across servers: `channels` x one
                 ///< NVLink channel's rate = rate_Bps per rank
};

/// What limits a result, as data; describe_bottleneck() (linksim/collective_rows.hpp) puts it
/// in words.
struct Bottleneck {
  BottleneckKind kind = BottleneckKind::kNone;
  LinkId link;                  ///< kLink: the limiting direction of a link
  LinkFamily family = LinkFamily::kPcie;  ///< kLink: its family (NVLink, PCIe, network, ...)
  /// kLink: whether the words name the family ("[nvlink]"); ring, tree and flow results do,
  /// the direct patterns (AllToAll, SendRecv) name the link alone.
  bool name_family = true;
  DeviceId from;                ///< kHostStaging: the copy's source GPU
  DeviceId to;                  ///< kHostStaging: its destination GPU
  bool crosses_socket = false;  ///< kHostStaging: the copy crosses the CPU socket link
  double rate_Bps = 0;          ///< kNvls, kServerNics, kRingChannels: the limiting rate, bytes/s
  double size_bytes = 0;        ///< kP2pChannels: the send's size
  int channels = 0;             ///< kRingChannels: the communicator's channels
  friend bool operator==(const Bottleneck&, const Bottleneck&) = default;
};

/// What one directed link carried during a collective.
struct LinkUsage {
  LinkId link;
  double bytes = 0;   ///< bytes that crossed this direction
  double busy_s = 0;  ///< flow: time it was saturated; analytic: bytes / rate it ran at, s
  /// bytes / (the link's raw rate x the result's time_s): the mean fraction of its
  /// per-direction rate used over the whole collective, in [0, 1].
  double utilization = 0;
};

struct CollectiveResult {
  double time_s = 0;
  double algbw_Bps = 0;  ///< size_bytes / time_s (nccl-tests' algbw, bytes/s)
  double busbw_Bps = 0;  ///< algbw x bus_factor (nccl-tests' busbw, bytes/s)
  Algorithm algorithm = Algorithm::kRing;  ///< resolved, never kAuto
  Protocol protocol = Protocol::kSimple;   ///< resolved, never kAuto
  int channels = 0;
  /// What limits the bandwidth. In words: describe_bottleneck(result, topology)
  /// (include/linksim/collective_rows.hpp), e.g. "cpu0->cpu1 (upi) [smp]".
  Bottleneck bottleneck;
  /// Per directed link that carried data, by link id: flow mode always (from the
  /// simulation); analytic mode for ring algorithms (from the ring's streams); else empty.
  std::vector<LinkUsage> link_usage;
};

struct NcclCall;
struct NcclDebugInfo;
struct CollectiveExplanation;  // include/linksim/explain.hpp
struct ConcurrentCall;         // include/linksim/concurrent_collectives.hpp

/// A communicator: an ordered set of GPU ranks on a topology, with NCCL's per-communicator
/// set-up done once (rings, trees, NVLS availability, link efficiencies), after which each
/// query costs microseconds (analytic) or one simulation (flow).
/// REQUIRES: the topology outlives the communicator. Queries are const and thread-safe.
class Communicator {
 public:
  /// Throws ConfigError when ranks are empty, repeated, or not GPUs, when options.channels is
  /// outside 0..kMaxChannels, or options.gpus_per_thread outside 1..ranks.
  Communicator(const Topology& topology, std::vector<DeviceId> ranks, CommOptions options = {});
  /// Over `ranks` of `sibling`'s topology, sharing the tables that depend on the topology
  /// alone (effective link capacities, the routing tables of the fabric between servers)
  /// instead of building them again: a planner's many GPU groups on one cluster hold them
  /// once. The answers are those of the constructor above. Throws as it does.
  Communicator(const Communicator& sibling, std::vector<DeviceId> ranks, CommOptions options);
  ~Communicator();
  Communicator(Communicator&&) noexcept;

  /// Throws ConfigError for an algorithm or protocol the collective or machine cannot use
  /// (e.g. nvls without reduction-capable NVSwitches), naming what is available.
  CollectiveResult run(const CollectiveQuery& query) const;

  /// What NCCL_DEBUG=INFO would report for this communicator and these calls: channels,
  /// trees, the tuner's table and its choice per call (include/linksim/nccl_debug.hpp).
  /// Throws ConfigError as run() does.
  NcclDebugInfo nccl_debug(const std::vector<NcclCall>& calls) const;

  int rank_count() const;
  int node_count() const;  ///< servers spanned by the ranks
  const std::vector<DeviceId>& ranks() const;
  const Topology& topology() const;
  NcclVersion nccl_version() const;  ///< the release modelled (CommOptions::nccl_version)

 private:
  /// The derivation of run()'s answer (include/linksim/explain.hpp) reads the set-up.
  friend CollectiveExplanation explain_collective(const Communicator& comm,
                                                  const CollectiveQuery& query);
  /// The joint flow simulation of several communicators' calls lowers each one's set-up.
  friend std::vector<ConcurrentCall> run_concurrent(std::span<const Communicator* const> comms,
                                                    const CollectiveQuery& query);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace linksim
