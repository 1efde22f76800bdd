// SPDX-License-Identifier: Apache-2.0
// The max-min solver's queue of fill levels: the initial levels of a solve as sorted runs of
// ids that share one level, beside a LevelHeap for the levels that change
// (docs/flowsim.md#max-min-fair-rates).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "flowsim/level_heap.hpp"

namespace linksim::flowsim_internal {

/// The entries of a LevelHeap, popped in the same (level_Bps, kind, id) order, held in two
/// stores merged at the front: runs and a heap. A solve's initial entries take few distinct
/// levels (identical links, identical rate caps): those pushed with push_unordered() in
/// increasing id order for each kind go into one run per (level, kind), a list of 4-byte ids
/// already in pop order, popped in O(1) from its front. Entries pushed later, and an entry
/// whose level replace_top_level() changes, go into the heap. When the initial entries take
/// more than kMaxRuns distinct (level, kind) pairs or come in another id order, they all go
/// into the heap, which then holds what a LevelHeap alone would.
class LevelQueue {
 public:
  /// Distinct (level, kind) pairs held as runs at most.
  static constexpr std::size_t kMaxRuns = 16;

  bool empty() const { return runs_.empty() && heap_.empty(); }
  /// Room for `entries` entries in the heap, allocated at once. Changes no answer.
  void reserve(std::size_t entries) { heap_.reserve(entries); }
  /// Frees the heap's storage when the queue is empty and it has room for more than
  /// `entries`: a large solve does not keep it through the rest of the run (a run's storage
  /// is freed as it is popped). Changes no answer.
  void trim(std::size_t entries) {
    if (empty()) heap_.trim(entries);
  }

  /// Adds an initial entry without ordering the stores; order() must follow before any other
  /// call. REQUIRES: the queue is empty or only push_unordered() was called since it was.
  void push_unordered(const Level& level) {
    if (empty()) runs_usable_ = true;  // a new solve's entries may form runs again
    if (runs_usable_) {
      if (Run* run = run_for(level)) {
        if (run->ids.empty() || run->ids.back() < level.id) {
          run->ids.push_back(level.id);
          return;
        }
      } else if (runs_.size() < kMaxRuns) {
        runs_.push_back(Run{level.level_Bps, level.kind, {level.id}, 0});
        last_run_ = runs_.size() - 1;
        return;
      }
      spill_runs();
    }
    heap_.push_unordered(level);
  }
  /// Orders the stores after push_unordered() calls: O(runs log runs), plus O(n) for the
  /// entries in the heap.
  void order() {
    std::sort(runs_.begin(), runs_.end(), [](const Run& a, const Run& b) {
      return LevelHeap::before(a.front_at(0), b.front_at(0));
    });
    // Two runs of one kind at levels equal by value but not by bits (never the case for the
    // solver's levels, which are >= +0 and not NaN) would interleave: both go to the heap.
    for (std::size_t i = 1; i < runs_.size(); ++i) {
      if (runs_[i - 1].kind == runs_[i].kind && runs_[i - 1].level_Bps == runs_[i].level_Bps) {
        spill_runs();
        break;
      }
    }
    current_ = 0;
    heap_.heapify();
  }
  /// Adds an entry, O(log n) in the heap.
  void push(const Level& level) { heap_.push(level); }

  /// The least entry. REQUIRES: !empty().
  Level top() const { return top_in_run() ? runs_[current_].front() : heap_.top(); }
  /// Sets the least entry's level and restores the order, O(log n). REQUIRES: !empty().
  void replace_top_level(double level_Bps) {
    if (!top_in_run()) {
      heap_.replace_top_level(level_Bps);
      return;
    }
    Level moved = runs_[current_].front();
    moved.level_Bps = level_Bps;
    drop_run_front();
    heap_.push(moved);
  }
  /// Removes and returns the least entry. REQUIRES: !empty().
  Level pop() {
    if (!top_in_run()) return heap_.pop();
    const Level top = runs_[current_].front();
    drop_run_front();
    return top;
  }

 private:
  /// Entries of one (level, kind), ids increasing; those before `head` are popped.
  struct Run {
    double level_Bps;
    LevelKind kind;
    std::vector<uint32_t> ids;
    std::size_t head;

    Level front_at(std::size_t i) const { return Level{level_Bps, ids[i], kind}; }
    Level front() const { return front_at(head); }
  };

  /// Whether the least entry is the front of the current run (ties with the heap's top,
  /// equal in all three fields, are interchangeable).
  bool top_in_run() const {
    if (current_ == runs_.size()) return false;
    return heap_.empty() || !LevelHeap::before(heap_.top(), runs_[current_].front());
  }
  void drop_run_front() {
    Run& run = runs_[current_];
    if (++run.head < run.ids.size()) return;
    std::vector<uint32_t>().swap(run.ids);  // popped: its storage is not held to the end
    if (++current_ < runs_.size()) return;
    runs_.clear();  // keeps runs_ empty or current_ at a run with entries left
    current_ = 0;
  }
  /// The run of the level's (level bits, kind), or null. The run of the last push first.
  Run* run_for(const Level& level) {
    const auto same = [&](const Run& run) {
      return run.kind == level.kind &&
             std::bit_cast<uint64_t>(run.level_Bps) == std::bit_cast<uint64_t>(level.level_Bps);
    };
    if (last_run_ < runs_.size() && same(runs_[last_run_])) return &runs_[last_run_];
    for (std::size_t i = 0; i < runs_.size(); ++i) {
      if (!same(runs_[i])) continue;
      last_run_ = i;
      return &runs_[i];
    }
    return nullptr;
  }
  /// Moves every run's entries into the heap (unordered); later initial entries go there too.
  void spill_runs() {
    for (const Run& run : runs_) {
      for (std::size_t i = run.head; i < run.ids.size(); ++i) heap_.push_unordered(run.front_at(i));
    }
    runs_.clear();
    current_ = 0;
    runs_usable_ = false;
  }

  std::vector<Run> runs_;     ///< sorted by their (level, kind) after order()
  std::size_t current_ = 0;   ///< the first run with entries left, once runs_ is ordered
  std::size_t last_run_ = 0;  ///< the run push_unordered() last appended to
  bool runs_usable_ = true;   ///< false once the initial entries spilled into the heap
  LevelHeap heap_;
};

}  // namespace linksim::flowsim_internal
