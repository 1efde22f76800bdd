// SPDX-License-Identifier: Apache-2.0
// Times the collectives of a plan on the GPUs each group really uses, through the collective
// engine, with one communicator per distinct GPU set and one answer per distinct question.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "linksim/collective_rows.hpp"
#include "linksim/collectives.hpp"
#include "linksim/topology.hpp"

namespace linksim::plan_detail {

struct TimedCollective {
  double time_s = 0;
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  Bottleneck bottleneck;  ///< what limits one call; in words: describe_bottleneck
};

/// Not thread-safe: one per planning thread. REQUIRES: the topology outlives it.
class CommTimer {
 public:
  CommTimer(const Topology& topology, CommOptions options, SimMode mode);

  /// One call of `op` of nccl-tests size `bytes` on `gpus` (a group of >= 2 GPUs).
  TimedCollective time(const std::vector<DeviceId>& gpus, CollectiveOp op, double bytes);

  const Topology& topology() const { return topology_; }

 private:
  const Communicator& communicator(const std::vector<DeviceId>& gpus);

  const Topology& topology_;
  CommOptions options_;
  SimMode mode_;
  std::map<std::vector<DeviceId>, std::unique_ptr<Communicator>> communicators_;
  std::map<std::tuple<const Communicator*, int, double>, TimedCollective> answers_;
};

/// "gpu0-3", "gpu0, gpu2" or "host0:gpu0, host1:gpu0, ... (16 GPUs)" for a table cell.
std::string describe_gpus(const Topology& topology, const std::vector<DeviceId>& gpus);

}  // namespace linksim::plan_detail
