// SPDX-License-Identifier: Apache-2.0
// A graph NCCL's search finds (NVIDIA/nccl src/graph/search.cc; docs/model.md#tuner).
#pragma once

namespace linksim::detail {

/// A graph NCCL's search would find: channels at a per-channel speed, GB/s.
struct SearchedGraph {
  int channels = 0;
  double speed_GBps = 0;
  double total_GBps() const { return channels * speed_GBps; }
};

}  // namespace linksim::detail
