// SPDX-License-Identifier: Apache-2.0
// NCCL's tuner constants by release (docs/model.md#tuner-releases). Every row is read from
// NVIDIA/nccl src/graph/tuning.cc (ncclTopoTuneModel: llMaxBws, perChMaxRingLL128Bws,
// perChMaxTreeLL128Bws, perChMaxTreeBws, perChMaxNVLSTreeBws, nvlsEfficiency and the
// "model refinements"; ncclTopoGetAlgoTime: the ring plateau, treeCorrectionFactor) and
// src/graph/search.cc (speedArrayIntra/Inter, sm90SpeedArray*, sm100SpeedArray*) at the
// tags it names.
#include "collectives/nccl_tuner_tables.hpp"

namespace linksim::detail {
namespace {

// search.cc speed arrays, GB/s.
constexpr double kIntra210[] = {44, 30, 22, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
constexpr double kInter210[] = {48, 30, 24, 22, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12};
constexpr double kInter215[] = {48, 30, 28, 24, 22, 18, 15, 12, 10, 9,
                                7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12};
constexpr double kSm90Intra216[] = {66, 33, 24, 20, 15, 12, 6, 3};
constexpr double kSm90Inter216[] = {48, 45, 30, 24, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};
constexpr double kIntra218[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
constexpr double kInter218[] = {48, 30, 28, 24, 20, 18, 15, 12, 10, 9,
                                7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12};
constexpr double kSm90Intra218[] = {60, 40, 30, 24, 20, 15, 12, 6, 3};
constexpr double kSm90Inter218[] = {48, 45, 42, 40, 30, 24, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};
constexpr double kSm90Intra219[] = {60, 50, 40, 30, 24, 20, 15, 12, 6, 3};
constexpr double kSm90Inter219[] = {48, 45, 42, 40, 30, 24, 22, 20, 17.5,
                                    15, 12, 6,  3,  2.4, 1.2, 0.24, 0.12};
constexpr double kSm90Intra221[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
constexpr double kSm100Intra225[] = {90, 80, 70, 60, 50, 40, 30, 24, 20, 19};
constexpr double kSm100Intra227[] = {90, 80, 70, 60, 50, 40, 30, 24, 20, 19, 18};
constexpr double kSm100Inter227[] = {96, 48, 45.1, 42, 40, 30, 24, 22, 20, 17.5,
                                     15, 12, 6,    3,  2.4, 1.2, 0.24, 0.12};
constexpr double kSm100Intra229[] = {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
constexpr double kSm100Inter229[] = {96, 80, 48, 45.1, 42, 40, 30, 24, 22, 20,
                                     17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};
constexpr double kSm100Inter230[] = {96, 86, 80, 48, 45.1, 42, 40, 30, 24, 22,
                                     20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};

using Speeds = std::span<const double>;

struct Row {
  NcclVersion from;
  TunerTables tables;
};

constexpr std::array<double, 3> kVoltaLl{39.0, 39.0, 20.4}, kAmpereLl{87.7, 22.5, 19.0},
    kHopperLl{141.0, 45.0, 35.0}, kBlackwellLl{2 * 141.0, 2 * 45.0, 2 * 35.0};
constexpr std::array<double, 3> k20{20.0, 20.0, 20.0}, k36_7{36.7, 36.7, 36.7};
constexpr std::array<double, 3> kVoltaTree{26.5, 18.5, 10.0}, kAmpereTree{24.0, 23.6, 17.8};
constexpr std::array<double, 3> kZero{0, 0, 0};

// Up to 2.14 (v2.10.3-1..v2.14.3-1; older releases take this row too): two rows (Volta,
// Ampere) chosen by compCap80; ll128MaxBwPerCh 20 for ring and tree; every busbw at most 235
// on the Ampere row; ring LL x 1/4; ring LL128 x 0.7 with one GPU per node; the plateau x1.9
// from n x 4096 B; NVLS absent.
constexpr TunerTables k210{
    .tags = "v2.10.3-1..v2.14.3-1",
    .arch_rule = TunerArchRule::kSm80Only,
    .ll_max_GBps = {kVoltaLl, kAmpereLl, kVoltaLl, kVoltaLl},
    .ring_ll128_per_ch_GBps = {k20, k20, k20, k20},
    .tree_ll128_per_ch_GBps = {k20, k20, k20, k20},
    .tree_per_ch_GBps = {kVoltaTree, kAmpereTree, kVoltaTree, kVoltaTree},
    .nvls_tree_per_ch_GBps = {kZero, kZero, kZero, kZero},
    .nvls_efficiency = {0, 0, 0, 0},
    .nvls_alg_ratio = 0.75,
    .nvls_on_ring_graph = true,
    .ring_ll_factor = 0.25,
    .ring_ll128_one_ppn_0_7 = true,
    .total_bus_cap_GBps = {0, 235.0, 0, 0},
    .plateau_low = 1.9,
    .plateau_high = 1.9,
    .plateau_split_sm = 80,
    .plateau_per_channel = false,
    .ring_ppn1_tree_net_latency = false,
    .nvls_tree_correction_sm100_x86 = false,
    .sm100_nvlink_GBps = 40.0,
    .speeds_intra = {Speeds(kIntra210), Speeds(), Speeds()},
    .speeds_inter = {Speeds(kInter210), Speeds(), Speeds()},
};

// 2.15: Ampere for SM80 only, Hopper for SM90 only (its row equal to Ampere's), else Volta;
// inter speeds gain 28.
constexpr TunerTables k215 = [] {
  TunerTables t = k210;
  t.tags = "v2.15.1-1..v2.15.5-1";
  t.arch_rule = TunerArchRule::kExactSm80Sm90;
  t.ll_max_GBps[2] = kAmpereLl;
  t.tree_per_ch_GBps[2] = kAmpereTree;
  t.speeds_inter[0] = Speeds(kInter215);
  return t;
}();

// 2.16: SM90 search speeds.
constexpr TunerTables k216 = [] {
  TunerTables t = k215;
  t.tags = "v2.16.2-1..v2.16.5-1";
  t.speeds_intra[1] = Speeds(kSm90Intra216);
  t.speeds_inter[1] = Speeds(kSm90Inter216);
  return t;
}();

// 2.17: rows by compute capability floor; Hopper tree 38.7/41.4/33.0, LL128 36.7 a channel;
// busbw capped at 370 on Hopper too; the plateau x1.5 from SM90; NVLS on the ring graph.
constexpr TunerTables k217 = [] {
  TunerTables t = k216;
  t.tags = "v2.17.1-1";
  t.arch_rule = TunerArchRule::kFloor;
  t.ll_max_GBps[2] = t.ll_max_GBps[3] = kAmpereLl;
  t.ring_ll128_per_ch_GBps[2] = t.ring_ll128_per_ch_GBps[3] = k36_7;
  t.tree_ll128_per_ch_GBps[2] = t.tree_ll128_per_ch_GBps[3] = k36_7;
  t.tree_per_ch_GBps[2] = t.tree_per_ch_GBps[3] = {38.7, 41.4, 33.0};
  t.total_bus_cap_GBps = {0, 235.0, 370.0, 370.0};
  t.plateau_high = 1.5;
  t.plateau_split_sm = 90;
  return t;
}();

// 2.18: per-node LL128 tables (Hopper tree LL128 29.0 on 4+ nodes), Hopper tree 36.0 on 4+
// nodes, no busbw caps, NVLS on its own graph with algbw 5/6 of busbw, the plateau x1.4 from
// SM80 once 64 B a channel and rank; new generic and SM90 speeds.
constexpr TunerTables k218 = [] {
  TunerTables t = k217;
  t.tags = "v2.18.1-1..v2.18.6-1";
  t.tree_ll128_per_ch_GBps[2] = t.tree_ll128_per_ch_GBps[3] = {36.7, 36.7, 29.0};
  t.tree_per_ch_GBps[2] = t.tree_per_ch_GBps[3] = {38.7, 41.4, 36.0};
  t.total_bus_cap_GBps = {0, 0, 0, 0};
  t.nvls_alg_ratio = 5.0 / 6.0;
  t.nvls_on_ring_graph = false;
  t.plateau_high = 1.4;
  t.plateau_split_sm = 80;
  t.plateau_per_channel = true;
  t.speeds_intra = {Speeds(kIntra218), Speeds(kSm90Intra218), Speeds()};
  t.speeds_inter = {Speeds(kInter218), Speeds(kSm90Inter218), Speeds()};
  return t;
}();

// 2.19: SM90 speeds gain 50 (intra) and 22 (inter).
constexpr TunerTables k219 = [] {
  TunerTables t = k218;
  t.tags = "v2.19.1-1..v2.20.5-1";
  t.speeds_intra[1] = Speeds(kSm90Intra219);
  t.speeds_inter[1] = Speeds(kSm90Inter219);
  return t;
}();

// 2.21: Hopper llMaxBws 141/45/35, ring LL at 0.5 of busbw, SM90 intra speeds gain 11.
constexpr TunerTables k221 = [] {
  TunerTables t = k219;
  t.tags = "v2.21.5-1..v2.22.3-1";
  t.ll_max_GBps[2] = t.ll_max_GBps[3] = kHopperLl;
  t.ring_ll_factor = 0.5;
  t.speeds_intra[1] = Speeds(kSm90Intra221);
  return t;
}();

// 2.23: ring LL128 at 0.92 whatever the GPUs per node; one GPU per node: NET of the tree.
constexpr TunerTables k223 = [] {
  TunerTables t = k221;
  t.tags = "v2.23.4-1..v2.24.3-1";
  t.ring_ll128_one_ppn_0_7 = false;
  t.ring_ppn1_tree_net_latency = true;
  return t;
}();

// 2.25: the Blackwell rows, twice Hopper's; SM100 speeds (inter: the SM90 list).
constexpr TunerTables k225 = [] {
  TunerTables t = k223;
  t.tags = "v2.25.1-1..v2.26.6-1";
  t.arch_rule = TunerArchRule::kFloorSm100;
  t.ll_max_GBps[3] = kBlackwellLl;
  t.ring_ll128_per_ch_GBps[3] = {2 * 36.7, 2 * 36.7, 2 * 36.7};
  t.tree_ll128_per_ch_GBps[3] = {2 * 36.7, 2 * 36.7, 2 * 29.0};
  t.tree_per_ch_GBps[3] = {2 * 38.7, 2 * 41.4, 2 * 36.0};
  t.speeds_intra[2] = Speeds(kSm100Intra225);
  t.speeds_inter[2] = Speeds(kSm90Inter219);
  return t;
}();

// 2.27: SM100 speeds 96 (inter) and 18 (intra); SM100_NVLINK_BW 40.1 (v2.27.7-1).
constexpr TunerTables k227 = [] {
  TunerTables t = k225;
  t.tags = "v2.27.3-1..v2.27.7-1";
  t.sm100_nvlink_GBps = 40.1;
  t.speeds_intra[2] = Speeds(kSm100Intra227);
  t.speeds_inter[2] = Speeds(kSm100Inter227);
  return t;
}();

// 2.28: ncclTunerConstants: Blackwell tree 70/42.8/24, tree LL128 55.6/31.67/20, ring LL128
// 34.6 on two nodes (v2.28.7-1); NVLS by nvlsEfficiency, NVLSTree capped a channel
// (Blackwell 43.8 on 4+ nodes from v2.28.9-1, 43.1 before).
constexpr TunerTables k228 = [] {
  TunerTables t = k227;
  t.tags = "v2.28.3-1..v2.28.9-1";
  t.ring_ll128_per_ch_GBps[3] = {2 * 36.7, 34.6, 2 * 36.7};
  t.tree_ll128_per_ch_GBps[3] = {55.6, 31.67, 20.0};
  t.tree_per_ch_GBps[3] = {70.0, 42.8, 24.0};
  t.nvls_tree_per_ch_GBps = {kVoltaTree, kAmpereTree, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.8}};
  t.nvls_efficiency = {0, 0, 0.85, 0.74};
  return t;
}();

// 2.29: Blackwell ring LL128 40 a channel (v2.29.7-1; 34.5/34.6/34.5 in v2.29.2-1), NVLSTree
// x treeCorrectionFactor on SM100 x86 hosts; SM100 speeds 45 (intra), 80 (inter).
constexpr TunerTables k229 = [] {
  TunerTables t = k228;
  t.tags = "v2.29.2-1..v2.29.7-1";
  t.ring_ll128_per_ch_GBps[3] = {40.0, 40.0, 40.0};
  t.nvls_tree_correction_sm100_x86 = true;
  t.speeds_intra[2] = Speeds(kSm100Intra229);
  t.speeds_inter[2] = Speeds(kSm100Inter229);
  return t;
}();

// 2.30: Blackwell NVLSTree 80 a channel on 4+ nodes; SM100 inter speeds gain 86.
constexpr TunerTables k230 = [] {
  TunerTables t = k229;
  t.tags = "v2.30.3-1..v2.30.7-1";
  t.nvls_tree_per_ch_GBps[3] = {0.0, 96.0, 80.0};
  t.speeds_inter[2] = Speeds(kSm100Inter230);
  return t;
}();

constexpr Row kRows[] = {{{2, 0}, k210},  {{2, 15}, k215}, {{2, 16}, k216}, {{2, 17}, k217},
                         {{2, 18}, k218}, {{2, 19}, k219}, {{2, 21}, k221}, {{2, 23}, k223},
                         {{2, 25}, k225}, {{2, 27}, k227}, {{2, 28}, k228}, {{2, 29}, k229},
                         {{2, 30}, k230}};

// tuning.cc baseLat / hwLat, microseconds, each row in TunerLatencies' order: tags; baseLat
// Tree, Ring; hwLat NVLink Tree, Ring; PCI Tree, Ring; NET Tree, Ring ([LL, LL128, Simple]);
// NVLS base, NVLink, NET; NVLSTree base, NVLink, NET; NVLSTree NET x 2 (nodes - 1).
// Up to 2.13: Ring NET Simple 28 us, Tree Simple 28 us everywhere.
constexpr TunerLatencies kLat210{
    "v2.10.3-1..v2.13.4-1",
    {4.4, 4.4, 0}, {3.6, 10.0, 8.4},
    {.52, 1.25, 28}, {.47, 1.9, 3.4}, {1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {5.0, 8.5, 28}, {2.7, 4.0, 28},
    0, 0, 0, 0, 0, 0, false};
// 2.14: Ring NET Simple 9.6 us.
constexpr TunerLatencies kLat214{
    "v2.14.3-1..v2.16.5-1",
    {4.4, 4.4, 0}, {3.6, 10.0, 8.4},
    {.52, 1.25, 28}, {.47, 1.9, 3.4}, {1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {5.0, 8.5, 28}, {2.7, 4.0, 9.6},
    0, 0, 0, 0, 0, 0, false};
// 2.17: NVLS baseLat 40 us.
constexpr TunerLatencies kLat217{
    "v2.17.1-1",
    {4.4, 4.4, 0}, {3.6, 10.0, 8.4},
    {.52, 1.25, 28}, {.47, 1.9, 3.4}, {1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {5.0, 8.5, 28}, {2.7, 4.0, 9.6},
    40.0, 0, 0, 0, 0, 0, false};
// 2.18 (v2.18.6-1): new bases; Tree Simple 4 / 6 / 14 us; Ring NET Simple 14; NVLS baseLat 23,
// NET 18; NVLSTree baseLat 23, NET 19 x 2 (nodes - 1).
constexpr TunerLatencies kLat218{
    "v2.18.1-1..v2.18.6-1",
    {6.8, 14.0, 0}, {6.6, 14.0, 8.4},
    {.6, 1.25, 4}, {.6, 1.9, 3.4}, {1.0, 1.9, 6}, {1.0, 2.5, 5.7}, {5.0, 8.5, 14}, {2.7, 4.0, 14.0},
    23.0, 0, 18.0, 23.0, 0, 19.0, true};
// 2.19: Tree Simple back to 28 us; NVLS and NVLSTree hwLat NVLINK 23, NVLSTree NET 14.
constexpr TunerLatencies kLat219{
    "v2.19.1-1..v2.20.5-1",
    {6.8, 14.0, 0}, {6.6, 14.0, 8.4},
    {.6, 1.25, 28}, {.6, 1.9, 3.4}, {1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {5.0, 8.5, 28}, {2.7, 4.0, 14.0},
    0, 23.0, 18.0, 0, 23.0, 14.0, false};
// 2.21: NVLS and NVLSTree hwLat NVLINK 25.
constexpr TunerLatencies kLat221{
    "v2.21.5-1..v2.22.3-1",
    {6.8, 14.0, 0}, {6.6, 14.0, 8.4},
    {.6, 1.25, 28}, {.6, 1.9, 3.4}, {1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {5.0, 8.5, 28}, {2.7, 4.0, 14.0},
    0, 25.0, 18.0, 0, 25.0, 14.0, false};
// 2.23: Tree Simple baseLat 8.4, hwLat 4 / 4 / 14 us.
constexpr TunerLatencies kLat223{
    "v2.23.4-1..v2.27.7-1",
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4},
    {.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {5.0, 8.5, 14}, {2.7, 4.0, 14.0},
    0, 25.0, 18.0, 0, 25.0, 14.0, false};
// 2.28 (v2.28.9-1; 14 in v2.28.3-1 and v2.28.7-1): NVLSTree NET 20.9 us.
constexpr TunerLatencies kLat228{
    "v2.28.9-1..v2.30.7-1",
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4},
    {.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {5.0, 8.5, 14}, {2.7, 4.0, 14.0},
    0, 25.0, 18.0, 0, 25.0, 20.9, false};

struct LatencyRow {
  NcclVersion from;
  TunerLatencies latencies;
};
constexpr LatencyRow kLatencyRows[] = {{{2, 0}, kLat210},  {{2, 14}, kLat214}, {{2, 17}, kLat217},
                                       {{2, 18}, kLat218}, {{2, 19}, kLat219}, {{2, 21}, kLat221},
                                       {{2, 23}, kLat223}, {{2, 28}, kLat228}};

}  // namespace

const TunerLatencies& tuner_latencies(NcclVersion v) {
  const TunerLatencies* found = &kLatencyRows[0].latencies;
  for (const LatencyRow& r : kLatencyRows) {
    if (r.from <= v) found = &r.latencies;
  }
  return *found;
}

const TunerTables& tuner_tables(NcclVersion v) {
  const TunerTables* found = &kRows[0].tables;
  for (const Row& r : kRows) {
    if (r.from <= v) found = &r.tables;
  }
  return *found;
}

bool tuner_ll128_arch_enabled(NcclVersion v, int sm) {
  if (!v.at_least(2, 5)) return false;  // LL128 arrived in 2.5 (NCCL_PROTO_LL128, v2.5.6-1)
  if (v.at_least(2, 27)) return sm >= 70;
  if (sm == 70 || sm == 80) return true;
  if (sm == 90) return v.at_least(2, 15);
  if (sm == 100 || sm == 120) return v.at_least(2, 25);
  return false;
}

int tuner_arch_index(const TunerTables& t, int sm) {
  switch (t.arch_rule) {
    case TunerArchRule::kSm80Only: return sm == 80 ? 1 : 0;
    case TunerArchRule::kExactSm80Sm90: return sm == 80 ? 1 : sm == 90 ? 2 : 0;
    case TunerArchRule::kFloor: return sm >= 90 ? 2 : sm >= 80 ? 1 : 0;
    case TunerArchRule::kFloorSm100: break;
  }
  return sm >= 100 ? 3 : sm >= 90 ? 2 : sm >= 80 ? 1 : 0;
}

std::span<const double> tuner_search_speeds(const TunerTables& t, int sm, bool inter_node) {
  const auto& lists = inter_node ? t.speeds_inter : t.speeds_intra;
  if (sm >= 100 && !lists[2].empty()) return lists[2];
  if (sm >= 90 && !lists[1].empty()) return lists[1];
  return lists[0];
}

}  // namespace linksim::detail
