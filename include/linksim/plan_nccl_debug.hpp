// SPDX-License-Identifier: Apache-2.0
// `plan --nccl-debug`: what NCCL_DEBUG=INFO would report for each communicator of a plan (TP,
// DP, PP, EP, ... groups), with the calls of that group the plan timed.
#pragma once

#include <string>
#include <vector>

#include "linksim/nccl_debug.hpp"
#include "linksim/plan.hpp"

namespace linksim {

struct NcclDebugGroup {
  std::string kind;    ///< PlanComm::kind: "tp", "tp_sp", "pp", "dp", "zero", "cp", "ep"
  std::string gpus;    ///< PlanComm::gpus
  NcclDebugInfo info;  ///< the group's communicator; one call per distinct (collective, size)
};

/// One entry per distinct (kind, GPUs) among result.comms with at least two GPUs, in the order
/// of result.comms. Each group's communicator is set up with request.comm, as the planner's
/// own; each call's size is PlanComm::bytes, its count that size in request.dtype elements.
std::vector<NcclDebugGroup> plan_nccl_debug(const Topology& topology, const PlanRequest& request,
                                            const PlanResult& result);

}  // namespace linksim
