// SPDX-License-Identifier: Apache-2.0
// Up/down fabric routing with destination-mod-k uplink choice (docs/routing.md#fabric).
#include "routing/fabric_routes.hpp"

#include <algorithm>

namespace linksim::routing_detail {
namespace {

// A device's kind, read from host 0's device of the same local id when `id` is in a server
// block (the layout contract of linksim/topology.hpp: the blocks are identical), which stays
// in cache where a cluster's far devices miss it.
DeviceKind kind_of(const Topology& topology, uint32_t id) {
  const uint64_t per_host = topology.devices_per_host();
  if (id < per_host * uint64_t(topology.host_count())) {
    return topology.device(DeviceId{uint32_t(id % per_host)}).kind;
  }
  return topology.device(DeviceId{id}).kind;
}

bool is_switch(const Topology& topology, DeviceId id) {
  return kind_of(topology, id.value) == DeviceKind::kNetSwitch;
}

}  // namespace

FabricRoutes::FabricRoutes(const Topology& topology, HopSearch search) : topology_(topology) {
  const uint32_t device_count = uint32_t(topology.devices().size());
  if (topology.devices_per_host() > 0) {
    devices_per_host_ = topology.devices_per_host();
    block_devices_ = devices_per_host_ * uint32_t(topology.host_count());
  }
  // Host 0's block numbered once; every other block repeats its kinds (kind_of reads them
  // there), so its switches and NICs follow in the same order, host after host.
  host0_slot_.assign(devices_per_host_, kNone);
  std::vector<DeviceId> switches;
  for (uint32_t i = 0; i < devices_per_host_; ++i) {
    const DeviceKind kind = topology.device(DeviceId{i}).kind;
    if (kind == DeviceKind::kNetSwitch) host0_slot_[i] = switches_per_host_++;
    if (kind == DeviceKind::kNic) host0_slot_[i] = nics_per_host_++ | kNicSlot;
  }
  const uint32_t hosts = devices_per_host_ > 0 ? uint32_t(topology.host_count()) : 0;
  switches_.resize(size_t(switches_per_host_) * hosts);
  nics_.resize(size_t(nics_per_host_) * hosts);
  for (uint32_t host = 0; host < hosts && switches_per_host_ > 0; ++host) {
    for (uint32_t i = 0; i < devices_per_host_; ++i) {
      const uint32_t twin = host0_slot_[i];
      if (twin != kNone && (twin & kNicSlot) == 0) switches.push_back(DeviceId{host * devices_per_host_ + i});
    }
  }
  fabric_slot_.assign(device_count - block_devices_, kNone);
  for (uint32_t i = block_devices_; i < device_count; ++i) {
    const DeviceKind kind = topology.device(DeviceId{i}).kind;
    if (kind == DeviceKind::kNetSwitch) {
      fabric_slot_[i - block_devices_] = uint32_t(switches_.size());
      switches_.emplace_back();
      switches.push_back(DeviceId{i});
    } else if (kind == DeviceKind::kNic) {
      fabric_slot_[i - block_devices_] = uint32_t(nics_.size()) | kNicSlot;
      nics_.emplace_back();
    }
  }
  find_uplinks();
  for (DeviceId id : switches) list_neighbours(id);
  rank_leaves(switches);
  number_nics(switches);
  collect_reach(switches);
  if (search == HopSearch::kShortcuts) find_shortcuts(switches);
}

void FabricRoutes::list_neighbours(DeviceId id) {
  const int tier = topology_.device(id).tier;
  SwitchState& state = at_switch(id);
  for (const bool up : {true, false}) {
    (up ? state.up_begin : state.down_begin) = uint32_t(hops_.size());
    for (LinkId link : topology_.out_links(id)) {
      const DeviceId to = topology_.link(link).to;
      if (!is_switch(topology_, to)) continue;
      const int other = topology_.device(to).tier;
      if (up ? other > tier : other < tier) hops_.push_back({link, to});
    }
  }
  state.down_end = uint32_t(hops_.size());
}

void FabricRoutes::find_uplinks() {
  const auto set_uplink = [&](NicState& state, LinkId up) {
    state.uplink = up.value;
    state.leaf = topology_.link(up).to.value;
    state.downlink = Topology::reverse(up).value;
  };
  const auto links = topology_.links();
  const auto is_uplink = [&](const Link& link) {
    return link.family == LinkFamily::kNetwork &&
           kind_of(topology_, link.from.value) == DeviceKind::kNic && is_switch(topology_, link.to);
  };
  // Links touching a fabric device come after the server blocks, and a server block repeats
  // host 0's (the layout contract of linksim/topology.hpp): unless one of host 0's links is a
  // NIC's uplink (a switch inside the server), every uplink is after the blocks, and reading
  // those links in id order finds each NIC's first, as find_uplink reads its out_links (in
  // id order: the CSR adjacency is built in link order).
  const uint64_t per_host = topology_.devices_per_host() > 0 ? topology_.links_per_host() : 0;
  const uint64_t blocks = per_host * uint64_t(topology_.host_count());
  bool uplinks_in_blocks = blocks > links.size();
  for (uint64_t id = 0; !uplinks_in_blocks && id < per_host; ++id) {
    uplinks_in_blocks = is_uplink(links[id]);
  }
  if (uplinks_in_blocks) {
    for (uint32_t i = 0; i < topology_.devices().size(); ++i) {
      const uint32_t at = slot(DeviceId{i});
      if (at == kNone || (at & kNicSlot) == 0) continue;
      if (const auto up = find_uplink(DeviceId{i})) set_uplink(nic(DeviceId{i}), *up);
    }
    return;
  }
  for (uint64_t id = blocks; id < links.size(); ++id) {
    const Link& link = links[id];
    if (link.family != LinkFamily::kNetwork) continue;
    const uint32_t at = slot(link.from);
    if (at == kNone || (at & kNicSlot) == 0) continue;
    NicState& state = nics_[at & ~kNicSlot];
    if (state.uplink != kNone || !is_switch(topology_, link.to)) continue;
    set_uplink(state, LinkId{uint32_t(id)});
  }
}

std::optional<LinkId> FabricRoutes::find_uplink(DeviceId nic) const {
  for (LinkId id : topology_.out_links(nic)) {
    const Link& link = topology_.link(id);
    if (link.family == LinkFamily::kNetwork && is_switch(topology_, link.to)) return id;
  }
  return std::nullopt;
}

// Depth-first from every top switch (one without uplinks), children in link order: a pod's
// leaves get consecutive ranks, then the next pod's, so every switch reaches one run.
void FabricRoutes::rank_leaves(const std::vector<DeviceId>& switches) {
  std::vector<char> is_leaf(topology_.devices().size(), 0);
  const auto devices = topology_.devices();
  for (const NicState& nic : nics_) {
    if (nic.uplink != kNone) is_leaf[nic.leaf] = 1;
  }
  std::vector<char> visited(devices.size(), 0);
  std::vector<DeviceId> stack;
  std::vector<DeviceId> children;
  uint32_t next_rank = 0;
  for (DeviceId top : switches) {
    if (at_switch(top).up_begin != at_switch(top).down_begin) continue;  // has uplinks
    stack.push_back(top);
    while (!stack.empty()) {
      const DeviceId at = stack.back();
      stack.pop_back();
      if (visited[at.value]) continue;
      visited[at.value] = 1;
      if (is_leaf[at.value]) at_switch(at).leaf_rank = next_rank++;
      children.clear();
      for_each_neighbour(at, false, [&](LinkId, DeviceId to) {
        if (!visited[to.value]) children.push_back(to);
      });
      stack.insert(stack.end(), children.rbegin(), children.rend());
    }
  }
}

void FabricRoutes::number_nics(const std::vector<DeviceId>& switches) {
  std::vector<DeviceId> leaves;
  for (DeviceId id : switches) {
    const uint32_t rank = at_switch(id).leaf_rank;
    if (rank == kNone) continue;
    if (leaves.size() <= rank) leaves.resize(size_t(rank) + 1);
    leaves[rank] = id;
  }
  uint32_t next_key = 0;
  for (DeviceId leaf : leaves) {
    for (LinkId id : topology_.out_links(leaf)) {
      const DeviceId to = topology_.link(id).to;
      if (kind_of(topology_, to.value) == DeviceKind::kNic && nic(to).key == kNone) {
        nic(to).key = next_key++;
      }
    }
  }
}

FabricRoutes::RunSet FabricRoutes::merged(std::vector<Run>& runs) {
  std::sort(runs.begin(), runs.end(),
            [](const Run& a, const Run& b) { return a.begin < b.begin; });
  RunSet set{uint32_t(runs_.size()), 0};
  for (const Run& run : runs) {
    if (set.count > 0 && run.begin <= runs_.back().end) {
      runs_.back().end = std::max(runs_.back().end, run.end);
      continue;
    }
    runs_.push_back(run);
    ++set.count;
  }
  return set;
}

// Down runs bottom-up (a switch reaches what its children reach, a leaf itself); cone runs
// top-down (a switch reaches, up then down, what its parents' cones hold; a top its own).
void FabricRoutes::collect_reach(const std::vector<DeviceId>& switches) {
  std::vector<DeviceId> by_tier = switches;
  std::stable_sort(by_tier.begin(), by_tier.end(), [&](DeviceId a, DeviceId b) {
    return topology_.device(a).tier < topology_.device(b).tier;
  });
  std::vector<Run> gathered;
  for (DeviceId at : by_tier) {
    gathered.clear();
    const uint32_t rank = at_switch(at).leaf_rank;
    if (rank != kNone) gathered.push_back({rank, rank + 1});
    for_each_neighbour(at, false, [&](LinkId, DeviceId to) {
      const RunSet child = at_switch(to).down;
      gathered.insert(gathered.end(), runs_.begin() + child.first,
                      runs_.begin() + child.first + child.count);
    });
    at_switch(at).down = merged(gathered);
  }
  for (auto it = by_tier.rbegin(); it != by_tier.rend(); ++it) {
    const DeviceId at = *it;
    gathered.clear();
    for_each_neighbour(at, true, [&](LinkId, DeviceId to) {
      const RunSet parent = at_switch(to).cone;
      gathered.insert(gathered.end(), runs_.begin() + parent.first,
                      runs_.begin() + parent.first + parent.count);
    });
    if (gathered.empty()) {
      at_switch(at).cone = at_switch(at).down;
    } else {
      at_switch(at).cone = merged(gathered);
    }
  }
}

bool FabricRoutes::same_runs(RunSet a, RunSet b) const {
  if (a.count != b.count) return false;
  for (uint32_t i = 0; i < a.count; ++i) {
    const Run& x = runs_[a.first + i];
    const Run& y = runs_[b.first + i];
    if (x.begin != y.begin || x.end != y.end) return false;
  }
  return true;
}

void FabricRoutes::find_shortcuts(const std::vector<DeviceId>& switches) {
  for (DeviceId id : switches) {
    SwitchState& state = at_switch(id);
    bool alike = true;
    if (state.up_begin < state.down_begin) {
      const SwitchState& first = at_switch(hops_[state.up_begin].to);
      for (uint32_t i = state.up_begin + 1; alike && i < state.down_begin; ++i) {
        const SwitchState& other = at_switch(hops_[i].to);
        alike = same_runs(first.down, other.down) && same_runs(first.cone, other.cone);
      }
    }
    state.alike_up = alike;
    bool sorted = true;
    uint32_t reached_end = 0;  // the previous downlink's run's end, leaf ranks
    for (uint32_t i = state.down_begin; sorted && i < state.down_end; ++i) {
      const RunSet down = at_switch(hops_[i].to).down;
      sorted = down.count == 1 && runs_[down.first].begin >= reached_end;
      if (sorted) reached_end = runs_[down.first].end;
    }
    state.sorted_down = sorted;
  }
}

bool FabricRoutes::contains(RunSet set, uint32_t rank) const {
  const auto first = runs_.begin() + set.first;
  const auto last = first + set.count;
  auto after = std::upper_bound(first, last, rank,
                                [](uint32_t r, const Run& run) { return r < run.begin; });
  return after != first && rank < std::prev(after)->end;
}

bool FabricRoutes::reaches(DeviceId upper, uint32_t leaf_rank) const {
  return contains(at_switch(upper).down, leaf_rank);
}

template <typename Accept>
FabricRoutes::Hop FabricRoutes::pick(DeviceId from, bool up, uint64_t key, uint32_t count,
                                     Accept accept) const {
  uint64_t skip = key % count;
  Hop chosen{};
  for_each_neighbour(from, up, [&](LinkId id, DeviceId to) {
    if (!accept(to)) return;
    if (skip == 0) chosen = {id, to};
    --skip;  // wraps past the chosen one; no later link matches skip == 0 again
  });
  return chosen;
}

bool FabricRoutes::descend(DeviceId from, uint32_t leaf_rank, uint32_t key,
                           std::vector<LinkId>* links) const {
  DeviceId at = from;
  const auto toward = [&](DeviceId to) { return reaches(to, leaf_rank); };
  while (at_switch(at).leaf_rank != leaf_rank) {
    const SwitchState& state = at_switch(at);
    if (state.sorted_down) {
      // The downlink whose run starts last at or before the leaf, if its run holds it.
      const auto first = hops_.begin() + state.down_begin;
      const auto last = hops_.begin() + state.down_end;
      const auto after = std::upper_bound(first, last, leaf_rank, [&](uint32_t r, const Hop& hop) {
        return r < runs_[at_switch(hop.to).down.first].begin;
      });
      if (after == first || !toward(std::prev(after)->to)) return false;
      links->push_back(std::prev(after)->link);
      at = std::prev(after)->to;
      continue;
    }
    uint32_t count = 0;
    for_each_neighbour(at, false, [&](LinkId, DeviceId to) { count += toward(to); });
    if (count == 0) return false;
    const Hop chosen = pick(at, false, key, count, toward);
    links->push_back(chosen.link);
    at = chosen.to;
  }
  return true;
}

bool FabricRoutes::append_route(DeviceId src, DeviceId dst, std::vector<LinkId>* links) const {
  const NicState* src_nic = attached(src);
  const NicState* dst_nic = attached(dst);
  if (src_nic == nullptr || dst_nic == nullptr) return false;
  const uint32_t dst_rank = at_switch(DeviceId{dst_nic->leaf}).leaf_rank;
  const uint32_t key = dst_nic->key;
  if (dst_rank == kNone || key == kNone) return false;
  const size_t begin = links->size();
  // D-mod-k (Zahavi 2010): the destination's number, written in the mixed radix of the
  // uplink counts met on the way up, gives one digit per tier: uplink (key / base) mod c.
  // Static, identical for every source, and free of contention for shift permutations on
  // a full fat tree. Candidates: the uplinks whose switch reaches dst going down, else those
  // whose cone holds it.
  uint64_t base = 1;
  links->push_back(LinkId{src_nic->uplink});
  DeviceId at{src_nic->leaf};
  const auto toward = [&](DeviceId to) { return reaches(to, dst_rank); };
  const auto onward = [&](DeviceId to) {
    return !reaches(to, dst_rank) && contains(at_switch(to).cone, dst_rank);
  };
  while (!reaches(at, dst_rank)) {
    const SwitchState& state = at_switch(at);
    uint32_t n_toward = 0;
    uint32_t n_onward = 0;
    if (state.alike_up) {
      // One uplink tested stands for all: each is a candidate, and pick's choice is by index.
      if (state.up_begin < state.down_begin) {
        const DeviceId first = hops_[state.up_begin].to;
        const uint32_t ups = state.down_begin - state.up_begin;
        if (toward(first)) n_toward = ups;
        else if (contains(at_switch(first).cone, dst_rank)) n_onward = ups;
      }
    } else {
      for_each_neighbour(at, true, [&](LinkId, DeviceId to) {
        if (toward(to)) ++n_toward;
        else if (contains(at_switch(to).cone, dst_rank)) ++n_onward;
      });
    }
    if (n_toward + n_onward == 0) {
      links->resize(begin);
      return false;
    }
    const uint32_t count = n_toward > 0 ? n_toward : n_onward;
    const Hop chosen = state.alike_up ? hops_[state.up_begin + (key / base) % count]
                       : n_toward > 0 ? pick(at, true, key / base, count, toward)
                                      : pick(at, true, key / base, count, onward);
    base *= count;
    links->push_back(chosen.link);
    at = chosen.to;
  }
  if (!descend(at, dst_rank, key, links)) {
    links->resize(begin);
    return false;
  }
  links->push_back(LinkId{dst_nic->downlink});
  return true;
}

}  // namespace linksim::routing_detail
