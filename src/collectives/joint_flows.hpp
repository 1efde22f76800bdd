// SPDX-License-Identifier: Apache-2.0
// The transfers of several communicators' lowerings recorded for ONE flow simulation on the
// machine's links, so that groups running a call at the same time share the links they
// cross by max-min fairness (docs/planner.md#shared-links, docs/flowsim.md#joint).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/flowsim.hpp"

namespace linksim::detail {

class JointFlows {
 public:
  /// `link_capacities_Bps`: a capacity for every link of the topology (bytes/s, finite, > 0),
  /// kept for links no recorded transfer crosses. `op`: the call lowered, for messages.
  JointFlows(std::vector<double> link_capacities_Bps, CollectiveOp op);

  /// The transfers recorded from now on belong to the next group (0, 1, ... in call order).
  void begin_group();
  int group_count() const { return int(group_first_.size()); }

  /// Records one transfer of the current group. `capacities_Bps` are the link capacities its
  /// lowering runs at (the effective capacities times its protocol's efficiency): a link
  /// takes them from the first group that crosses it, and the least of them when groups
  /// with different protocols cross it. REQUIRES: begin_group() was called; spec.after empty.
  /// Throws ConfigError past the transfers one lowering may hold (check_size, lowering.hpp),
  /// counted over all groups.
  void add(const TransferSpec& spec, const std::vector<double>& capacities_Bps);

  /// The simulation of every recorded transfer at once.
  struct Outcome {
    /// By group: when its last transfer finished, seconds from the common start (0 without
    /// transfers).
    std::vector<double> finish_s;
    /// By group: the links its transfers cross, ascending ids.
    std::vector<std::vector<uint32_t>> links;
    /// By link id: bytes and saturated time in the joint run.
    std::vector<ResourceUsage> usage;
  };
  Outcome run() const;

 private:
  struct Path {
    uint32_t first = 0;  ///< into resources_
    uint32_t count = 0;
    double share = 1;
  };
  struct Transfer {
    double bytes = 0;
    double latency_s = 0;
    double rate_cap_Bps = kUnlimitedRate;
    uint32_t first_path = 0;  ///< into paths_
    uint32_t path_count = 0;
  };
  void record_path(std::span<const ResourceId> resources, double share,
                   const std::vector<double>& capacities_Bps);

  std::vector<double> capacities_Bps_;
  CollectiveOp op_;
  std::vector<bool> claimed_;  ///< by link: a recorded transfer crosses it
  std::vector<ResourceId> resources_;
  std::vector<Path> paths_;
  std::vector<Transfer> transfers_;
  std::vector<uint32_t> group_first_;  ///< by group: its first transfer's index
};

}  // namespace linksim::detail
