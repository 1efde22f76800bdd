// SPDX-License-Identifier: Apache-2.0
// Incremental max-min fair rate allocation over capacity-limited resources (progressive filling).
//
// The model (after SimGrid's lmm/System.hpp; see docs/flowsim.md#model):
//
//   Variables     x_f >= 0, the rate in bytes/s of each active sub-flow f ("slot").
//   Constraints   one per resource r with capacity C_r (bytes/s):
//                     sum_f a_rf * x_f <= C_r,
//                 where a_rf is how many times f's path crosses r (usually 0 or 1).
//   Bounds        x_f <= b_f (b_f = share_f * rate cap of its transfer; +inf if none).
//   Objective     max-min fairness: the vector x sorted ascending is lexicographically
//                 maximal. Equivalently, every f is limited by its bound or by a saturated
//                 resource r (sum_g a_rg x_g = C_r) on which no flow has a larger rate.
//
// Progressive filling computes it: raise every unfixed x_f at the same level lambda; the
// first resource to fill (smallest (C_r - fixed load) / (unfixed elements)) or the first bound
// reached fixes its flows at lambda; remove them and repeat. Resource levels only grow as
// flows are fixed below them; a min-heap of levels, an entry corrected when it reaches the top
// (level_queue.hpp: equal initial levels as runs of ids beside a heap), gives O(E log R) for E
// (resource, flow) elements over R resources.
//
// A flow alone on every resource it crosses (each crossed once) is its own component: its
// rate is min(bound, min_r C_r), exactly the level progressive filling would fix it at, so
// solve_component sets it directly and keeps it and its resources out of the heap. A
// step-synchronous program, where every link carries one flow at a time, then needs no heap.
//
// Incrementality: rates only change in the connected component (resources linked by shared
// flows) of a resource whose set of flows changed. add() and remove() mark resources dirty;
// collect_component() finds the component from them; solve_component() re-solves it alone.
// Flows outside it keep their rates: they are exactly what a full solve would give them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "flowsim/arena_lists.hpp"
#include "flowsim/level_queue.hpp"

namespace linksim {

/// Not thread-safe. All state is indices into flat arrays; slots are reused LIFO.
class MaxMinSolver {
 public:
  /// `path_resources` is the CSR array of resource ids that add(begin, end, ...) ranges
  /// index into (empty when only add(path, ...) is used).
  /// REQUIRES: it and `capacities_Bps` (all finite, > 0) outlive the solver, and every entry
  /// of path_resources is < capacities_Bps.size().
  explicit MaxMinSolver(std::span<const double> capacities_Bps,
                        std::span<const uint32_t> path_resources = {});

  /// Activates a sub-flow crossing the resources of `path` with rate bound `bound_Bps`
  /// (+inf for none). Returns its slot (< slot_count()). O(path length).
  /// A slot with no resources and no bound gets an infinite rate.
  /// REQUIRES: `path` stays valid and unchanged while the slot is active; its entries are
  /// < capacities_Bps.size().
  uint32_t add(std::span<const uint32_t> path, double bound_Bps);
  /// add() over path_resources[begin, end).
  uint32_t add(uint32_t begin, uint32_t end, double bound_Bps) {
    return add(path_resources_.subspan(begin, end - begin), bound_Bps);
  }
  /// Starts loading what add(path, ...) reads per resource (its user list's header) into the
  /// cache: a caller that knows its next adds calls this some adds ahead, so that their
  /// cache misses overlap. Changes no state. Out of line, as prefetch_remove(): GCC 12 deletes
  /// prefetches inlined into a caller's loop (its dead-code elimination counts them as none).
  void prefetch_add(std::span<const uint32_t> path) const;
  /// Starts loading what remove() reads into the cache: the path of active slot `slot` (read
  /// through its record, loaded by an earlier call) and the record of active slot `later`.
  /// A caller that knows its next removals calls this with slots some removals ahead, and
  /// `later` as many again. Changes no state.
  void prefetch_remove(uint32_t slot, uint32_t later) const;
  /// Deactivates a slot; its id may be returned by a later add(). O(its path length).
  /// Its user entries leave their lists at the next add() or collect_component(), each list
  /// then as swap-removing the entries one by one in remove() order would leave it (a list
  /// whose every entry is removed is emptied at once); load_Bps() is meant after a solve.
  void remove(uint32_t slot);
  /// Room for `slots` sub-flows crossing `elements` resources in all, allocated once instead of
  /// grown (a program that starts that many at once). Changes no answer.
  void reserve(std::size_t slots, std::size_t elements);

  /// Frees every array: the solver may then only be destroyed.
  void release();
  /// Slots now active (added and not removed).
  uint32_t active_count() const {
    return slot_count() - static_cast<uint32_t>(free_slots_.size());
  }
  /// Leaves the slot pool as `count` add() calls followed by remove() of the same slots in
  /// the same order would, without activating anything: for flows whose whole life the
  /// caller computed itself (Simulation's lone steps), so that later slot ids stay the same.
  void cycle_slots(uint32_t count);
  /// Marks a resource as changed, as remove() marks those of the slot it removes.
  void touch(uint32_t resource) {
    // Listed once, in the order of first change, and marked as listed for the next
    // collect_component(): what that call would make of a list with repeats, without holding
    // the repeats.
    if (listed_[resource]) return;
    listed_[resource] = true;
    dirty_.push_back(resource);
  }
  /// Whether add() or remove() was called since the last solve_component().
  bool has_changes() const { return !dirty_.empty() || !orphans_.empty(); }
  /// Finds the resources and active slots connected to the resources changed since the last
  /// solve. Their order is deterministic (breadth-first from the changes, in call order).
  /// When every active slot was added since the last call and none was removed (a batch
  /// started at once on an idle solver), the changed resources are already every resource an
  /// active slot crosses, so the search reads user lists only, not the slots' paths: the
  /// same lists in the same order.
  /// REQUIRES: solve_component() follows before the next call (it clears the slots' marks).
  void collect_component();
  std::span<const uint32_t> component_slots() const { return component_slots_; }
  std::span<const uint32_t> component_resources() const { return component_resources_; }
  /// Recomputes the max-min rates of the collected component (its resources' loads follow).
  void solve_component();
  /// Frees the component's lists (component_slots(), component_resources(), both empty
  /// afterwards) when either has room for more than kKeptLevels (65,536) entries: called once
  /// the caller is done with a solved component, so that a large one (a collective's flows
  /// started at once) is not held through the rest of the run. A smaller one keeps its
  /// storage for the next collect_component(). Changes no answer.
  void release_large_component();
  /// collect_component() then solve_component().
  void solve() {
    collect_component();
    solve_component();
  }

  /// Current rate of an active slot, bytes/s.
  double rate_Bps(uint32_t slot) const { return rate_Bps_[slot]; }
  /// For a slot of the component the last solve_component() solved: whether that solve
  /// changed its rate (the new rate != the one before; a slot's rate is 0 from add() on).
  bool rate_changed(uint32_t slot) const { return (fixed_[slot] & kRateChanged) != 0; }
  /// Sum over the elements crossing resource r of their rates, bytes/s, in the order of its
  /// user list: after a solve, the same as of the last solve that touched r (the rates of its
  /// users change only in a component holding r). Computed on each call (O(users of r)) instead
  /// of held for every resource.
  double load_Bps(uint32_t resource) const {
    double load = 0;
    for (const uint32_t slot : users_.list(resource)) load += rate_Bps_[slot];
    return load;
  }
  /// One more than the largest slot id ever returned: size for arrays indexed by slot.
  uint32_t slot_count() const { return static_cast<uint32_t>(rate_Bps_.size()); }

 private:
  static constexpr uint8_t kFixed = 1;        ///< fixed_: the slot's rate is set this solve
  static constexpr uint8_t kRateChanged = 2;  ///< fixed_: ... to another value than before
  static constexpr uint8_t kCollected = 4;    ///< fixed_: in the component being collected
  static constexpr uint8_t kRemoved = 8;      ///< fixed_: removed, entries not yet detached

  uint32_t new_slot();
  /// A range of `length` entries of user_index_ for a slot: a free one, or new entries.
  uint32_t take_range(uint32_t length);
  /// Sets the slot's rate for this solve, noting whether it changed. Once per solve a slot.
  void set_rate(uint32_t slot, double rate_Bps) {
    if (rate_Bps != rate_Bps_[slot]) fixed_[slot] |= kRateChanged;
    rate_Bps_[slot] = rate_Bps;
  }
  void fix(uint32_t slot, double rate_Bps);
  /// Fixes `slot` at min(bound, capacities) when it is alone on every resource it crosses;
  /// returns whether it did.
  bool fix_if_alone(uint32_t slot);
  std::span<const uint32_t> path(uint32_t slot) const {
    return {routes_[slot].path, routes_[slot].length};
  }
  /// The level at which the resource fills, bytes/s: its remaining capacity shared by its
  /// unfixed elements. Rounding can leave a filled resource a hair below zero; its flows are
  /// then fixed at 0+. REQUIRES: the resource's scratch is set and unfixed_ > 0.
  double resource_level(uint32_t resource) const {
    return std::max(0.0, remaining_Bps_[resource]) / unfixed_[resource];
  }
  /// Allocates the per-resource scratch if it is not held.
  void hold_scratch();
  /// Frees the scratch after the solve of a component of at least 1/kScanFraction of the
  /// resources (a collective's flows started at once): it is not held through the rest of the
  /// run, 12 bytes a resource. A smaller component's solve keeps it for the next.
  void release_scratch_after_large_solve();
  void detach(uint32_t slot, uint32_t hop);
  /// Takes the entries of the slots removed since the last call out of their user lists.
  void detach_removed();

  std::span<const double> capacities_Bps_;
  std::span<const uint32_t> path_resources_;

  // Per resource.
  /// Its users: the slot of each crossing by an active slot (a slot crossing it twice is
  /// listed twice), 4 bytes a crossing. Which hop of the slot an entry is follows from the
  /// slot's user_index_ entries (detach()).
  flowsim_internal::ArenaLists<uint32_t> users_;
  /// Scratch of solve_component for the resources it fills (those with a level): the
  /// capacity not yet taken by fixed elements, bytes/s, and the elements not yet fixed.
  /// Allocated at a solve's first level, uninitialized (only the pages of the resources it
  /// writes are touched); freed after a large component's solve
  /// (release_scratch_after_large_solve()). Entries of resources without a level in the
  /// current solve are never read.
  std::unique_ptr<double[]> remaining_Bps_;
  std::unique_ptr<uint32_t[]> unfixed_;
  /// Whether the resource is in dirty_ or, during collect_component(), in the component: one
  /// bit a resource (the whole array stays in cache), cleared for the component at its end.
  std::vector<bool> listed_;
  /// Scratch of visit_in_id_order over resources (a large component's levels at the start of
  /// its solve, a large removal's lists), one bit a resource, apart from listed_ (which touch()
  /// may set between collect_component() and the solve). Allocated at the first large list,
  /// all false between uses.
  std::vector<bool> resource_marks_;
  /// Whether the resource is in removal_resources_, one bit a resource. Between the two
  /// passes of detach_removed(): whether its entries are detached one by one.
  std::vector<bool> has_removals_;
  /// The same for the slots of a large component, one bit a slot.
  std::vector<bool> starting_slots_;

  // Per slot: its path (the caller's memory) and, in user_index_[index_begin + hop], where
  // each hop's entry sits in users_[resource]. A slot's range of user_index_ has its path's
  // length (a removed slot keeps its last one): a slot reused with a path of another length
  // leaves its range to free_ranges_ and takes one of the new length there, or new entries.
  // The pool then holds, for each path length, at most the most slots that had that length
  // at once.
  /// What detach() reads of a slot, in one 16-byte record (one cache line, not three).
  struct SlotRoute {
    const uint32_t* path = nullptr;
    uint32_t length = 0;  ///< of the path, and of the slot's range of user_index_
    uint32_t index_begin = 0;
  };
  std::vector<SlotRoute> routes_;
  std::vector<uint32_t> user_index_;
  /// Entries of user_index_ handed out as ranges (take_range()); the rest are room.
  std::size_t user_index_taken_ = 0;
  /// free_ranges_[length]: begins of ranges of user_index_ of that length no slot holds.
  std::vector<std::vector<uint32_t>> free_ranges_;
  std::vector<double> bound_Bps_, rate_Bps_;
  /// kFixed | kRateChanged | kCollected, reset for the component per solve
  std::vector<uint8_t> fixed_;
  std::vector<uint32_t> free_slots_;

  std::vector<uint32_t> dirty_;    ///< resources whose users changed, each once, listed_
  std::vector<uint32_t> orphans_;  ///< slots added with an empty path since the last solve
  /// Slots removed since the last detach_removed(), in remove() order (each marked kRemoved),
  /// and the resources they cross, each once, in order of first crossing (has_removals_).
  std::vector<uint32_t> removed_slots_, removal_resources_;
  std::vector<uint32_t> component_slots_, component_resources_;
  flowsim_internal::LevelQueue levels_;
  /// add() calls since the last collect_component(), and whether remove() was called since.
  uint32_t added_since_collect_ = 0;
  bool removed_since_collect_ = false;
  /// The resource whose users solve_component is fixing at one level, if any.
  std::optional<uint32_t> filling_;
};

}  // namespace linksim
