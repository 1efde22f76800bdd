// SPDX-License-Identifier: Apache-2.0
// One call of the same collective on several communicators at the same time, lowered to flows
// and simulated as ONE flow simulation over the machine's links: where the groups cross a
// common link (a NIC, a PCIe switch's uplink, a socket link, a fabric trunk) they share it by
// max-min fairness (docs/planner.md#shared-links, docs/flowsim.md#joint).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "linksim/collectives.hpp"

namespace linksim {

/// One communicator's part of a concurrent call.
struct ConcurrentCall {
  Algorithm algorithm = Algorithm::kRing;  ///< as run() chooses it for this communicator
  Protocol protocol = Protocol::kSimple;
  /// When its own last transfer finished, seconds from the common start; run()'s closed form
  /// when its call moves no data or its algorithm has no flow lowering.
  double time_s = 0;
  /// The other communicators (indices into the list given) whose transfers cross a link its
  /// transfers cross, ascending.
  std::vector<int> shared_with;
  /// Of the links it crosses together with another communicator, the one saturated longest in
  /// the joint run (ties: the lowest id); nullopt when none was saturated.
  std::optional<LinkId> shared_link;
  double shared_link_busy_s = 0;  ///< its saturated time in the joint run, seconds
  /// The other communicators whose transfers cross shared_link, ascending.
  std::vector<int> shared_link_with;
};

/// `query` on every communicator of `comms` at once (query.mode is ignored: flow), each with the
/// algorithm and protocol run() chooses for it, its transfers starting at time 0 after its own
/// latency and fill. A link crossed by groups of different protocols runs at the least of
/// their capacities. By communicator, in the order given.
/// REQUIRES: every communicator is on the same Topology object.
/// Throws ConfigError as run() does, and when all groups' transfers together exceed what one
/// flow-mode call may hold.
std::vector<ConcurrentCall> run_concurrent(std::span<const Communicator* const> comms,
                                           const CollectiveQuery& query);

}  // namespace linksim
