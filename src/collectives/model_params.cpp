// SPDX-License-Identifier: Apache-2.0
// Architecture-dependent constants of the collective model (sources in docs/model.md).
#include "collectives/model_params.hpp"

#include <algorithm>
#include <cmath>

namespace linksim::detail {

ArchCaps arch_caps(int sm) {
  // NCCL tuning.cc: llMaxBws (single node by arch; two or more nodes, Intel row),
  // perChMaxRingLL128Bws. GB/s.
  if (sm >= 100) return {282.0, 90.0, 40.0};
  if (sm >= 90) return {141.0, 45.0, 36.7};
  if (sm >= 80) return {87.7, 22.5, 20.0};
  return {39.0, 39.0, 20.0};
}

double nccl_nvlink_bw_Bps(int sm) {
  // NCCL topo.h per-NVLink bandwidth (GB/s, per direction) by SM generation.
  double nccl_GBps = 20.0;
  if (sm >= 100) nccl_GBps = 40.1;
  else if (sm >= 90) nccl_GBps = 20.6;
  else if (sm == 86 || sm == 87 || sm == 89) nccl_GBps = 12.0;
  else if (sm >= 70) nccl_GBps = 20.0;
  else if (sm >= 60) nccl_GBps = 18.0;
  return nccl_GBps * 1e9;
}

double measured_nvlink_efficiency(int sm) {
  // The lowest large-message busbw of the published single-server tables of the generation over
  // the GPUs' raw NVLink rate, where several tables measure it (docs/model.md#link-efficiency);
  // 0 elsewhere.
  if (sm >= 100) return 0.0;
  if (sm >= 90) return 361.86 / 450.0;                    // 8x H100 AllGather, 16 GiB (54)
  if (sm >= 80 && sm < 86) return 234.72 / 300.0;         // 4x A100 AllReduce, 8 GiB (08)
  if (sm >= 70 && sm < 80) return 42.36 / 50.0;           // V100 NV2 pair, 32 MiB (39)
  return 0.0;
}

double nvlink_efficiency(int sm, double catalog_lane_bw_Bps) {
  if (const double measured = measured_nvlink_efficiency(sm); measured > 0) return measured;
  if (catalog_lane_bw_Bps <= 0) return 0.8;
  return std::min(1.0, nccl_nvlink_bw_Bps(sm) / catalog_lane_bw_Bps);
}


NetworkKind network_kind(std::string_view link_type) {
  if (link_type.starts_with("ib_")) return NetworkKind::kInfiniBand;
  if (link_type.starts_with("roce_")) return NetworkKind::kRoce;
  if (link_type.starts_with("efa")) return NetworkKind::kEfa;
  if (link_type.starts_with("tcpxo_")) return NetworkKind::kTcpxo;
  if (link_type.starts_with("tcpx_")) return NetworkKind::kTcpx;
  return NetworkKind::kOther;
}

const char* to_string(NetworkKind kind) {
  switch (kind) {
    case NetworkKind::kInfiniBand: return "InfiniBand";
    case NetworkKind::kRoce: return "RoCE";
    case NetworkKind::kEfa: return "EFA";
    case NetworkKind::kTcpx: return "GPUDirect-TCPX";
    case NetworkKind::kTcpxo: return "GPUDirect-TCPXO";
    case NetworkKind::kOther: break;
  }
  return "other";
}

double net_step_excess_us(NetworkKind kind) {
  // InfiniBand and RoCE: one figure, since NCCL's IB transport runs both (verbs over either
  // link layer, src/transport/net_ib.cc): the median of the 70 per-step excesses at 8 B-512 B
  // of calibrations 71 (ring LL), 106, 108 (tree LL) on InfiniBand and 16 (tree LL), 109 (ring
  // LL) on RoCE; TCPXO: calibration 101's median excess at 8 B-256 B, 98.15 us over its two
  // network steps; EFA: calibration 107's at 8 B-2 KiB, 52.36 us over its two
  // (model_params.hpp, docs/model.md#net-steps).
  switch (kind) {
    case NetworkKind::kInfiniBand:
    case NetworkKind::kRoce: return 2.45;
    case NetworkKind::kTcpxo: return 98.15 / 2;
    case NetworkKind::kEfa: return 52.36 / 2;
    default: return 0.0;
  }
}

namespace {
constexpr double kPerChannel_Bps = 20e9;  // about one NVLink: the ring rate of one channel
}  // namespace

int default_channels(double ring_bw_Bps) {
  const int n = static_cast<int>(std::lround(ring_bw_Bps / kPerChannel_Bps));
  return std::clamp(n, 2, 32);
}

double channel_limited_Bps(double ring_bw_Bps, int channels) {
  if (channels <= 0) return ring_bw_Bps;
  const double per_channel_Bps =
      std::max(kPerChannel_Bps, ring_bw_Bps / default_channels(ring_bw_Bps));
  return std::min(ring_bw_Bps, channels * per_channel_Bps);
}

}  // namespace linksim::detail
