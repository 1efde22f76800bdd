// SPDX-License-Identifier: Apache-2.0
// `topo lint` internals: rule ids and thresholds, each with its source
// (docs/verify-and-lint.md#lint-rules). The entry point is lint_topology in sysimport.hpp.
#pragma once

#include <string_view>

#include "linksim/sysimport.hpp"

namespace linksim::sysimport {

inline constexpr std::string_view kRuleGdrLost = "gdr-lost";
inline constexpr std::string_view kRulePcieOversubscribed = "pcie-oversubscribed";
inline constexpr std::string_view kRuleNvlinkLanes = "nvlink-lanes";
inline constexpr std::string_view kRuleP2pDisabled = "p2p-disabled";
inline constexpr std::string_view kRuleP2pLevel = "p2p-level";
inline constexpr std::string_view kRuleNicRail = "nic-rail";
inline constexpr std::string_view kRuleRingCrossesSocket = "ring-crosses-socket";
inline constexpr std::string_view kRuleNvlinkAsymmetric = "nvlink-asymmetric";

/// NCCL's default NCCL_NET_GDR_LEVEL: PATH_PXB (NVIDIA/nccl src/graph/paths.cc,
/// ncclTopoCheckGdr). The P2P level's default depends on the CPU: Router::p2p_level().
inline constexpr PathClass kNcclDefaultGdrLevel = PathClass::kPxb;
/// Most GPUs one NIC may serve before inter-server bandwidth per GPU falls below the rail
/// designs NVIDIA ships: one NIC per GPU (DGX A100/H100), one per GPU pair (DGX-1).
inline constexpr int kMaxGpusPerNic = 2;

}  // namespace linksim::sysimport
