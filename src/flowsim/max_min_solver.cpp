// SPDX-License-Identifier: Apache-2.0
// Progressive filling with an indexed heap of levels, restricted to the component that changed.
#include "flowsim/max_min_solver.hpp"

#include <algorithm>
#include <limits>
#include <span>
#include <type_traits>

#include "common/huge_pages.hpp"

namespace linksim {
namespace {

using flowsim_internal::Level;
using flowsim_internal::LevelKind;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Heap entries (16 bytes each) and component slots (4 bytes) whose storage a solve keeps for
/// the next.
constexpr std::size_t kKeptLevels = std::size_t{1} << 16;
/// visit_in_id_order() scans every id for a list of at least 1/8 of them (as the
/// simulation's metering does): about one bit read an id outside it, against a random read of
/// the per-id arrays for each inside it.
constexpr std::size_t kScanFraction = 8;

/// How many resources ahead collect_component() prefetches a queued resource's list header,
/// and its list: far enough for a load from memory (about 100 ns, a few resources' work) to
/// end before the list is read, and the header's before the list's prefetch reads it.
constexpr std::size_t kHeaderLookahead = 16;
constexpr std::size_t kListLookahead = 8;

// Calls visit(id) for each of `ids` (distinct, each < `count`): a list of at least
// 1/kScanFraction of the ids in increasing id order (the per-id arrays then read front to
// back instead of in list order), marked in `marks` first and cleared as they are scanned;
// a shorter list in its own order. `marks`: empty or `count` or fewer bits, all false, and
// left all false (grown to `count` bits when used).
template <typename Visit>
void visit_in_id_order(std::span<const uint32_t> ids, uint32_t count, std::vector<bool>& marks,
                       Visit&& visit) {
  if (ids.size() * kScanFraction < count) {
    for (const uint32_t id : ids) visit(id);
    return;
  }
  if (marks.size() < count) marks.resize(count, false);
  for (const uint32_t id : ids) marks[id] = true;
  for (uint32_t id = 0; id < count; ++id) {
    if (!marks[id]) continue;
    marks[id] = false;
    visit(id);
  }
}

}  // namespace

MaxMinSolver::MaxMinSolver(std::span<const double> capacities_Bps,
                           std::span<const uint32_t> path_resources)
    : capacities_Bps_(capacities_Bps),
      path_resources_(path_resources),
      users_(capacities_Bps.size()),
      listed_(capacities_Bps.size(), false),
      has_removals_(capacities_Bps.size(), false),
      levels_() {}

void MaxMinSolver::reserve(std::size_t slots, std::size_t elements) {
  routes_.reserve(slots);
  bound_Bps_.reserve(slots);
  rate_Bps_.reserve(slots);
  fixed_.reserve(slots);
  user_index_.reserve(elements);
  // Room, not memory: pages are touched as they fill. Removing every slot frees each one,
  // and changes at most every resource, each listed once.
  free_slots_.reserve(slots);
  dirty_.reserve(std::min(elements, capacities_Bps_.size()));
  // A cluster's slots: tens of MiB filled in order.
  advise_huge_pages(routes_);
  advise_huge_pages(bound_Bps_);
  advise_huge_pages(rate_Bps_);
  advise_huge_pages(user_index_);
}

void MaxMinSolver::release() {
  const auto drop = [](auto& array) { std::remove_reference_t<decltype(array)>().swap(array); };
  users_ = flowsim_internal::ArenaLists<uint32_t>(0);
  levels_ = flowsim_internal::LevelQueue();
  remaining_Bps_.reset();
  unfixed_.reset();
  drop(listed_);
  drop(resource_marks_);
  drop(has_removals_);
  drop(starting_slots_);
  drop(routes_);
  drop(free_ranges_);
  drop(user_index_);
  user_index_taken_ = 0;
  drop(bound_Bps_);
  drop(rate_Bps_);
  drop(fixed_);
  drop(free_slots_);
  drop(dirty_);
  drop(orphans_);
  drop(removed_slots_);
  drop(removal_resources_);
  drop(component_slots_);
  drop(component_resources_);
}

uint32_t MaxMinSolver::new_slot() {
  const uint32_t slot = slot_count();
  routes_.emplace_back();
  bound_Bps_.push_back(0);
  rate_Bps_.push_back(0);
  fixed_.push_back(0);
  return slot;
}

uint32_t MaxMinSolver::take_range(uint32_t length) {
  if (length == 0) return 0;
  if (free_ranges_.size() <= length) free_ranges_.resize(length + 1);
  std::vector<uint32_t>& free = free_ranges_[length];
  if (!free.empty()) {
    const uint32_t begin = free.back();
    free.pop_back();
    return begin;
  }
  const auto begin = static_cast<uint32_t>(user_index_taken_);
  user_index_taken_ += length;
  // Up to the room reserved (reserve()) in one step when it holds the range, instead of one
  // resize a new range.
  if (user_index_.size() < user_index_taken_) {
    user_index_.resize(std::max(user_index_taken_, user_index_.capacity()));
  }
  return begin;
}

// add() takes free slots from the back (then new ones); remove() in the same order pushes
// them back, so the taken tail ends reversed, followed by the new slots.
void MaxMinSolver::cycle_slots(uint32_t count) {
  const std::size_t reused = std::min<std::size_t>(count, free_slots_.size());
  std::reverse(free_slots_.end() - static_cast<std::ptrdiff_t>(reused), free_slots_.end());
  for (std::size_t i = reused; i < count; ++i) free_slots_.push_back(new_slot());
}

void MaxMinSolver::prefetch_add(std::span<const uint32_t> path) const {
  for (const uint32_t resource : path) users_.prefetch_header(resource);
}

void MaxMinSolver::prefetch_remove(uint32_t slot, uint32_t later) const {
  if (routes_[slot].length > 0) __builtin_prefetch(routes_[slot].path);
  __builtin_prefetch(&routes_[later]);
}

uint32_t MaxMinSolver::add(std::span<const uint32_t> path, double bound_Bps) {
  // A removed slot may be reused below: its entries leave first.
  if (!removed_slots_.empty()) detach_removed();
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = new_slot();
  }
  const auto length = static_cast<uint32_t>(path.size());
  SlotRoute& route = routes_[slot];
  if (route.length != length) {
    if (route.length > 0) free_ranges_[route.length].push_back(route.index_begin);
    route.index_begin = take_range(length);
    route.length = length;
  }
  route.path = path.data();
  bound_Bps_[slot] = bound_Bps;
  rate_Bps_[slot] = 0;
  uint32_t* index = user_index_.data() + route.index_begin;
  for (uint32_t hop = 0; hop < length; ++hop) {
    const uint32_t resource = path[hop];
    index[hop] = users_.push_back(resource, slot);
    touch(resource);
  }
  // A slot crossing no resource belongs to no component; collect_component reports it alone.
  if (length == 0) orphans_.push_back(slot);
  ++added_since_collect_;
  return slot;
}

// Swap-removes the entry of the slot's hop from its resource's user list. The last entry
// moves into its place; the moved slot's hop is the one over `resource` whose user_index_
// entry names the last position (unique: a hop's entry is its own). O(the moved slot's path
// length). The slot's own user_index_ entries are not read again until add() rewrites them.
// Reads and writes only the list of the hop's resource and user_index_ entries of hops over
// it: the lists' detaches are independent of one another.
void MaxMinSolver::detach(uint32_t slot, uint32_t hop) {
  const SlotRoute& route = routes_[slot];
  const uint32_t resource = route.path[hop];
  const std::span<uint32_t> users = users_.list(resource);
  const auto last = static_cast<uint32_t>(users.size() - 1);
  const uint32_t index = user_index_[route.index_begin + hop];
  if (index != last) {
    const uint32_t moved = users[last];
    users[index] = moved;
    const SlotRoute& moved_route = routes_[moved];
    uint32_t* moved_index = user_index_.data() + moved_route.index_begin;
    for (uint32_t moved_hop = 0; moved_hop < moved_route.length; ++moved_hop) {
      if (moved_route.path[moved_hop] == resource && moved_index[moved_hop] == last) {
        moved_index[moved_hop] = index;
        break;
      }
    }
  }
  users_.pop_back(resource);
}

void MaxMinSolver::remove(uint32_t slot) {
  const SlotRoute& route = routes_[slot];
  for (uint32_t hop = 0; hop < route.length; ++hop) {
    const uint32_t resource = route.path[hop];
    touch(resource);
    if (has_removals_[resource]) continue;
    has_removals_[resource] = true;
    removal_resources_.push_back(resource);
  }
  fixed_[slot] |= kRemoved;
  removed_slots_.push_back(slot);
  removed_since_collect_ = true;
  rate_Bps_[slot] = 0;
  free_slots_.push_back(slot);
}

// A list whose entries are all removed ends empty whatever the order of the swaps: it is
// cleared without them (one read of the list instead of a detach() per entry, which reads
// the moved slot's path and indices). Any other list replays detach() for its removed
// entries in remove() order, which is the order remove() would have detached them in
// (detach() on one list depends on that list alone). Each list's work is its own, so the
// first pass takes a long list of resources in id order.
void MaxMinSolver::detach_removed() {
  bool any_partial = false;
  const auto clear_if_all_removed = [&](uint32_t resource) {
    const std::span<const uint32_t> users = users_.list(resource);
    std::size_t removed = 0;
    for (const uint32_t slot : users) removed += (fixed_[slot] & kRemoved) != 0 ? 1 : 0;
    if (removed == users.size()) {
      users_.clear(resource);
      has_removals_[resource] = false;
    } else {
      any_partial = true;  // keeps its mark for the replay
    }
  };
  const auto resource_count = static_cast<uint32_t>(capacities_Bps_.size());
  visit_in_id_order(removal_resources_, resource_count, resource_marks_, clear_if_all_removed);
  if (any_partial) {
    for (const uint32_t slot : removed_slots_) {
      const SlotRoute& route = routes_[slot];
      for (uint32_t hop = 0; hop < route.length; ++hop) {
        if (has_removals_[route.path[hop]]) detach(slot, hop);
      }
    }
    for (const uint32_t resource : removal_resources_) has_removals_[resource] = false;
  }
  for (const uint32_t slot : removed_slots_) fixed_[slot] &= static_cast<uint8_t>(~kRemoved);
  removed_slots_.clear();
  removal_resources_.clear();
}

void MaxMinSolver::release_large_component() {
  if (component_slots_.capacity() <= kKeptLevels &&
      component_resources_.capacity() <= kKeptLevels) {
    return;
  }
  std::vector<uint32_t>().swap(component_slots_);
  std::vector<uint32_t>().swap(component_resources_);
}

void MaxMinSolver::collect_component() {
  if (!removed_slots_.empty()) detach_removed();
  // The changed resources are already marked as listed, each listed once (touch()).
  // A large component's slot list is not kept for the next (a batch that started at once is
  // not followed by another as large): its memory is freed, 4 bytes a slot.
  component_slots_.clear();
  if (component_slots_.capacity() > kKeptLevels) std::vector<uint32_t>().swap(component_slots_);
  component_resources_.clear();
  component_resources_.swap(dirty_);
  // Every active slot new, none removed: each resource of an active slot was touched by its
  // add(), so the paths below would mark no resource that is not already listed.
  const bool all_new = !removed_since_collect_ && added_since_collect_ == active_count();
  added_since_collect_ = 0;
  removed_since_collect_ = false;
  // Breadth-first: component_resources_ doubles as the queue. The user lists of the queue's
  // resources a few ahead are read from memory meanwhile (headers further ahead, then the
  // lists themselves), so that their cache misses overlap instead of one at a time.
  for (std::size_t next = 0; next < component_resources_.size(); ++next) {
    if (next + kHeaderLookahead < component_resources_.size()) {
      users_.prefetch_header(component_resources_[next + kHeaderLookahead]);
    }
    if (next + kListLookahead < component_resources_.size()) {
      users_.prefetch_front(component_resources_[next + kListLookahead]);
    }
    for (const uint32_t slot : users_.list(component_resources_[next])) {
      if (fixed_[slot] & kCollected) continue;  // cleared for the component by its solve
      fixed_[slot] |= kCollected;
      component_slots_.push_back(slot);
      if (all_new) continue;
      for (const uint32_t resource : path(slot)) {
        if (listed_[resource]) continue;
        listed_[resource] = true;
        component_resources_.push_back(resource);
      }
    }
  }
  component_slots_.insert(component_slots_.end(), orphans_.begin(), orphans_.end());
  orphans_.clear();
  for (const uint32_t resource : component_resources_) listed_[resource] = false;
}

void MaxMinSolver::hold_scratch() {
  if (remaining_Bps_) return;
  remaining_Bps_ = std::make_unique_for_overwrite<double[]>(capacities_Bps_.size());
  unfixed_ = std::make_unique_for_overwrite<uint32_t[]>(capacities_Bps_.size());
}

void MaxMinSolver::release_scratch_after_large_solve() {
  if (component_resources_.size() * kScanFraction < capacities_Bps_.size()) return;
  remaining_Bps_.reset();
  unfixed_.reset();
}

// Keeps some heap entry of each resource being filled at most its level (solve_component):
// a level that rose keeps its entry, below it; a level that fell (rounding can lower a level
// by an ulp as a flow is fixed below it) gets a new entry. Per crossing, in path order, the
// same subtractions as one pass over the path followed by updates would make.
void MaxMinSolver::fix(uint32_t slot, double rate_Bps) {
  set_rate(slot, rate_Bps);
  fixed_[slot] |= kFixed;
  for (const uint32_t resource : path(slot)) {
    // The resource being filled fixes all its users at one level: its entry has been popped.
    if (resource == filling_) {
      remaining_Bps_[resource] -= rate_Bps;
      --unfixed_[resource];
      continue;
    }
    const double before_Bps = resource_level(resource);  // unfixed >= 1: this slot
    remaining_Bps_[resource] -= rate_Bps;
    if (--unfixed_[resource] == 0) continue;  // its entries are dropped when popped
    const double level_Bps = resource_level(resource);
    if (level_Bps < before_Bps) levels_.push(Level{level_Bps, resource, LevelKind::kResource});
  }
}

// Progressive filling would fix a lone slot at the first of its levels to fill: its bound or
// C_r / 1 for each resource r, whichever is least. Nothing else shares those resources, so
// the value is the same whichever entries of other components the heap pops in between.
bool MaxMinSolver::fix_if_alone(uint32_t slot) {
  const std::span<const uint32_t> hops = path(slot);
  if (hops.empty()) return false;
  double rate_Bps = bound_Bps_[slot];
  for (const uint32_t resource : hops) {
    if (users_.size(resource) != 1) return false;  // shared, or crossed twice
    rate_Bps = std::min(rate_Bps, capacities_Bps_[resource]);
  }
  set_rate(slot, rate_Bps);
  fixed_[slot] |= kFixed;
  return true;
}

void MaxMinSolver::solve_component() {
  // At most a bound per slot and an entry per resource: room reserved, pages used as filled.
  levels_.reserve(component_slots_.size() + component_resources_.size());
  // A slot's start reads its own path's user counts and writes its own rate and flags only,
  // and order() orders the entries whatever their push order: the order is free (in id
  // order, as a large component's are visited, equal levels form runs: level_queue.hpp).
  visit_in_id_order(component_slots_, slot_count(), starting_slots_, [this](uint32_t slot) {
    fixed_[slot] = 0;
    if (fix_if_alone(slot)) return;
    if (bound_Bps_[slot] < kInfinity) {
      levels_.push_unordered(Level{bound_Bps_[slot], slot, LevelKind::kSlotBound});
    }
  });
  const auto start_level = [this](uint32_t resource) {
    const std::span<const uint32_t> users = users_.list(resource);
    // A lone slot's resources are already filled: no level to push, and no fix() crosses
    // them (their one user is fixed), so their scratch is not read.
    if (users.empty() || (users.size() == 1 && (fixed_[users.front()] & kFixed))) return;
    hold_scratch();
    remaining_Bps_[resource] = capacities_Bps_[resource];
    unfixed_[resource] = static_cast<uint32_t>(users.size());
    levels_.push_unordered(Level{resource_level(resource), resource, LevelKind::kResource});
  };
  // A resource's start depends on its own users alone (and the slots' kFixed flags, all set
  // above), and order() orders the entries whatever their push order: the order is free.
  const auto resource_count = static_cast<uint32_t>(capacities_Bps_.size());
  visit_in_id_order(component_resources_, resource_count, resource_marks_, start_level);
  levels_.order();  // O(n) at most for the initial levels
  // Takes the least (level, kind, id) of the resources' current levels and the unfixed slots'
  // bounds, as a heap moved to every new level would (docs/flowsim.md#max-min-fair-rates).
  // Each resource with unfixed elements has an entry at most its level (fix()), so the top
  // entry is at most the least current level; at its resource's level it is that least,
  // ties included (any resource at the same level has an entry there too, ordered by kind
  // and id); below it, its level is raised in place and the order restored. Entries of a
  // resource with every element fixed (by others' levels, or filled) are dropped.
  while (!levels_.empty()) {
    const Level least = levels_.top();
    if (least.kind == LevelKind::kResource) {
      if (unfixed_[least.id] == 0) {
        levels_.pop();
        continue;
      }
      const double level_Bps = resource_level(least.id);
      if (least.level_Bps != level_Bps) {
        levels_.replace_top_level(level_Bps);
        continue;
      }
    }
    const Level top = levels_.pop();
    if (top.kind == LevelKind::kSlotBound) {
      if (!(fixed_[top.id] & kFixed)) fix(top.id, top.level_Bps);
      continue;
    }
    // fix() changes counters only, never users_, so iterating the list is safe.
    filling_ = top.id;
    for (const uint32_t slot : users_.list(top.id)) {
      if (!(fixed_[slot] & kFixed)) fix(slot, top.level_Bps);
    }
    filling_.reset();
  }
  levels_.trim(kKeptLevels);
  release_scratch_after_large_solve();
  for (uint32_t slot : component_slots_) {
    if (!(fixed_[slot] & kFixed)) set_rate(slot, kInfinity);  // no resource, no bound
  }
}

}  // namespace linksim
