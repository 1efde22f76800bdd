// SPDX-License-Identifier: Apache-2.0
// NCCL's own performance estimates, from which its tuner picks an algorithm and protocol
// (NVIDIA/nccl src/graph/search.cc ncclTopoCompute, tuning.cc ncclTopoTuneModel and
// ncclTopoGetAlgoTime; docs/model.md#tuner). These are NCCL's search speeds and constants, not
// measured rates: linksim picks by them, then predicts the time with its realized models
// (analytic.hpp).
#pragma once

#include <limits>
#include <span>

#include "collectives/analytic.hpp"
#include "collectives/searched_graph.hpp"
#include "linksim/nccl_version.hpp"

namespace linksim::detail {


/// The per-channel speeds NCCL's search tries, fastest first (search.cc speedArrayIntra /
/// speedArrayInter and their SM90, SM100 variants, as release `v` has them), GB/s.
std::span<const double> search_speeds_GBps(int sm, bool inter_node,
                                           NcclVersion v = kDefaultNcclVersion);

/// NCCL's ring search over a per-GPU bandwidth budget (GB/s, NCCL's own link constants):
/// `intra_GBps` through the server, `nic_GBps` the NICs of one server (0 on one server), each
/// channel consuming its speed on both; no channel faster than `max_path_GBps` (NCCL's
/// system maxBw: the best single GPU-GPU path, or GPU-NIC path across servers). Pass 1 from
/// the fastest allowed speed down while the next is within 0.49 of the best found; then
/// channels are doubled at half the speed by the release's rule (ncclTopoDupChannels from
/// 2.19: >= 25 GB/s, not on SM90+ below 50 with more than 4 channels; docs/model.md#tuner-releases).
/// At most `max_channels`. Speeds as release `v` has them. With `nic_count` > 0 the NICs
/// share `nic_GBps` equally and each carries whole channels (search.cc ncclTopoSearchRecNet
/// takes a channel's speed off one NIC): floor(nic_GBps / nic_count / speed) channels a NIC.
SearchedGraph ring_search(int sm, double intra_GBps, double nic_GBps, int max_channels,
                          double max_path_GBps = std::numeric_limits<double>::infinity(),
                          NcclVersion v = kDefaultNcclVersion, int nic_count = 0);

/// The ring graph NCCL's search finds on this communicator (ring_search over NCCL's view of the
/// server's ring and of its NICs); the tree graph has the same channels. CommGraph computes
/// it once (CommGraph::nccl_ring_graph); REQUIRES: the graph's rings, NVLink and network
/// measured.
SearchedGraph search_nccl_ring_graph(const CommGraph& g);

/// NCCL's NVLS search: one channel per head, heads = GPUs of the server up to
/// NCCL_MAX_NVLS_ARITY; every channel moves its speed through each GPU's NVLink into the
/// switches and twice through its head's (ncclTopoSearchTryNvls), so the speed is the fastest
/// one with (heads + 1) x speed within `gpu_nvs_GBps`.
SearchedGraph nvls_search(int sm, double gpu_nvs_GBps, int heads, bool inter_node,
                          NcclVersion v = kDefaultNcclVersion);

/// NCCL's correction of tree bandwidth at medium sizes (tuning.cc treeCorrectionFactor),
/// indexed by floor(log2(size / 64 B)); 1 from index 23 (512 MiB) on, where
/// ncclTopoGetAlgoTime stops applying it to Tree (logSize < 23, every release).
double tree_correction(Protocol proto, double size_bytes);

/// The same factors for NVLSTree (tuning.cc ncclTopoGetAlgoTime from v2.29.2-1: SM100, x86
/// hosts), Simple, through floor(log2(size / 64 B)) = 23 (512 MiB-1 GiB: 0.9); 1 beyond.
double nvls_tree_correction(double size_bytes);

/// NCCL's estimate of one (algorithm, protocol) pair for `op` on this communicator: its
/// tuning-table cell, and the size-dependent corrections ncclTopoGetAlgoTime applies.
struct NcclEstimate {
  bool enabled = false;
  double latency_s = 0;  ///< the table's latency
  double algbw_Bps = 0;  ///< the table's algorithm bandwidth
  int channels = 0;      ///< the graph's channels
  Protocol proto = Protocol::kSimple;
  bool tree = false;     ///< tree bandwidth: x tree_correction(proto, size)
  /// NVLSTree AllReduce on SM100 with x86 hosts from 2.29: x treeCorrectionFactor's Simple
  /// row through its 24th column (nvls_tree_correction).
  bool nvls_tree_corrected = false;
  /// Ring Simple AllReduce on several servers: latency x plateau_factor once the size per
  /// channel and rank reaches 64 bytes.
  double plateau_factor = 1;
  double plateau_from_bytes = 0;

  /// NCCL's estimated time of a call of `size_bytes`, seconds.
  double time_s(double size_bytes) const;
};

/// The release whose latency constants the closed form uses (NcclLatencies, model_params.hpp):
/// NCCL's estimate adds the difference the release asked for makes (docs/model.md#tuner-releases).
inline constexpr NcclVersion kClosedFormLatencies{2, 28};

/// NCCL's estimate for (algo, proto), `realized` being cost_model's model of the same pair
/// (its eligibility and NCCL-formula latency, CostModel::table_latency_s, are shared). Pairs NCCL's tables do not cover
/// (direct AllToAll and SendRecv) take the realized model as their estimate.
NcclEstimate nccl_estimate(const CommGraph& g, CollectiveOp op, Algorithm algo, Protocol proto,
                           const CostModel& realized);

}  // namespace linksim::detail
