// SPDX-License-Identifier: Apache-2.0
// Every constant of the collective model, with its source. docs/model.md explains each one.
#pragma once

#include <array>
#include <string_view>

#include "linksim/collectives.hpp"
#include "linksim/routing.hpp"

namespace linksim::detail {

/// NCCL's hardware-latency classes (tuning.cc hwLat rows).
enum class HopClass { kNvlink, kPcie, kNet };

inline constexpr int kProtocolCount = 3;  // LL, LL128, Simple
inline int protocol_index(Protocol p) { return p == Protocol::kLL ? 0 : p == Protocol::kLL128 ? 1 : 2; }

/// NCCL tuning.cc (2.2x), microseconds. [LL, LL128, Simple].
struct NcclLatencies {
  std::array<double, 3> base_ring{6.6, 14.0, 8.4};
  std::array<double, 3> base_tree{6.8, 14.0, 8.4};
  std::array<double, 3> hw_nvlink_ring{0.6, 1.9, 3.4};
  std::array<double, 3> hw_nvlink_tree{0.6, 1.25, 4.0};
  std::array<double, 3> hw_pcie_ring{1.0, 2.5, 5.7};
  std::array<double, 3> hw_pcie_tree{1.0, 1.9, 4.0};
  std::array<double, 3> hw_net_ring{2.7, 4.0, 14.0};
  std::array<double, 3> hw_net_tree{5.0, 8.5, 14.0};
  double nvls_simple_us = 25.0;       ///< hwLat NVLINK, NVLS, Simple
  double nvls_net_simple_us = 18.0;   ///< hwLat NET, NVLS
  double nvls_tree_net_us = 20.9;     ///< hwLat NET, NVLSTree
  double net_overhead_us = 1.0;       ///< per inter-node step, Intel/other host (x3 for Simple)
};

/// The network between servers, as the NIC's catalog link type names it (docs/model.md#net-steps):
/// "ib_*" InfiniBand, "roce_*" RoCE, "efa*" AWS EFA, "tcpx_*" GCP GPUDirect-TCPX, "tcpxo_*"
/// GCP GPUDirect-TCPXO; anything else is kOther.
enum class NetworkKind { kInfiniBand, kRoce, kEfa, kTcpx, kTcpxo, kOther };
NetworkKind network_kind(std::string_view link_type);
const char* to_string(NetworkKind kind);

/// What a step that crosses servers costs beyond NCCL's hwLat[NET] (tuning.cc), microseconds,
/// by network kind (docs/model.md#net-steps). InfiniBand and RoCE: one figure, since NCCL's IB
/// transport (src/transport/net_ib.cc) runs verbs over either link layer, each step through
/// the same proxy post and hand-off. The rows that latency alone makes (8 B-512 B, in and out
/// of place) of the five shipped verbs tables with small sizes give 70 per-step figures:
/// InfiniBand's calibration 71 (2 x DGX A100, HDR, ring LL, 3.75 network steps, realized
/// 32.475 us without the term: 36.6-41.7 us, 1.1-2.4 us a step), 106 (2 x 8 H100 Nebius, tree
/// LL, 2 steps, NCCL's 25.2 us: 29.4-45.7 us, 2.1-10.3 us a step), 108 (2 x 8 B200 Lambda, tree
/// LL: 35.5-51.1 us, 5.1-12.9 us a step); RoCE's calibration 16 (2 x OCI BM.GPU4.8, 100G,
/// tree LL, 2 steps: 34.7-40.7 us, 4.8-7.7 us a step) and 109 (2 x Dell R760xa, L40S, 400G,
/// ring LL, 3 steps, realized 21.8 us with the serialized launch: 16.8-20.7 us, -1.7 to -0.4
/// us a step). Their median is 2.45 us (the 42 InfiniBand figures' alone 2.45, the 28 RoCE
/// figures' 2.17): each cluster's own median lies between -0.8 (109) and 6.7 (16) us a step,
/// a spread the link layer does not explain (an Ethernet switch hop 400-600 ns against IB's
/// < 100 ns, hardware.md 8.4, Kentino latency budget). GPUDirect-TCPXO: the rows of calibration
/// 101 that latency alone makes (2 x GCP A3 Mega, 8 B-256 B, tree LL, 2 network
/// steps: 123.0-135.8 us) lie 97.8-110.6 us above NCCL's 25.2, median 98.15: 49.075 us a step,
/// the cost of a message through Google's FasTrak net plugin and the RXDM service beside it on
/// each VM (dstack's A3 Mega guide), which no public figure splits further. EFA: the rows of calibration 107 that latency alone makes (2 x AWS
/// p5.48xlarge, 8 B-2 KiB, tree LL, 2 network steps: 76.8-88.0 us) lie 51.6-62.8 us above
/// NCCL's 25.2, median 52.36: 26.18 us a step, aws-ofi-nccl's eager and rendezvous paths over
/// libfabric (a bounce buffer and a local read per eager message; the receiver's RDMA write
/// of its buffer into the sender's mailbox before each rendezvous, doc/rdma-protocol.md).
/// GPUDirect-TCPX and other networks: no shipped table whose rows latency alone makes, NCCL's
/// table (0) until one is added.
double net_step_excess_us(NetworkKind kind);

/// Protocol efficiencies (NCCL tuning.cc): LL sends 8-byte lines with 4 bytes of data; LL128
/// carries 120 data bytes per 128-byte line.
struct ProtocolEfficiency {
  double ll = 0.5;
  double ll128 = 120.0 / 128.0 * (0.92 / (120.0 / 128.0));  ///< = 0.92, NCCL's LL128 factor
  double tree = 0.92;                                       ///< Tree AllReduce busBw factor
  /// NCCL's estimate converts a tree's bus bandwidth to algorithm bandwidth with x 0.5
  /// (tuning.cc). The realized rate counts the loads instead: the chain's S up and S down on
  /// every hop, the NICs' S to 2 S by the count of servers (docs/model.md#tree-chain).
  double tree_bus_to_alg = 0.5;
};

/// Per-channel bandwidth caps in GB/s by architecture (NCCL tuning.cc), used to cap LL/LL128.
struct ArchCaps {
  double ll_max_single_node_GBps;   ///< llMaxBws[arch][0]
  double ll_max_multi_node_GBps;    ///< llMaxBws (Intel row) for >= 2 nodes
  double ll128_per_channel_GBps;    ///< perChMaxRingLL128Bws
};
ArchCaps arch_caps(int sm);

/// NCCL's per-NVLink bandwidth constant by GPU architecture, bytes/s per direction (topo.h:
/// SM60 18, SM70 20, SM80 20, SM86 12, SM90 20.6, SM100 40.1 GB/s). What NCCL's graph search
/// and tuner count (nccl_tuner_model.hpp); not a measured rate.
double nccl_nvlink_bw_Bps(int sm);
/// Measured NVLink efficiency of a GPU generation: the lowest large-message ring busbw among the
/// published single-server tables of that generation over the GPUs' raw per-direction NVLink
/// rate, where several tables measure it (docs/model.md#link-efficiency): SM70 0.847 (V100 NV2
/// pair, 42.36 of 50 GB/s; NV1 pair 0.874; 8x V100), SM80 0.782 (4x A100, 234.72 of 300; 8x
/// A100 234.89), SM90 0.804 (8x H100 AllGather, 361.86 of 450; ReduceScatter 364.76, AllReduce
/// 365-370). 0 elsewhere (SM60; SM86, one table; SM100).
double measured_nvlink_efficiency(int sm);
/// Realized NVLink efficiency: the fraction of a link's raw per-direction rate GPU traffic
/// achieves, by GPU generation: the measured fraction above where one exists, else NCCL's own
/// per-link constant over the catalog's lane rate of the link type (`catalog_lane_bw_Bps`;
/// A40 12 of 14.0625 = 0.853, B200 40.1 of 50 = 0.802). A fraction, so a faster link (a what-if) keeps it; kept apart
/// from nccl_nvlink_bw_Bps, which the tuner counts.
double nvlink_efficiency(int sm, double catalog_lane_bw_Bps);
/// PCIe: DMA achieves ~0.8 of the raw 128b/130b rate: A100 Gen4 H2D 25 of 31.5 GB/s (0.79),
/// V100 Gen3 12 of 15.75 (0.76), H100 Gen5 D2H 52.8 of 63 (0.84) (reference links.yaml
/// pcie_measured). NCCL's own model (width x speed / 80) is 0.76.
inline constexpr double kPcieEfficiency = 0.8;
/// Network: NDR measured 48.9 of 50 GB/s (calibration 66), HDR 8 x 23.6 of 25 (calibration 71).
inline constexpr double kNetworkEfficiency = 0.96;
/// NVLink-C2C and SMP links carrying P2P traffic: NCCL treats them like NVLink (0.8).
inline constexpr double kC2cEfficiency = 0.8;
/// NCCL's bandwidth of a PCIe link, as a fraction of its raw rate: NCCL counts width x speed
/// / 80 GB/s (src/graph/topo.cc), PCI_BW 12 GB/s for Gen3 x16 (15.75 raw; src/graph/topo.h).
/// A host-staged copy moves at kShmCopyFraction of it (docs/model.md#shm).
inline constexpr double kNcclPcieBwFraction = 12.0 / 15.75;
/// A host-staged (SHM) copy through pinned host memory moves this fraction of NCCL's PCIe
/// bandwidth of the GPU's link (B_copy, docs/model.md#shm): the receiver's SMs load the data
/// over PCIe from host memory (src/transport/shm.cc), reads whose round trips leave about
/// half the link. Measured: DGX-1 V100, Gen3 x16, 5.52-5.75 GB/s busbw of NCCL's 12 for
/// three GPU pairs within and across the sockets (data/validation/nccl-tests/39b-41b, 41:
/// 0.46-0.48); DGX H100, Gen5 x16, 24.0-24.3 of 48 (four GPUs, P2P off, LLM-Insights: 0.50).
/// The lower is taken (docs/model.md#shm).
inline constexpr double kShmCopyFraction = 0.47;
/// NVLink SHARP (NVLS): algbw achieved as a fraction of the GPU's raw NVLink bandwidth.
/// 8x H100: 276 GB/s of 450 (calibration 01, 53; NVIDIA's 480 GB/s busbw, nccl#1374):
/// equals NCCL's nvlsEff 0.85 x NCCL's SM90 NVLink constant 20.6/25 = 0.824 x ~0.875.
inline constexpr double kNvlsHopperEfficiency = 276.0 / 450.0;
/// Blackwell, measured on one GB200 NVL72 rack (72 GPUs, NCCL 2.25/2.26): NVLS AllReduce
/// algbw 425.5 GB/s of 900 at 4 GiB (423-429 at 8 GiB; data/validation/nccl-tests/84); two
/// racks, where NVLSTree is bound by NVLS, reach 408-413 at 16 GiB (85). NCCL's own ratio
/// nvlsEff 0.74/0.85 applied to the Hopper figure would give 0.534 (480 GB/s), 13% above both.
inline constexpr double kNvlsBlackwellEfficiency = 425.5 / 900.0;

/// NVLS runs NCCL_NVLS_NCHANNELS = 16 channels (SM90, nvls.cc NVLS_NCHANNELS_SM90); its loop
/// moves one NCCL_NVLS_CHUNKSIZE = 128 KiB chunk per channel per head, heads being the GPUs of
/// the NVLink domain up to NCCL_MAX_NVLS_ARITY = 32 (device.h). An NVLS collective pays one
/// loop before its steady state (docs/model.md#nvls).
inline constexpr double kNvlsChunkBytes = 128.0 * 1024.0;
inline constexpr int kNvlsChannels = 16;
inline constexpr int kMaxNvlsArity = 32;
/// Blackwell (SM100): NVLS_NCHANNELS_SM100 = 32 channels (nvls.cc, 2.25 on); from NCCL 2.27,
/// NVLS_NCHANNELS_SM100_NVL = 24 when the communicator is one NVLink domain (ncclNvlsInit).
inline constexpr int kNvlsChannelsBlackwell = 32;
inline constexpr int kNvlsChannelsBlackwellOneDomain = 24;
/// NVLSTree's chunk on 4 or more nodes: NCCL_NVLSTREE_MAX_CHUNKSIZE defaults to 64 KiB there
/// (enqueue.cc, the NVLS_TREE chunk rule; 2.25 on), the NVLS chunk below 4 nodes.
inline constexpr double kNvlsTreeChunkBytesFrom4Nodes = 64.0 * 1024.0;
/// NVLSTree halves its chunk for calls of few loops (enqueue.cc `calcCollChunking`, the
/// NVLS_TREE branch, 2.18 on): in order, below `loops` x channels x heads x the chunk so far,
/// at most `chunk_bytes` (256 KiB below 32 loops, 128 KiB below 16, 64 KiB below 4, 32 KiB
/// below 1; the first two act only on chunks a plugin set above NCCL's 128 KiB).
struct NvlsTreeChunkStep {
  double loops;
  double chunk_bytes;
};
inline constexpr NvlsTreeChunkStep kNvlsTreeChunkSteps[] = {
    {32.0, 256.0 * 1024.0}, {16.0, 128.0 * 1024.0}, {4.0, 64.0 * 1024.0}, {1.0, 32.0 * 1024.0}};
/// Tree Simple's chunk per channel: one step of the Simple buffer, NCCL_BUFFSIZE 4 MiB / NCCL_STEPS
/// 8 = 512 KiB (src/init.cc DEFAULT_BUFFSIZE, src/include/device.h NCCL_STEPS; src/enqueue.cc
/// computeColl: chunkSteps = 1 unless Ring, no depth-based shrink for Tree Simple; NCCL 2.19
/// through 2.29). A receiver waits for a whole slice (src/device/prims_simple.h waitPeer), so a
/// chunk crosses the tree store-and-forward (docs/model.md#tree-fill).
inline constexpr double kNcclSteps = 8.0;
inline constexpr double kTreeSimpleChunkBytes = 4.0 * 1048576.0 / kNcclSteps;

/// Point-to-point sends: NCCL's p2p chunk, by where the communicator runs (src/init.cc
/// computeBuffSizes): across servers NCCL_P2P_NET_CHUNKSIZE, on one server whose GPUs all
/// reach each other over NVLink NCCL_P2P_NVL_CHUNKSIZE, else NCCL_P2P_PCI_CHUNKSIZE, bytes. A
/// send's parts span an eighth of a chunk to 32 chunks on one server, half a chunk to one
/// across servers (src/enqueue.cc addP2pToPlan; docs/model.md#p2p).
inline constexpr double kP2pNetChunkBytes = 131072.0;
inline constexpr double kP2pPciChunkBytes = 131072.0;
inline constexpr double kP2pNvlChunkBytes = 524288.0;

/// One rank: NCCL moves nothing between GPUs; out of place (nccl-tests' first column) it
/// copies the send buffer into the receive buffer in device memory, reading and writing each
/// byte once, at the fraction of the HBM rate a streaming kernel reaches (the planner's
/// streaming fraction, docs/planner.md). docs/model.md#one-rank.
inline constexpr double kOneRankCopyBytesPerByte = 2.0;
inline constexpr double kOneRankCopyEfficiency = 0.85;

/// Host time per GPU when one thread launches the kernels of several GPUs (nccl-tests -g N).
/// The median of the per-GPU floors (smallest-message time / N) of 16 published -g N tables,
/// 3.1-6.5 us; docs/model.md#launch-overhead.
inline constexpr double kLaunchPerGpu_s = 4.8e-6;

/// The channel count NCCL reports for a ring (rings per communicator): one ring per ~20 GB/s
/// of effective ring bandwidth (a channel's ring rides about one NVLink: NCCL's per-link
/// constant), at least 2 (NCCL's minimum for collectives), at most 32 (MAXCHANNELS / 2).
int default_channels(double ring_bw_Bps);

/// The part of a ring rate that `channels` channels carry (docs/model.md#protocols): one
/// channel carries the larger of ~20 GB/s and an equal share of the ring's own
/// default_channels(ring_bw_Bps); more channels carry no more than the links allow (ring_bw).
/// channels <= 0 (the default count) carry ring_bw.
double channel_limited_Bps(double ring_bw_Bps, int channels);

}  // namespace linksim::detail
