// SPDX-License-Identifier: Apache-2.0
#include "plan/comm_timer.hpp"

#include <algorithm>
#include <set>
#include <fmt/core.h>

#include "linksim/collective_rows.hpp"
#include "linksim/concurrent_collectives.hpp"
#include "linksim/flowsim.hpp"

namespace linksim::plan_detail {
namespace {

// The bandwidth-bound part of a call alone: its time less that of the same algorithm and
// protocol for an empty message (the latency and fill alone), seconds.
double bandwidth_bound_s(const Communicator& comm, CollectiveOp op, const TimedCollective& alone) {
  CollectiveQuery empty;
  empty.op = op;
  empty.size_bytes = 0;
  empty.mode = SimMode::kAnalytic;
  empty.algorithm = alone.algorithm;
  empty.protocol = alone.protocol;
  return std::max(0.0, alone.time_s - comm.run(empty).time_s);
}

}  // namespace

CommTimer::CommTimer(const Topology& topology, CommOptions options, SimMode mode)
    : topology_(topology), options_(options), mode_(mode) {}

const Communicator& CommTimer::communicator(const std::vector<DeviceId>& gpus) {
  auto it = communicators_.find(gpus);
  if (it == communicators_.end()) {
    // Groups after the first share its topology-wide tables (capacities, fabric routes).
    auto made = communicators_.empty()
                    ? std::make_unique<Communicator>(topology_, gpus, options_)
                    : std::make_unique<Communicator>(*communicators_.begin()->second, gpus, options_);
    it = communicators_.emplace(gpus, std::move(made)).first;
  }
  return *it->second;
}

const CommTimer::Answer& CommTimer::answer(const std::vector<DeviceId>& gpus, CollectiveOp op,
                                           double bytes) {
  const Communicator& comm = communicator(gpus);
  const auto key = std::make_tuple(&comm, int(op), bytes);
  if (auto it = answers_.find(key); it != answers_.end()) return it->second;
  CollectiveQuery query;
  query.op = op;
  query.size_bytes = bytes;
  query.mode = mode_;
  const CollectiveResult r = comm.run(query);
  Answer a;
  a.timed.time_s = r.time_s;
  a.timed.algorithm = r.algorithm;
  a.timed.protocol = r.protocol;
  a.timed.bottleneck = r.bottleneck;
  a.timed.alone_s = r.time_s;
  for (const LinkUsage& u : r.link_usage) {
    if (u.busy_s > 0) a.busy_s.emplace_back(u.link, u.busy_s);
    if (u.bytes > 0) a.carried.push_back(u.link);
  }
  std::sort(a.carried.begin(), a.carried.end());
  if (a.busy_s.empty() && r.bottleneck.kind == BottleneckKind::kLink && bytes > 0) {
    // No per-link usage (tree, direct patterns): the bottleneck link is busy for the
    // bandwidth-bound part of the call.
    const double busy_s = bandwidth_bound_s(comm, op, a.timed);
    if (busy_s > 0) a.busy_s.emplace_back(r.bottleneck.link, busy_s);
  }
  return answers_.emplace(key, std::move(a)).first->second;
}

TimedCollective CommTimer::time(const std::vector<DeviceId>& gpus, CollectiveOp op, double bytes) {
  return answer(gpus, op, bytes).timed;
}

bool CommTimer::may_share(const std::vector<DeviceId>& own, LinkId link) const {
  // A GPU's own NVLink or PCIe link is its alone. Links between network switches are left
  // out: which trunk a flow takes is the fabric's routing choice (adaptive routing spreads
  // it), not something the groups' placement fixes.
  const Link& l = topology_.link(link);
  const bool touches_group = std::find(own.begin(), own.end(), l.from) != own.end() ||
                             std::find(own.begin(), own.end(), l.to) != own.end();
  const bool fabric_trunk = topology_.device(l.from).kind == DeviceKind::kNetSwitch &&
                            topology_.device(l.to).kind == DeviceKind::kNetSwitch;
  return !touches_group && !fabric_trunk;
}

std::vector<size_t> CommTimer::neighbours(const std::vector<std::vector<DeviceId>>& groups,
                                          const std::vector<LinkId>& links) const {
  // A group's traffic stays on the servers of its GPUs (and the fabric between them): only a
  // group with a GPU on a server holding one of the links can load it. A link outside every
  // server (a switch tray of its own) could be loaded by any group.
  std::set<int> servers;
  bool outside_servers = false;
  for (LinkId link : links) {
    const Link& l = topology_.link(link);
    const std::optional<int> from = topology_.device(l.from).host;
    const std::optional<int> to = topology_.device(l.to).host;
    if (from) servers.insert(*from);
    if (to) servers.insert(*to);
    outside_servers = outside_servers || (!from && !to);
  }
  std::vector<size_t> out;
  for (size_t g = 1; g < groups.size(); ++g) {
    const bool may_load =
        outside_servers || std::any_of(groups[g].begin(), groups[g].end(), [&](DeviceId gpu) {
          const std::optional<int> host = topology_.device(gpu).host;
          return !host || servers.count(*host) > 0;
        });
    if (may_load) out.push_back(g);
  }
  return out;
}

TimedCollective CommTimer::time_concurrent(const std::vector<DeviceId>& own,
                                           const GroupList& list_groups, CollectiveOp op,
                                           double bytes) {
  const auto key = std::make_tuple(&communicator(own), int(op), bytes);
  if (auto it = shared_answers_.find(key); it != shared_answers_.end()) return it->second;
  if (mode_ == SimMode::kFlow) {
    return shared_answers_.emplace(key, time_jointly(own, list_groups, op, bytes)).first->second;
  }
  const Answer own_answer = answer(own, op, bytes);
  TimedCollective t = own_answer.timed;
  // Only the links another disjoint group of its kind can load are compared. A group with no
  // candidate shares nothing and the other groups need not be timed.
  std::map<LinkId, double> total_s;
  double own_s = 0;
  for (const auto& [link, busy] : own_answer.busy_s) {
    own_s = std::max(own_s, busy);
    if (may_share(own, link)) total_s.emplace(link, busy);
  }
  std::map<LinkId, std::vector<size_t>> loaders;  // the other groups loading each link
  std::vector<std::vector<DeviceId>> groups;
  if (!total_s.empty()) {
    std::vector<LinkId> links;
    for (const auto& [link, busy] : total_s) links.push_back(link);
    groups = list_groups();
    for (size_t g : neighbours(groups, links)) {
      for (const auto& [link, busy] : answer(groups[g], op, bytes).busy_s) {
        auto it = total_s.find(link);
        if (it == total_s.end()) continue;
        it->second += busy;
        loaders[link].push_back(g);
      }
    }
  }
  // The busiest shared link sets the bandwidth-bound time: what it carries for every group
  // beyond the group's own bandwidth-bound time adds to the call. That time is at least its
  // busiest link's busy time, and longer when something else limits the call (a host-staged
  // copy): sharing slows such a call only past it.
  double busiest_s = 0;
  for (const auto& [link, busy] : total_s) {
    if (!loaders[link].empty() && busy > busiest_s) {
      busiest_s = busy;
      t.shared_link = link;
    }
  }
  if (busiest_s > own_s) own_s = std::max(own_s, bandwidth_bound_s(communicator(own), op, t));
  const double extra_s = std::max(0.0, busiest_s - own_s);
  t.time_s += extra_s;
  if (extra_s > 0) {
    t.shared_slowdown = t.alone_s > 0 ? t.time_s / t.alone_s : 1;
    for (size_t g : loaders[*t.shared_link]) t.shared_with.push_back(groups[g]);
    t.shared_groups = int(t.shared_with.size()) + 1;
  } else {
    t.shared_link.reset();
  }
  return shared_answers_.emplace(key, t).first->second;
}

TimedCollective CommTimer::time_jointly(const std::vector<DeviceId>& own,
                                        const GroupList& list_groups, CollectiveOp op,
                                        double bytes) {
  const Answer& own_answer = answer(own, op, bytes);
  TimedCollective t = own_answer.timed;
  std::vector<LinkId> candidates;
  for (LinkId link : own_answer.carried) {
    if (may_share(own, link)) candidates.push_back(link);
  }
  if (candidates.empty()) return t;
  // The groups whose own flows cross one of those links join the simulation; the groups
  // that cross only theirs are left out (docs/planner.md#shared-links: first neighbours).
  const std::vector<std::vector<DeviceId>> groups = list_groups();
  std::vector<size_t> joined;
  for (size_t g : neighbours(groups, candidates)) {
    const std::vector<LinkId>& carried = answer(groups[g], op, bytes).carried;
    const bool crosses = std::any_of(carried.begin(), carried.end(), [&](LinkId link) {
      return std::binary_search(candidates.begin(), candidates.end(), link);
    });
    if (crosses) joined.push_back(g);
  }
  if (joined.empty()) return t;
  std::vector<const Communicator*> comms{&communicator(own)};
  for (size_t g : joined) comms.push_back(&communicator(groups[g]));
  CollectiveQuery query;
  query.op = op;
  query.size_bytes = bytes;
  query.mode = SimMode::kFlow;
  const ConcurrentCall call = run_concurrent(comms, query).front();
  // Equal up to the simulator's tolerance (docs/flowsim.md#tolerance): not slowed.
  constexpr double kPrecision = FlowSimOptions{}.precision;
  if (!(call.time_s > t.alone_s * (1 + kPrecision))) return t;
  t.time_s = call.time_s;
  t.shared_slowdown = t.alone_s > 0 ? t.time_s / t.alone_s : 1;
  // A flow is slowed only on a saturated link, so a slowed group has a saturated shared link;
  // without one, the groups it shares any link with are named.
  t.shared_link = call.shared_link;
  for (int c : call.shared_link ? call.shared_link_with : call.shared_with) {
    t.shared_with.push_back(groups[joined[size_t(c) - 1]]);
  }
  t.shared_groups = int(t.shared_with.size()) + 1;
  return t;
}

const std::optional<CommTimer::NvlinkGroup>& CommTimer::nvlink_group(
    const std::vector<DeviceId>& gpus) {
  auto it = nvlink_groups_.find(gpus);
  if (it != nvlink_groups_.end()) return it->second;
  if (!router_) router_ = std::make_unique<Router>(topology_);
  std::optional<NvlinkGroup> group = NvlinkGroup{};
  for (size_t i = 0; i < gpus.size() && group; ++i) {
    for (size_t j = 0; j < gpus.size() && group; ++j) {
      if (i == j) continue;
      const Route r = router_->route(gpus[i], gpus[j]);
      if (r.cls != PathClass::kNvlink || r.transport != Transport::kP2p) {
        group.reset();
        break;
      }
      if (group->pair_bw_Bps == 0 || r.bw_Bps < group->pair_bw_Bps) {
        group->pair_bw_Bps = r.bw_Bps;
        group->bottleneck = r.bottleneck;
      }
      group->latency_s = std::max(group->latency_s, r.latency_s);
    }
  }
  return nvlink_groups_.emplace(gpus, group).first->second;
}

TimedCollective CommTimer::allreduce(const std::vector<DeviceId>& gpus, double bytes,
                                     const EngineModel& engine) {
  // vLLM's kernels take 2, 4, 6 or 8 GPUs (CustomAllreduce._SUPPORTED_WORLD_SIZES).
  const int n = int(gpus.size());
  const bool size_ok = n == 2 || n == 4 || n == 6 || n == 8;
  if (engine.allreduce != AllReduceImpl::kCustom || !size_ok ||
      bytes > engine.custom_allreduce_max_bytes) {
    return time(gpus, CollectiveOp::kAllReduce, bytes);
  }
  const std::optional<NvlinkGroup>& g = nvlink_group(gpus);
  if (!g || g->pair_bw_Bps <= 0) return time(gpus, CollectiveOp::kAllReduce, bytes);
  TimedCollective t;
  t.time_s = custom_allreduce_time_s(engine, n, bytes, g->pair_bw_Bps, g->latency_s);
  const double one_shot_max = n <= 4 ? engine.one_shot_max_bytes_4 : engine.one_shot_max_bytes_8;
  const bool one_shot = n == 2 || bytes < one_shot_max;
  t.algorithm = Algorithm::kDirect;
  t.protocol = Protocol::kSimple;
  t.bottleneck.kind = BottleneckKind::kLink;
  t.bottleneck.link = g->bottleneck;
  t.bottleneck.family = LinkFamily::kNvlink;
  t.implementation = one_shot ? "custom one-shot" : "custom two-shot";
  return t;
}

std::string describe_gpus(const Topology& topology, const std::vector<DeviceId>& gpus) {
  if (gpus.empty()) return {};
  const Device& first = topology.device(gpus.front());
  const Device& last = topology.device(gpus.back());
  bool consecutive_in_one_host = first.host == last.host;
  for (size_t i = 1; i < gpus.size() && consecutive_in_one_host; ++i) {
    const Device& d = topology.device(gpus[i]);
    consecutive_in_one_host = d.host == first.host && d.index == first.index + int(i);
  }
  if (consecutive_in_one_host && gpus.size() > 2) {
    std::string prefix = topology.host_count() > 1 ? fmt::format("host{}:", first.host.value_or(0)) : "";
    return fmt::format("{}gpu{}-{}", prefix, first.index, last.index);
  }
  std::string text;
  const size_t shown = std::min<size_t>(gpus.size(), 4);
  for (size_t i = 0; i < shown; ++i) {
    if (i) text += ", ";
    text += topology.display_name(gpus[i]);
  }
  if (gpus.size() > shown) text += fmt::format(", ... ({} GPUs)", gpus.size());
  return text;
}

}  // namespace linksim::plan_detail
