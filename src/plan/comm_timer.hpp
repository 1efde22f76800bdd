// SPDX-License-Identifier: Apache-2.0
// Times the collectives of a plan on the GPUs each group really uses, through the collective
// engine, with one communicator per distinct GPU set and one answer per distinct question.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "linksim/collective_rows.hpp"
#include "linksim/collectives.hpp"
#include "linksim/engine.hpp"
#include "linksim/routing.hpp"
#include "linksim/topology.hpp"

namespace linksim::plan_detail {

struct TimedCollective {
  double time_s = 0;
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  Bottleneck bottleneck;  ///< what limits one call; in words: describe_bottleneck
  /// "nccl", or the engine's kernel: "custom one-shot", "custom two-shot"
  std::string implementation = "nccl";
  /// time_concurrent: the call timed alone on its group, and what the groups of its kind that
  /// run at the same time cost it (docs/planner.md#shared-links): time_s / alone_s, the link
  /// they share most and how many groups load it. 1, none, 0 when nothing is shared.
  double alone_s = 0;
  double shared_slowdown = 1;
  std::optional<LinkId> shared_link;
  int shared_groups = 0;
  /// By whom: the other groups that load shared_link (shared_groups - 1 of them), as listed.
  std::vector<std::vector<DeviceId>> shared_with;
};

/// Not thread-safe: one per planning thread. REQUIRES: the topology outlives it.
class CommTimer {
 public:
  CommTimer(const Topology& topology, CommOptions options, SimMode mode);

  /// One call of `op` of nccl-tests size `bytes` on `gpus` (a group of >= 2 GPUs).
  TimedCollective time(const std::vector<DeviceId>& gpus, CollectiveOp op, double bytes);

  /// Every group of a kind, the timed one first; listed only when a call needs them.
  using GroupList = std::function<std::vector<std::vector<DeviceId>>()>;

  /// One call of `op` on `own` while every group `groups()` lists (`own` first) runs the same
  /// call (docs/planner.md#shared-links). Analytic: where they load a common link (a NIC, a
  /// PCIe uplink, a socket link) its busy time adds up and the bandwidth-bound part of the
  /// call stretches to the busiest such link's total; the latency terms stay. Flow: `own` and
  /// the groups that cross one of those links are simulated together (run_concurrent) and the
  /// call takes until `own`'s last transfer ends.
  TimedCollective time_concurrent(const std::vector<DeviceId>& own, const GroupList& groups,
                                  CollectiveOp op, double bytes);

  /// One AllReduce of `bytes` on `gpus` as the engine runs it: its custom kernels when they
  /// apply (every pair of the group on NVLink in one server, a group size they take, a
  /// message within their limit; docs/serving.md#custom-all-reduce), else NCCL's.
  TimedCollective allreduce(const std::vector<DeviceId>& gpus, double bytes,
                            const EngineModel& engine);

  const Topology& topology() const { return topology_; }

 private:
  const Communicator& communicator(const std::vector<DeviceId>& gpus);
  /// The slowest NVLink pair of a group when every pair is on NVLink, else nullopt.
  struct NvlinkGroup {
    double pair_bw_Bps = 0;
    double latency_s = 0;
    LinkId bottleneck;
  };
  const std::optional<NvlinkGroup>& nvlink_group(const std::vector<DeviceId>& gpus);

  std::unique_ptr<Router> router_;
  std::map<std::vector<DeviceId>, std::optional<NvlinkGroup>> nvlink_groups_;

  const Topology& topology_;
  CommOptions options_;
  SimMode mode_;
  std::map<std::vector<DeviceId>, std::unique_ptr<Communicator>> communicators_;
  /// A call's answer and the seconds it keeps each link it loads busy: the collective's link
  /// usage, else its bottleneck link for the bandwidth-bound part of the call.
  struct Answer {
    TimedCollective timed;
    std::vector<std::pair<LinkId, double>> busy_s;
    std::vector<LinkId> carried;  ///< every link its link usage reports bytes on, ascending
  };
  /// The links of `own`'s answer that another disjoint group of its kind could load: those
  /// that touch none of its GPUs and join no two network switches.
  bool may_share(const std::vector<DeviceId>& own, LinkId link) const;
  /// Of `groups` (`own` first), the indices of the others with a GPU on a server holding one
  /// of `links` (all when a link lies outside every server): only they can load them.
  std::vector<size_t> neighbours(const std::vector<std::vector<DeviceId>>& groups,
                                 const std::vector<LinkId>& links) const;
  TimedCollective time_jointly(const std::vector<DeviceId>& own, const GroupList& list_groups,
                               CollectiveOp op, double bytes);
  const Answer& answer(const std::vector<DeviceId>& gpus, CollectiveOp op, double bytes);
  std::map<std::tuple<const Communicator*, int, double>, Answer> answers_;
  std::map<std::tuple<const Communicator*, int, double>, TimedCollective> shared_answers_;
};

/// "gpu0-3", "gpu0, gpu2" or "host0:gpu0, host1:gpu0, ... (16 GPUs)" for a table cell.
std::string describe_gpus(const Topology& topology, const std::vector<DeviceId>& gpus);

}  // namespace linksim::plan_detail
