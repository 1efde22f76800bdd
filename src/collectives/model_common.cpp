// SPDX-License-Identifier: Apache-2.0
#include "collectives/model_common.hpp"

namespace linksim::detail {

double intra_hw_latency_us(HopClass cls, Protocol p, bool tree) {
  const int i = protocol_index(p);
  if (cls == HopClass::kNvlink) return tree ? kLat.hw_nvlink_tree[i] : kLat.hw_nvlink_ring[i];
  return tree ? kLat.hw_pcie_tree[i] : kLat.hw_pcie_ring[i];
}

Bottleneck server_nics(double per_server_Bps) {
  Bottleneck b;
  b.kind = BottleneckKind::kServerNics;
  b.rate_Bps = per_server_Bps;
  return b;
}

}  // namespace linksim::detail
