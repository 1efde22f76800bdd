// SPDX-License-Identifier: Apache-2.0
// run_concurrent: every communicator's lowering recorded into one JointFlows, simulated once.
#include "linksim/concurrent_collectives.hpp"

#include <algorithm>

#include "collectives/communicator_impl.hpp"
#include "collectives/flow_lowering.hpp"
#include "collectives/joint_flows.hpp"
#include "collectives/tuner.hpp"
#include "linksim/error.hpp"

namespace linksim {

std::vector<ConcurrentCall> run_concurrent(std::span<const Communicator* const> comms,
                                           const CollectiveQuery& query) {
  std::vector<ConcurrentCall> out(comms.size());
  if (comms.empty()) return out;
  const detail::CommGraph& first = comms.front()->impl_->graph;
  detail::JointFlows joint(first.capacities().to_vector(), query.op);
  // By communicator: its group in `joint`, or -1 when it has no transfers there.
  std::vector<int> group_of(comms.size(), -1);
  for (size_t i = 0; i < comms.size(); ++i) {
    const detail::CommGraph& g = comms[i]->impl_->graph;
    if (&g.topology() != &first.topology()) {
      throw ConfigError("run_concurrent: expected communicators of one topology");
    }
    detail::check_query(g, query);
    const detail::Choice c = detail::choose(g, query);
    out[i].algorithm = c.algo;
    out[i].protocol = c.proto;
    out[i].time_s = c.model.time_s(query.size_bytes);
    if (!(query.size_bytes > 0) || g.ranks().size() < 2) continue;
    joint.begin_group();
    const int group = joint.group_count() - 1;
    // The outcome is empty: the transfers went to `joint`.
    detail::simulate_flows(g, query.op, c.algo, c.model, query.size_bytes, query.root, &joint);
    group_of[i] = group;
  }
  if (joint.group_count() == 0) return out;
  const detail::JointFlows::Outcome run = joint.run();
  // The communicators crossing each link, for the links two or more of them cross.
  std::vector<std::pair<uint32_t, int>> link_groups;  // (link, communicator), sorted by link
  for (size_t i = 0; i < comms.size(); ++i) {
    if (group_of[i] < 0) continue;
    for (uint32_t link : run.links[size_t(group_of[i])]) link_groups.emplace_back(link, int(i));
  }
  std::sort(link_groups.begin(), link_groups.end());
  for (size_t i = 0; i < comms.size(); ++i) {
    const int group = group_of[i];
    if (group < 0) continue;
    ConcurrentCall& call = out[i];
    // An algorithm without a lowering recorded nothing: its closed form stands.
    if (run.links[size_t(group)].empty()) continue;
    call.time_s = run.finish_s[size_t(group)];
    for (uint32_t link : run.links[size_t(group)]) {
      auto begin = std::lower_bound(link_groups.begin(), link_groups.end(),
                                    std::make_pair(link, -1));
      auto end =
          std::upper_bound(begin, link_groups.end(), std::make_pair(link, int(comms.size())));
      if (end - begin < 2) continue;
      for (auto it = begin; it != end; ++it) {
        if (it->second != int(i)) call.shared_with.push_back(it->second);
      }
      const double busy_s = run.usage[link].busy_s;
      if (busy_s > call.shared_link_busy_s) {
        call.shared_link = LinkId{link};
        call.shared_link_busy_s = busy_s;
        call.shared_link_with.clear();
        for (auto it = begin; it != end; ++it) {
          if (it->second != int(i)) call.shared_link_with.push_back(it->second);
        }
      }
    }
    std::sort(call.shared_with.begin(), call.shared_with.end());
    call.shared_with.erase(std::unique(call.shared_with.begin(), call.shared_with.end()),
                           call.shared_with.end());
  }
  return out;
}

}  // namespace linksim
