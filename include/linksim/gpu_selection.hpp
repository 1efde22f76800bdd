// SPDX-License-Identifier: Apache-2.0
// Which GPUs a collective runs on: -g N, --gpus LIST, --per-node K (docs/cli.md#choosing-gpus).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "linksim/topology.hpp"

namespace linksim {

struct GpuSelection {
  std::optional<int> first_n;        ///< -g N: the first N GPUs in rank order
  std::optional<std::string> list;   ///< --gpus "0,3", "4-7", "host1:gpu3", "host1:0-3"
  std::optional<int> per_node;       ///< --per-node K: the first K GPUs of every server
};

/// Resolves a selection to ranks, server by server and by nvidia-smi index within a server.
/// With nothing selected: every GPU. Throws ConfigError for a GPU that does not exist, a
/// malformed list, N or K out of range, or conflicting options.
std::vector<DeviceId> select_gpus(const Topology& topology, const GpuSelection& selection);

}  // namespace linksim
