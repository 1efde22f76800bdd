// SPDX-License-Identifier: Apache-2.0
// The structural half of nccl_debug: the ring channels with every hop's transport, the ring
// graph's summary and the double binary tree, read from a CommGraph's rings and routes.
#pragma once

#include <vector>

#include "collectives/comm_graph.hpp"
#include "linksim/nccl_debug.hpp"

namespace linksim::detail {

/// Channel c runs ring c mod R of the engine's R rings, for g.channels() channels (NCCL
/// duplicates its rings the same way: connect.cc, copyChannels).
std::vector<NcclRingChannel> ring_channels(const CommGraph& g);

/// The summary of `channels` (the result of ring_channels(g)).
NcclRingGraph ring_graph(const CommGraph& g, const std::vector<NcclRingChannel>& channels);

/// Tree 0 and tree 1: the chains of tree_chains(g), their heads joined by NCCL's binary tree
/// of servers and by NCCL's second tree (lowering.hpp, second_btree_parent).
std::vector<NcclTree> double_tree(const CommGraph& g);

}  // namespace linksim::detail
