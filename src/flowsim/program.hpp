// SPDX-License-Identifier: Apache-2.0
// The flat storage of a flow program: transfers, their sub-flows and dependencies as CSR arrays.
#pragma once

#include <cstdint>
#include <vector>

#include "linksim/flowsim.hpp"

namespace linksim::flowsim_internal {

/// What FlowSimulator::add_transfer records. Everything is index-based; no per-transfer
/// allocation. Invariants: the *_begin arrays have one more entry than their rows (the last
/// one is the total), and are non-decreasing.
///   sub-flows of transfer t:   [subflow_begin[t], subflow_begin[t+1])
///   resources of sub-flow f:   path_resources[resource_begin[f] .. resource_begin[f+1])
///   dependencies of t:         dependencies[dependency_begin[t] .. dependency_begin[t+1])
struct Program {
  std::vector<double> capacities_Bps;
  FlowSimOptions options;

  // Per transfer.
  std::vector<double> bytes;
  std::vector<double> latency_s;
  std::vector<double> rate_cap_Bps;
  std::vector<uint32_t> subflow_begin{0};
  std::vector<uint32_t> dependency_begin{0};

  // Per sub-flow.
  std::vector<uint32_t> resource_begin{0};
  std::vector<double> share;

  std::vector<uint32_t> path_resources;  ///< resource ids, all sub-flows back to back
  std::vector<uint32_t> dependencies;    ///< transfer ids

  uint32_t transfer_count() const { return static_cast<uint32_t>(bytes.size()); }
};

}  // namespace linksim::flowsim_internal
