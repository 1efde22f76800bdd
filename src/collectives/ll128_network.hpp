// SPDX-License-Identifier: Apache-2.0
// Whether NCCL enables LL128 by default across servers, from the path between each GPU and
// the NIC it sends through (src/graph/tuning.cc, ncclTopoTuneModel; docs/model.md#ll128-net).
#pragma once

#include "collectives/comm_graph.hpp"

namespace linksim::detail {

/// NCCL's class of the GPU-NIC legs its graphs use (their `typeInter`) admits LL128: every
/// rank reaches its NIC within PXB, or, on SM90 and later, through a PXN proxy (NCCL 2.17 on)
/// or from its CPU over NVLink-C2C (P2C, NCCL 2.27 on). True on one server.
bool ll128_network_path_allowed(const CommGraph& graph);

}  // namespace linksim::detail
