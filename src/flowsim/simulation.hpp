// SPDX-License-Identifier: Apache-2.0
// The discrete-event loop (docs/flowsim.md#event-loop): start and finish events, incremental
// re-solve and resource metering, over any source of transfers. Two sources use it: a whole
// Program held at once (event_loop.cpp) and a step program generated as it runs
// (step_simulation.cpp); the loop is the same code, so both give bit-identical times.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "flowsim/busiest_first.hpp"
#include "flowsim/event_queue.hpp"
#include "flowsim/instant_table.hpp"
#include "flowsim/max_min_solver.hpp"
#include "linksim/flowsim.hpp"

namespace linksim::flowsim_internal {

/// What the loop reads from a source, for a transfer id t it was given:
///   double bytes(t), rate_cap_Bps(t); uint32_t subflow_count(t);
///   double share(t, k); std::span<const uint32_t> path(t, k)   (k < subflow_count(t); the
///     span must stay valid until the sub-flow finishes);
///   uint32_t& pending(t)                        sub-flows of a started transfer not yet done;
///   initial(ready)                              ready(t, latency_s) for every transfer with
///                                               no dependency, in id order;
///   finished(t, now, ready)                     records t's finish and calls ready(d, latency)
///                                               for each dependent d it releases, in order;
///   add_bytes(resources)                        adds every sub-flow's bytes to the resources
///                                               it crosses, in transfer order;
///   optionally, bool batch_step(batch, key, first)  whether the batch's events are the start
///                                               events of exactly the transfers first,
///                                               first + 1, ... of one group (in any order),
///                                               and then a key (> 0) of their content: equal
///                                               keys, equal transfers at equal indices, their
///                                               paths at the same storage.
struct Outcome {
  std::vector<ResourceUsage> resources;
  std::vector<ResourceId> bottlenecks;
  double makespan_s = 0;
  /// Batches run as lone steps (docs/flowsim.md#lone-steps).
  uint64_t lone_steps = 0;
};

template <typename Source>
class Simulation {
 public:
  Simulation(Source& source, std::span<const double> capacities_Bps, double precision)
      : source_(source),
        capacities_Bps_(capacities_Bps),
        precision_(precision),
        solver_(capacities_Bps) {}

  /// Runs the source to its end. Call once: the solver's storage is released before the
  /// outcome's per-resource array is made, so the two are never held at once.
  Outcome run() {
    // What starts at once sizes the solver up front (no growth by doubling).
    std::size_t subflows = 0, elements = 0;
    source_.initial([&](uint32_t t, double latency_s) {
      queue_.push(latency_s, EventKind::kStart, t);
      subflows += source_.subflow_count(t);
      for (uint32_t k = 0; k < source_.subflow_count(t); ++k) elements += source_.path(t, k).size();
    });
    solver_.reserve(subflows, elements);
    remaining_bytes_.reserve(subflows);
    updated_at_.reserve(subflows);
    version_.reserve(subflows);
    transfer_of_.reserve(subflows);
    // Events within precision x now of the first are one batch: processed at `now`, then one
    // re-solve (docs/flowsim.md#tolerance).
    while (!queue_.empty()) {
      if (instants_.wants_compaction()) compact_instants();
      const double now = queue_.top().time_s;
      const double horizon_s = now + precision_ * now;
      if (solver_.active_count() == 0 && run_lone_step(now)) continue;
      while (!queue_.empty() && queue_.top().time_s <= horizon_s) {
        if (const Event* later = queue_.upcoming(kAddLookahead)) prefetch_start(*later);
        handle(queue_.pop(), now);
      }
      if (solver_.has_changes()) resolve(now);
    }
    summarize();
    return std::move(outcome_);
  }

 private:
  /// saturated_since_ of a resource below its saturation threshold.
  static constexpr uint32_t kUnsaturated = InstantTable::kNone;

  /// Keeps the instants that slots and meters still name (InstantTable::compact()).
  void compact_instants() {
    instants_.compact([this](auto&& visit) {
      for (uint32_t& instant : updated_at_) visit(instant);
      for (uint32_t& instant : saturated_since_) visit(instant);
    });
  }

  void handle(const Event& event, double now) {
    if (event.kind() == EventKind::kStart) {
      start_transfer(event.id, now);
    } else if (event.kind() == EventKind::kFinishGroup) {
      finish_group(event.id, now);
    } else if (event.version == version_[event.id]) {
      finish_slot(event.id, now);
    }
  }

  // Nothing is active and the queue holds only start events at `now`. When they are all of
  // one byte count per rate, on single paths that share no resource (so each flow is alone
  // on its links, at min(bound, capacities)) and would all finish at one instant, the
  // loop's work for them (adding, solving, scheduling, removing) is done here in closed form,
  // in the same order and with the same doubles. Otherwise the popped events are handled as
  // usual and the caller continues the batch. Returns whether the step was run here.
  bool run_lone_step(double now) {
    // A first event that no lone step starts with leaves the batch to the caller's loop,
    // which handles the same events in the same order, without copying them out first.
    if (!may_start_lone_step(queue_.top())) return false;
    batch_.clear();
    queue_.pop_all_at(now, batch_);
    if (!queue_.empty() || !plan_lone_step(now)) {
      for (std::size_t i = 0; i < batch_.size(); ++i) {
        if (i + kAddLookahead < batch_.size()) prefetch_start(batch_[i + kAddLookahead]);
        handle(batch_[i], now);
      }
      // A large batch that was not a lone step (a collective whose flows all start at once)
      // is not kept for the rest of the run: 24 bytes an event, at the peak of memory.
      if (batch_.capacity() > kKeptBatchEvents) std::vector<Event>().swap(batch_);
      return false;
    }
    solver_.cycle_slots(static_cast<uint32_t>(batch_.size()));
    // The batch of their finishes, in the order they started (the component's order).
    // Releasing dependents touches only the queue, so the removals' marks can follow.
    const double finish_s = lone_finish_s_;
    for (const Event& event : batch_) finish_transfer(event.id, finish_s);
    const double horizon_s = finish_s + precision_ * finish_s;
    if (!queue_.empty() && queue_.top().time_s <= horizon_s) {
      // Starts within the horizon join the finish batch: meter at `now`, mark the removals'
      // resources, then run the batch and its resolve as the loop would.
      for (std::size_t i = 0; i < batch_.size(); ++i) {
        for (uint32_t resource : lone_path_[i]) meter_at(resource, now, lone_rate_Bps_[i]);
      }
      for (std::size_t i = 0; i < batch_.size(); ++i) {
        for (uint32_t resource : lone_path_[i]) solver_.touch(resource);
      }
      while (!queue_.empty() && queue_.top().time_s <= horizon_s) {
        handle(queue_.pop(), finish_s);
      }
      resolve(finish_s);
    } else {
      // resolve(now) would meter each resource at its lone flow's rate, resolve(finish_s) at
      // load 0 (an empty resource's load is 0 once solved, as these are solved at every
      // removal).
      for (std::size_t i = 0; i < batch_.size(); ++i) {
        for (uint32_t resource : lone_path_[i]) {
          meter_at(resource, now, lone_rate_Bps_[i]);
          meter_at(resource, finish_s, 0.0);
        }
      }
    }
    ++outcome_.lone_steps;
    return true;
  }

  // Whether batch_ is a lone step (see run_lone_step); sets lone_rate_Bps_ and lone_path_ per
  // event and lone_finish_s_ as resolve() and the solver's lone-flow path would compute them.
  // A batch whose source names it as the transfers of a group already planned as lone
  // replays that plan: only the finish times depend on `now`.
  bool plan_lone_step(double now) {
    if constexpr (requires(uint64_t key, uint32_t first) {
                    source_.batch_step(std::span<const Event>(batch_), key, first);
                  }) {
      uint64_t key = 0;
      uint32_t first = 0;
      if (!source_.batch_step(std::span<const Event>(batch_), key, first)) {
        return plan_batch(now);
      }
      if (key == lone_memo_key_) return replay_plan(now, first);
      if (!plan_batch(now)) return false;
      remember_plan(key, first);
      return true;
    } else {
      return plan_batch(now);
    }
  }

  // Keeps the plan just made for the group of `key` whose first transfer is `first`: rates,
  // paths and durations by index in the group.
  void remember_plan(uint64_t key, uint32_t first) {
    lone_memo_key_ = key;
    lone_memo_rate_Bps_.resize(batch_.size());
    lone_memo_path_.resize(batch_.size());
    lone_memo_durations_s_.clear();
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      const uint32_t index = batch_[i].id - first;
      lone_memo_rate_Bps_[index] = lone_rate_Bps_[i];
      lone_memo_path_[index] = lone_path_[i];
    }
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      const uint32_t transfer = batch_[i].id;
      const double duration_s =
          source_.bytes(transfer) * source_.share(transfer, 0) / lone_rate_Bps_[i];
      if (lone_memo_durations_s_.empty() || duration_s != lone_memo_durations_s_.back()) {
        lone_memo_durations_s_.push_back(duration_s);
      }
    }
  }

  // plan_batch's result for a batch of the remembered group, whose first transfer is now
  // `first`: the same rates and paths, and a common finish if now + every duration is one
  // double.
  bool replay_plan(double now, uint32_t first) {
    lone_finish_s_ = now + lone_memo_durations_s_.front();
    for (double duration_s : lone_memo_durations_s_) {
      if (now + duration_s != lone_finish_s_) return false;
    }
    lone_rate_Bps_.resize(batch_.size());
    lone_path_.resize(batch_.size());
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      const uint32_t index = batch_[i].id - first;
      lone_rate_Bps_[i] = lone_memo_rate_Bps_[index];
      lone_path_[i] = lone_memo_path_[index];
    }
    return true;
  }

  // Whether a lone step may begin with `event`: plan_batch() refuses a batch whose first
  // event is not the start of a transfer of bytes on one sub-flow, and a batch that
  // batch_step() matches to a planned group holds the same transfers as a batch that
  // plan_batch() accepted.
  bool may_start_lone_step(const Event& event) const {
    return event.kind() == EventKind::kStart && source_.bytes(event.id) != 0 &&
           source_.subflow_count(event.id) == 1;
  }

  // plan_lone_step from the transfers themselves.
  bool plan_batch(double now) {
    if (++stamp_epoch_ == 0) {  // wrapped: no stamp may look current
      std::fill(stamp_.begin(), stamp_.end(), 0);
      stamp_epoch_ = 1;
    }
    lone_rate_Bps_.clear();
    lone_path_.clear();
    double last_bytes = 0, last_share = 0, last_rate_Bps = 0;
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      const Event& event = batch_[i];
      if (event.kind() != EventKind::kStart) return false;
      const uint32_t transfer = event.id;
      const double bytes = source_.bytes(transfer);
      if (bytes == 0 || source_.subflow_count(transfer) != 1) return false;
      const double share = source_.share(transfer, 0);
      const std::span<const uint32_t> path = source_.path(transfer, 0);
      if (path.empty()) return false;
      double rate_Bps = source_.rate_cap_Bps(transfer) * share;
      // Sized when first needed: a program whose first batch is not a candidate never is.
      if (stamp_.empty()) stamp_.assign(capacities_Bps_.size(), 0);
      for (uint32_t resource : path) {
        if (stamp_[resource] == stamp_epoch_) return false;  // shared or crossed twice
        stamp_[resource] = stamp_epoch_;
        rate_Bps = std::min(rate_Bps, capacities_Bps_[resource]);
      }
      if (!(rate_Bps > 0)) return false;
      // The same bytes, share and rate as the previous transfer give the same finish.
      if (i == 0 || bytes != last_bytes || share != last_share || rate_Bps != last_rate_Bps) {
        const double finish_s = now + bytes * share / rate_Bps;
        if (i == 0) {
          lone_finish_s_ = finish_s;
        } else if (finish_s != lone_finish_s_) {
          return false;
        }
        last_bytes = bytes;
        last_share = share;
        last_rate_Bps = rate_Bps;
      }
      lone_rate_Bps_.push_back(rate_Bps);
      lone_path_.push_back(path);
    }
    return true;
  }

  // Starts loading what the start of a transfer's sub-flows will read in the solver, for an
  // event handled a few events later (their cache misses then overlap). Changes no state.
  void prefetch_start(const Event& event) const {
    if (event.kind() != EventKind::kStart) return;
    for (uint32_t k = 0; k < source_.subflow_count(event.id); ++k) {
      solver_.prefetch_add(source_.path(event.id, k));
    }
  }

  void start_transfer(uint32_t transfer, double now) {
    const double bytes = source_.bytes(transfer);
    if (bytes == 0) {  // no sharing phase: done once the latency has elapsed
      finish_transfer(transfer, now);
      return;
    }
    const uint32_t subflows = source_.subflow_count(transfer);
    source_.pending(transfer) = subflows;
    const double rate_cap_Bps = source_.rate_cap_Bps(transfer);
    for (uint32_t k = 0; k < subflows; ++k) {
      const double share = source_.share(transfer, k);
      const uint32_t slot = solver_.add(source_.path(transfer, k), rate_cap_Bps * share);
      if (slot >= remaining_bytes_.size()) grow_slot_arrays(slot);
      remaining_bytes_[slot] = bytes * share;
      updated_at_[slot] = instants_.index_of(now);
      ++version_[slot];
      transfer_of_[slot] = transfer;
    }
  }

  // Makes room in the per-slot arrays for `slot`: up to the room reserved for them (run()
  // reserves what starts at once) in one step when it holds `slot`, instead of one resize a
  // new slot. Entries past the solver's slots are as a new slot's: no instant, version 0.
  void grow_slot_arrays(uint32_t slot) {
    const std::size_t size = std::max<std::size_t>(slot + 1, remaining_bytes_.capacity());
    remaining_bytes_.resize(size);
    updated_at_.resize(size, InstantTable::kNone);
    version_.resize(size, 0);
    transfer_of_.resize(size);
  }

  void finish_slot(uint32_t slot, double now) {
    solver_.remove(slot);
    ++version_[slot];
    const uint32_t transfer = transfer_of_[slot];
    if (--source_.pending(transfer) == 0) finish_transfer(transfer, now);
  }

  void finish_transfer(uint32_t transfer, double now) {
    outcome_.makespan_s = std::max(outcome_.makespan_s, now);
    source_.finished(transfer, now, [&](uint32_t dependent, double latency_s) {
      queue_.push(now + latency_s, EventKind::kStart, dependent);
    });
  }

  // Re-solves the component touched by this batch. Slots keep their scheduled finish event
  // when their rate is unchanged: t + remaining / rate is then the same instant.
  void resolve(double now) {
    solver_.collect_component();
    const uint32_t now_instant = instants_.index_of(now);
    for (uint32_t slot : solver_.component_slots()) {
      const double elapsed_s = now - instants_.at(updated_at_[slot]);
      // The solver's rate is still the one the slot ran at since updated_at_ (0 from add()).
      const double rate_Bps = solver_.rate_Bps(slot);
      if (elapsed_s > 0 && rate_Bps > 0) {
        remaining_bytes_[slot] = std::max(0.0, remaining_bytes_[slot] - rate_Bps * elapsed_s);
      }
      updated_at_[slot] = now_instant;
    }
    solver_.solve_component();
    push_finishes(now);
    meter_component(now);
    solver_.release_large_component();
  }

  // Meters the solved component's resources. Each resource's metering depends on its own
  // state alone, so the order is free: a component of at least 1/kMeterScanFraction of all
  // resources is metered in id order (its per-resource arrays read front to back, instead of
  // in the component's search order), marked in a bit set first.
  void meter_component(double now) {
    const std::span<const uint32_t> resources = solver_.component_resources();
    if (resources.size() * kMeterScanFraction < capacities_Bps_.size()) {
      for (uint32_t resource : resources) meter(resource, now);
      return;
    }
    if (in_component_.empty()) in_component_.assign(capacities_Bps_.size(), false);
    for (uint32_t resource : resources) in_component_[resource] = true;
    const auto count = static_cast<uint32_t>(capacities_Bps_.size());
    for (uint32_t resource = 0; resource < count; ++resource) {
      if (!in_component_[resource]) continue;
      in_component_[resource] = false;
      meter(resource, now);
    }
  }

  /// When the slot, running at its solved rate from `now`, sends its last byte.
  double finish_time_s(uint32_t slot, double now) const {
    return now + remaining_bytes_[slot] / solver_.rate_Bps(slot);
  }

  // Schedules the finish of each slot of the solved component whose rate changed (an
  // unchanged rate keeps its scheduled finish), as one queue batch: one kFinish event a slot,
  // in component order. A large batch whose finish times take at most kFewFinishTimes
  // distinct values, none NaN (a collective's flows end at a few instants), is scheduled as
  // one kFinishGroup event per instant instead, earliest first, each naming its slots in
  // component order (8 bytes a slot instead of a 24-byte event). The two pop alike: the
  // batch's events would hold the consecutive sequences given at this push, so no other
  // event falls between two of one instant; the group holds the batch's place among the
  // queue's other events, and handle() finishes its slots in their sequence order.
  void push_finishes(double now) {
    const std::span<const uint32_t> slots = solver_.component_slots();
    std::array<double, kFewFinishTimes> times_s{};  // [0, distinct) sorted ascending
    std::array<std::size_t, kFewFinishTimes> counts{};
    std::size_t distinct = 0, changed = 0;
    bool few = true;
    for (uint32_t slot : slots) {
      if (!few) break;
      if (!solver_.rate_changed(slot)) continue;
      ++changed;
      const double finish_s = finish_time_s(slot, now);
      if (std::isnan(finish_s)) {
        few = false;
        break;
      }
      const auto known = times_s.begin() + static_cast<std::ptrdiff_t>(distinct);
      const auto at = std::lower_bound(times_s.begin(), known, finish_s);
      const auto i = static_cast<std::size_t>(at - times_s.begin());
      if (at != known && *at == finish_s) {
        ++counts[i];
        continue;
      }
      if (distinct == kFewFinishTimes) {
        few = false;
        break;
      }
      std::copy_backward(at, known, known + 1);
      std::copy_backward(counts.begin() + static_cast<std::ptrdiff_t>(i),
                         counts.begin() + static_cast<std::ptrdiff_t>(distinct),
                         counts.begin() + static_cast<std::ptrdiff_t>(distinct) + 1);
      *at = finish_s;
      counts[i] = 1;
      ++distinct;
    }
    if (!few || changed < kGroupedFinishesFrom) {
      queue_.begin_batch(slots.size());
      for (uint32_t slot : slots) {
        if (!solver_.rate_changed(slot)) continue;
        queue_.batch_push(finish_time_s(slot, now), EventKind::kFinish, slot, ++version_[slot]);
      }
      queue_.end_batch();
      return;
    }
    std::array<uint32_t, kFewFinishTimes> groups{};  // per distinct time
    for (std::size_t i = 0; i < distinct; ++i) groups[i] = new_finish_group();
    for (std::size_t i = 0; i < distinct; ++i) finish_groups_[groups[i]].reserve(counts[i]);
    const auto known = times_s.begin() + static_cast<std::ptrdiff_t>(distinct);
    for (uint32_t slot : slots) {
      if (!solver_.rate_changed(slot)) continue;
      const auto i =
          std::lower_bound(times_s.begin(), known, finish_time_s(slot, now)) - times_s.begin();
      finish_groups_[groups[static_cast<std::size_t>(i)]].push_back(
          SlotVersion{slot, ++version_[slot]});
    }
    queue_.begin_batch(distinct);
    for (std::size_t i = 0; i < distinct; ++i) {
      queue_.batch_push(times_s[i], EventKind::kFinishGroup, groups[i]);
    }
    queue_.end_batch();
  }

  uint32_t new_finish_group() {
    if (free_finish_groups_.empty()) {
      finish_groups_.emplace_back();
      return static_cast<uint32_t>(finish_groups_.size() - 1);
    }
    const uint32_t group = free_finish_groups_.back();
    free_finish_groups_.pop_back();
    return group;
  }

  // Finishes the group's slots whose finish it still holds, in order; frees its storage.
  void finish_group(uint32_t group, double now) {
    std::vector<SlotVersion> members;
    members.swap(finish_groups_[group]);
    free_finish_groups_.push_back(group);
    // The slots are in no id order: what removing the slots a few members ahead reads is
    // loaded meanwhile (MaxMinSolver::prefetch_remove), so that the cache misses overlap.
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i + 2 * kRemoveLookahead < members.size()) {
        solver_.prefetch_remove(members[i + kRemoveLookahead].slot,
                                members[i + 2 * kRemoveLookahead].slot);
      }
      const SlotVersion& member = members[i];
      if (member.version == version_[member.slot]) finish_slot(member.slot, now);
    }
  }

  void meter(uint32_t resource, double now) { meter_at(resource, now, solver_.load_Bps(resource)); }

  // Closes the resource's metered interval at `now`; `load_Bps` holds from now on.
  void meter_at(uint32_t resource, double now, double load_Bps) {
    if (busy_s_.empty()) {
      busy_s_.assign(capacities_Bps_.size(), 0.0);
      saturated_since_.assign(capacities_Bps_.size(), kUnsaturated);
    }
    close_interval(resource, now);
    const double threshold_Bps = (1 - precision_) * capacities_Bps_[resource];
    // Only a saturated interval names its start: an unsaturated one adds no instant.
    saturated_since_[resource] = load_Bps >= threshold_Bps ? instants_.index_of(now) : kUnsaturated;
  }
  /// Adds the time since the resource was last metered to its busy time if it was saturated.
  void close_interval(uint32_t resource, double now) {
    if (saturated_since_[resource] != kUnsaturated) {
      busy_s_[resource] += now - instants_.at(saturated_since_[resource]);
    }
  }

  void summarize() {
    const auto resources = static_cast<uint32_t>(capacities_Bps_.size());
    // The last interval of each resource ends at the makespan (no later state is read).
    for (uint32_t r = 0; r < busy_s_.size(); ++r) close_interval(r, outcome_.makespan_s);
    solver_.release();
    queue_ = EventQueue();
    outcome_.resources.resize(resources);
    // No meter yet: nothing was ever metered, so nothing was busy.
    for (uint32_t r = 0; r < busy_s_.size(); ++r) outcome_.resources[r].busy_s = busy_s_[r];
    std::vector<double>().swap(busy_s_);
    std::vector<uint32_t>().swap(saturated_since_);
    source_.add_bytes(outcome_.resources);
    outcome_.bottlenecks = busiest_first(outcome_.resources);
  }

  /// push_finishes() groups the finishes of a re-solve that changed at least
  /// kGroupedFinishesFrom slots' rates and has at most kFewFinishTimes distinct finish times.
  static constexpr std::size_t kFewFinishTimes = 8;
  static constexpr std::size_t kGroupedFinishesFrom = 1024;
  /// meter_component() scans every resource for a component of at least 1/8 of them.
  static constexpr std::size_t kMeterScanFraction = 8;
  /// run_lone_step() prefetches the solver's lists for the start event this many events
  /// ahead of the one it handles (MaxMinSolver::prefetch_add).
  static constexpr std::size_t kAddLookahead = 4;
  /// finish_group() prefetches the path of the slot this many members ahead of the one it
  /// finishes, and the solver's record of the slot twice as far.
  static constexpr std::size_t kRemoveLookahead = 8;
  /// Events of a lone-step candidate batch whose storage is kept between batches.
  static constexpr std::size_t kKeptBatchEvents = std::size_t{1} << 16;

  Source& source_;
  std::span<const double> capacities_Bps_;
  const double precision_;
  EventQueue queue_;
  MaxMinSolver solver_;
  Outcome outcome_;

  /// The instants that updated_at_ and saturated_since_ name.
  InstantTable instants_;
  // Per solver slot (an active sub-flow). Bytes left are exact as of the instant updated_at_.
  std::vector<double> remaining_bytes_;
  std::vector<uint32_t> updated_at_;  ///< an index into instants_
  std::vector<uint32_t> version_;  ///< bumped whenever the slot's scheduled finish changes
  std::vector<uint32_t> transfer_of_;

  /// A slot and its version when its finish was scheduled (stale once the version moved on).
  struct SlotVersion {
    uint32_t slot;
    uint32_t version;
  };
  /// Per kFinishGroup event (its id): the slots finishing at its time, in sequence order;
  /// emptied, and its id reused, once handled.
  std::vector<std::vector<SlotVersion>> finish_groups_;
  std::vector<uint32_t> free_finish_groups_;

  // Per resource, empty until the first metering (a resource not yet metered is unsaturated
  // and idle), so that they are not held beside the first solve's storage: the saturated
  // time before saturated_since_ (Outcome's busy_s), and the instant of the last meter_at()
  // if it found the resource saturated, kUnsaturated otherwise (the interval since then
  // counts as busy). 12 bytes a resource.
  std::vector<double> busy_s_;
  std::vector<uint32_t> saturated_since_;
  /// meter_component(): the component's resources, all false between calls.
  std::vector<bool> in_component_;

  // Lone steps: the popped start events, each one's rate, their common finish time, and a
  // per-resource stamp telling the resources of the step being planned.
  std::vector<Event> batch_;
  std::vector<double> lone_rate_Bps_;
  std::vector<std::span<const uint32_t>> lone_path_;
  double lone_finish_s_ = 0;
  // The last group planned as lone (batch_step's key, 0 for none): rate and path by index in
  // the group, and its distinct durations, seconds.
  uint64_t lone_memo_key_ = 0;
  std::vector<double> lone_memo_rate_Bps_;
  std::vector<std::span<const uint32_t>> lone_memo_path_;
  std::vector<double> lone_memo_durations_s_;
  std::vector<uint32_t> stamp_;
  uint32_t stamp_epoch_ = 0;
};

}  // namespace linksim::flowsim_internal
