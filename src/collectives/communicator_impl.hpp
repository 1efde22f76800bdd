// SPDX-License-Identifier: Apache-2.0
// The state behind a Communicator, shared by its queries (communicator.cpp), its
// explanations (explain_collective.cpp) and its NCCL debug log (nccl_debug.cpp).
#pragma once

#include "collectives/comm_graph.hpp"
#include "linksim/collectives.hpp"

namespace linksim {

struct Communicator::Impl {
  Impl(const Topology& topology, std::vector<DeviceId> ranks, const CommOptions& options)
      : graph(topology, std::move(ranks), options) {}
  Impl(const Impl& sibling, std::vector<DeviceId> ranks, const CommOptions& options)
      : graph(sibling.graph.topology(), std::move(ranks), options, sibling.graph) {}
  detail::CommGraph graph;  // holds a mutex: built in place, never moved
};

namespace detail {
/// Throws ConfigError for a query no communicator of `g` can run: a message size below 0 or
/// above kMaxSizeBytes, a Broadcast or Reduce root that is not a rank.
void check_query(const CommGraph& g, const CollectiveQuery& query);
}  // namespace detail

}  // namespace linksim
