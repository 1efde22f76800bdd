// SPDX-License-Identifier: Apache-2.0
// NCCL's tuner constants and rules as each release has them (NVIDIA/nccl src/graph/tuning.cc
// ncclTopoTuneModel and ncclTopoGetAlgoTime, src/graph/search.cc speed arrays), one row per
// range of releases, each row naming the tags it was read from (docs/model.md#tuner-releases).
// A minor release takes the values of its last patch tag (the patch is not modelled).
#pragma once

#include <array>
#include <span>

#include "linksim/nccl_version.hpp"

namespace linksim::detail {

/// How a release maps the GPUs' compute capability to a row of its tables.
enum class TunerArchRule {
  kSm80Only,     ///< up to 2.14: the Ampere row when every GPU is SM80, else the Volta row
  kExactSm80Sm90,///< 2.15-2.16: Ampere for SM80 only, Hopper for SM90 only, else Volta
  kFloor,        ///< 2.17-2.24: >= 90 Hopper, >= 80 Ampere, else Volta
  kFloorSm100,   ///< 2.25 on: >= 100 Blackwell, then as kFloor
};

/// [Volta, Ampere, Hopper, Blackwell] x [1 node, 2 nodes, 4+ nodes], GB/s per channel unless
/// stated. A row absent from a release repeats the row NCCL's index falls back to.
using ArchNodeTable = std::array<std::array<double, 3>, 4>;

struct TunerTables {
  const char* tags;  ///< the NCCL tags the row was read from, e.g. "v2.26.2-1..v2.26.6-1"
  TunerArchRule arch_rule;
  ArchNodeTable ll_max_GBps;            ///< llMaxBws; the tuner reads [arch][0] on one server
  ArchNodeTable ring_ll128_per_ch_GBps; ///< perChMaxRingLL128Bws (ll128MaxBwPerCh before 2.18)
  ArchNodeTable tree_ll128_per_ch_GBps; ///< perChMaxTreeLL128Bws (the ring's before 2.18)
  ArchNodeTable tree_per_ch_GBps;       ///< perChMaxTreeBws
  ArchNodeTable nvls_tree_per_ch_GBps;  ///< perChMaxNVLSTreeBws (2.28 on; 0 = no cap)
  /// nvlsEfficiency by arch (2.28 on). 0: the release's NVLS estimate is the older
  /// min(bwIntra, bwInter) x channels x nvls_alg_ratio.
  std::array<double, 4> nvls_efficiency;
  double nvls_alg_ratio;        ///< NVLS AllReduce algbw / busbw before 2.28 (0.75, then 5/6)
  /// 2.17: NVLS is estimated on the ring graph (init.cc: "we only need the NVSwitch speed");
  /// from 2.18 on its own graph (NCCL_TOPO_PATTERN_NVLS).
  bool nvls_on_ring_graph;
  double ring_ll_factor;        ///< ring LL busbw factor: 1/4 up to 2.20 (AllReduce), 0.5 on
  bool ring_ll128_one_ppn_0_7;  ///< up to 2.22: ring LL128 x 0.7 with one GPU per node
  /// Up to 2.17: every busbw capped at 235 GB/s on Ampere, 370 on Hopper (2.17).
  std::array<double, 4> total_bus_cap_GBps;
  /// Ring Simple AllReduce on several servers: latency x plateau_low below SM plateau_split,
  /// x plateau_high from it, once the size reaches 64 B x channels x ranks (2.18 on) or
  /// ranks x 4096 B (before).
  double plateau_low, plateau_high;
  int plateau_split_sm;
  bool plateau_per_channel;
  /// 2.23 on: with one GPU per node a ring's steps across servers cost hwLat[NET][Tree][p]
  /// ("with ppn=1 latencies are fully exposed"), not hwLat[NET][Ring][p].
  bool ring_ppn1_tree_net_latency;
  /// 2.29 on: NVLSTree AllReduce x treeCorrectionFactor on SM100 hosts with x86 CPUs.
  bool nvls_tree_correction_sm100_x86;
  /// topo.h SM100_NVLINK_BW, GB/s: 40.0 up to v2.27.3-1, 40.1 from v2.27.7-1 (the other
  /// generations' constants did not change: model_params.hpp nccl_nvlink_bw_Bps).
  double sm100_nvlink_GBps;
  /// search.cc speed arrays, GB/s, fastest first: [generic, SM90, SM100] x [intra, inter].
  /// An empty SM90/SM100 list: the release searches with the generic (or SM90) list.
  std::array<std::span<const double>, 3> speeds_intra, speeds_inter;
};

/// NCCL's latency constants as a release has them (tuning.cc baseLat and hwLat), microseconds,
/// [LL, LL128, Simple]. NVLS and NVLSTree run Simple only.
struct TunerLatencies {
  const char* tags;
  std::array<double, 3> base_tree, base_ring;
  std::array<double, 3> nvlink_tree, nvlink_ring, pci_tree, pci_ring, net_tree, net_ring;
  double nvls_base_us, nvls_nvlink_us, nvls_net_us;  ///< NVLS: base + NVLink (+ NET across servers)
  double nvls_tree_base_us, nvls_tree_nvlink_us, nvls_tree_net_us;
  /// 2.18: NVLSTree adds 2 (nodes - 1) x NET; from 2.19 on 2 log2(nodes) x NET.
  bool nvls_tree_net_linear;
};

/// The row of `v`: the last row whose range starts at or before it.
const TunerTables& tuner_tables(NcclVersion v);
const TunerLatencies& tuner_latencies(NcclVersion v);

/// The table row index (0 Volta .. 3 Blackwell) the release's rule gives GPUs of `sm`.
int tuner_arch_index(const TunerTables& t, int sm);

/// Whether the release enables LL128 by default on GPUs of compute capability `sm` (all of
/// the communicator's the same; tuning.cc ncclTopoTuneModel, the LL128 enable switch):
/// none before 2.5 (no LL128 protocol yet), SM70 and SM80 up to 2.14, + SM90 from v2.15.1-1, + SM100 and SM120 from v2.25.1-1, any
/// from SM70 from v2.27.3-1. The paths' rule is ll128_network.hpp's.
bool tuner_ll128_arch_enabled(NcclVersion v, int sm);

/// The node column: 0 for one node, 1 for two, 2 for more.
inline int tuner_nodes_index(int nodes) { return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2; }

/// The search speeds the release tries on GPUs of `sm`, fastest first.
std::span<const double> tuner_search_speeds(const TunerTables& t, int sm, bool inter_node);

}  // namespace linksim::detail
