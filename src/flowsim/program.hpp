// SPDX-License-Identifier: Apache-2.0
// The flat storage of a flow program: transfers, their sub-flows and dependencies as CSR arrays,
// and the validation and appending shared by FlowSimulator and StepBuilder.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
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
  /// Empties the transfers, keeping capacities, options and allocated storage.
  void clear_transfers();
};

/// Throws ConfigError unless every capacity is finite and > 0 and the precision in [0, 1).
void check_setup(const std::vector<double>& capacities_Bps, const FlowSimOptions& options);

/// How error messages name a transfer: "transfer 3" or "step 7, transfer 3".
struct TransferLabel {
  uint32_t index = 0;
  std::optional<uint64_t> step;
};

/// Throws ConfigError "flowsim: <label>: <what>".
[[noreturn]] void reject(const TransferLabel& label, std::string_view what);

/// Checks everything of `spec` but its dependencies against `resources` (the resource count)
/// and `precision`; throws ConfigError naming `label` (FlowSimulator::add_transfer's contract).
void check_transfer(const TransferSpec& spec, const TransferLabel& label, std::size_t resources,
                    double precision);

/// Appends `spec` as the next transfer. REQUIRES: check_transfer passed and every dependency
/// is valid for the program's numbering.
void append_transfer(Program& program, const TransferSpec& spec);

}  // namespace linksim::flowsim_internal
