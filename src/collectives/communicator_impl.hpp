// SPDX-License-Identifier: Apache-2.0
// Communicator's state: the communicator's structure (comm_graph.hpp), built once.
#pragma once

#include "collectives/comm_graph.hpp"
#include "linksim/collectives.hpp"

namespace linksim {

struct Communicator::Impl {
  Impl(const Topology& topology, std::vector<DeviceId> ranks, const CommOptions& options)
      : graph(topology, std::move(ranks), options) {}
  detail::CommGraph graph;  // holds a mutex: built in place, never moved
};

}  // namespace linksim
