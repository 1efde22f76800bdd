// SPDX-License-Identifier: Apache-2.0
// N-1 contingency: every single fault of each class (include/linksim/faults.hpp) in turn,
// ranked by what it costs a collective or a plan (`linksim topo contingency`,
// docs/cli.md#contingency).
#pragma once

#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/plan.hpp"

namespace linksim {

/// One single fault and what it costs.
struct ContingencyRow {
  std::string fault_class;  ///< FaultCase::fault_class
  std::string fault;        ///< the fault as --degrade spells it
  bool runs = true;         ///< false: the collective or plan cannot run with the fault
  std::string error;        ///< why it cannot run
  /// Collective: busbw per requested size, bytes/s. Plan: one value, the step time, s.
  std::vector<double> values;
  /// The fraction lost: collective, the mean over sizes of 1 - busbw / nominal busbw; plan,
  /// step time / nominal step time - 1. Infinite when it cannot run.
  double cost = 0;
};

struct ContingencyReport {
  std::string topology;
  std::string subject;  ///< "allreduce", ... or "plan"
  std::vector<double> sizes_bytes;  ///< collective: the sizes asked for; plan: empty
  std::vector<double> nominal;      ///< the values without a fault (as ContingencyRow::values)
  std::vector<ContingencyRow> rows;             ///< every fault tried, costliest first
  std::vector<ContingencyRow> worst_per_class;  ///< the costliest of each class, costliest first
};

/// Every single fault against the collective `request` on the GPUs `selection` picks (on the
/// machine with the fault; a selection it cannot satisfy is a fault that stops the run).
/// Throws ConfigError when the collective cannot run on the machine without faults.
ContingencyReport collective_contingency(const Topology& topology, const GpuSelection& selection,
                                         const CommOptions& options, const SweepRequest& request);

/// Every single fault against the plan `request`. Throws ConfigError when the plan cannot be
/// made on the machine without faults.
ContingencyReport plan_contingency(const Topology& topology, const PlanRequest& request);

}  // namespace linksim
