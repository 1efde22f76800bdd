// SPDX-License-Identifier: Apache-2.0
// The simulator's event queue: a priority queue ordered by (time, insertion sequence).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/check.hpp"
#include "common/huge_pages.hpp"

namespace linksim {

enum class EventKind : uint8_t {
  kStart,        ///< a transfer's latency has elapsed: its sub-flows begin to share bandwidth
  kFinish,       ///< a sub-flow's last byte arrives (valid only if `version` is still current)
  kFinishGroup,  ///< several sub-flows' last bytes arrive; `id` names the group to its owner
};

struct Event {
  Event() = default;
  Event(double time_s_, uint64_t order_, uint32_t id_, uint32_t version_)
      : time_s(time_s_), order(order_), id(id_), version(version_) {}

  double time_s = 0;
  /// (insertion sequence << 8) | kind: the sequence breaks ties between equal times
  /// first-in first-out; packing the kind keeps an event at 24 bytes.
  uint64_t order = 0;
  uint32_t id = 0;       ///< transfer id (kStart) or sub-flow slot (kFinish)
  uint32_t version = 0;  ///< kFinish: the slot's version when scheduled; stale if it changed

  EventKind kind() const { return static_cast<EventKind>(order & 0xff); }
};

/// Events in (time, sequence) order, which is total (the sequence is unique), so the pop
/// order, and with it the whole simulation, is deterministic.
///
/// Two sorted stores merged at the front: a run of events pushed in non-decreasing order
/// (a FIFO, O(1) push and pop) and a binary min-heap for the rest (O(log n)). Synchronous
/// programs push whole steps at one instant, so their events never touch the heap; the pop
/// order is the same as one heap's would be.
class EventQueue {
 public:
  void push(double time_s, EventKind kind, uint32_t id, uint32_t version = 0) {
    const uint64_t order = (next_sequence_++ << 8) | static_cast<uint8_t>(kind);
    // Built in place from the fields (not through place()): a copied Event would be reloaded
    // across the stores that wrote it.
    if (run_head_ == run_.size()) {  // empty run: restart it
      run_.clear();
      run_head_ = 0;
      run_.emplace_back(time_s, order, id, version);
    } else if (time_s > run_.back().time_s ||
               (time_s == run_.back().time_s && order > run_.back().order)) {  // Later
      if (run_.size() == run_.capacity()) grow_run();
      run_.emplace_back(time_s, order, id, version);
    } else {
      heap_.emplace_back(time_s, order, id, version);
      std::push_heap(heap_.begin(), heap_.end(), Later{});
    }
  }

  /// Many pushes at once: begin_batch(), batch_push() for each event, then end_batch(). The
  /// events get their sequence in batch_push() order and pop exactly as push() would have
  /// them; a batch sorted here lands in the run (a FIFO) instead of one heap entry each.
  /// No other call may come between begin_batch() and end_batch(). `room`: the events the
  /// batch will hold at most, allocated once instead of grown by doubling.
  void begin_batch(std::size_t room = 0) {
    if (run_head_ == run_.size()) {
      run_.clear();
      run_head_ = 0;
    }
    if (run_.capacity() < run_.size() + room) {
      if (run_.empty()) std::vector<Event>().swap(run_);  // not held beside the new storage
      run_.reserve(run_.size() + room);
    }
    batch_begin_ = run_.size();
  }
  void batch_push(double time_s, EventKind kind, uint32_t id, uint32_t version = 0) {
    const uint64_t order = (next_sequence_++ << 8) | static_cast<uint8_t>(kind);
    run_.emplace_back(time_s, order, id, version);
  }
  void end_batch() {
    const auto begin = run_.begin() + static_cast<std::ptrdiff_t>(batch_begin_);
    // (time, sequence) is a total order unless a time is NaN: the batch then goes through
    // push()'s placement one event at a time.
    const bool ordered = std::none_of(begin, run_.end(), [](const Event& e) {
      return e.time_s != e.time_s;
    });
    if (ordered) {
      if (!std::is_sorted(begin, run_.end(), Earlier{})) std::sort(begin, run_.end(), Earlier{});
      // Sorted and after the run's earlier events: the run stays sorted.
      if (batch_begin_ == run_head_ || begin == run_.end() ||
          Earlier{}(run_[batch_begin_ - 1], *begin)) {
        return;
      }
    }
    const std::vector<Event> batch(begin, run_.end());
    run_.resize(batch_begin_);
    for (const Event& event : batch) place(event);
  }
  /// REQUIRES: !empty().
  Event pop() {
    LINKSIM_CHECK(!empty(), "pop from an empty event queue");
    if (from_run()) {
      const Event event = run_[run_head_++];
      compact_run();
      return event;
    }
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Event event = heap_.back();
    heap_.pop_back();
    return event;
  }
  /// Pops every event at exactly `time_s` at the front, appending them to `out` in pop order.
  void pop_all_at(double time_s, std::vector<Event>& out) {
    if (!heap_.empty()) {
      while (!empty() && top().time_s == time_s) out.push_back(pop());
      return;
    }
    // Only the run holds events, in pop order: take its prefix at time_s at once.
    std::size_t end = run_head_;
    while (end < run_.size() && run_[end].time_s == time_s) ++end;
    out.insert(out.end(), run_.begin() + static_cast<std::ptrdiff_t>(run_head_),
               run_.begin() + static_cast<std::ptrdiff_t>(end));
    run_head_ = end;
    compact_run();
  }
  /// REQUIRES: !empty().
  const Event& top() const {
    LINKSIM_CHECK(!empty(), "top of an empty event queue");
    return from_run() ? run_[run_head_] : heap_.front();
  }
  /// The event that pops `ahead` pops after the next one, when the queue holds its run alone
  /// (no heap entry) and the run holds that many; null otherwise. Valid until the next push
  /// or pop. For a caller that prefetches what its next events will read.
  const Event* upcoming(std::size_t ahead) const {
    if (!heap_.empty() || run_.size() - run_head_ <= ahead) return nullptr;
    return &run_[run_head_ + ahead];
  }
  bool empty() const { return heap_.empty() && run_head_ == run_.size(); }
  std::size_t size() const { return heap_.size() + (run_.size() - run_head_); }

 private:
  // Doubles a full run's room as emplace_back would, asking for huge pages over it (a
  // cluster's start events: tens of MiB pushed in order, docs/flowsim.md#measured).
  void grow_run() {
    std::vector<Event> bigger;
    bigger.reserve(2 * run_.capacity());
    advise_huge_pages(bigger);
    bigger.insert(bigger.end(), run_.begin(), run_.end());
    run_.swap(bigger);
  }
  static constexpr std::size_t kCompactAt = 4096;
  /// Events of room a run popped to its end keeps for the next.
  static constexpr std::size_t kKeptRunEvents = std::size_t{1} << 16;

  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      if (a.time_s != b.time_s) return a.time_s > b.time_s;
      return a.order > b.order;
    }
  };
  struct Earlier {
    bool operator()(const Event& a, const Event& b) const { return Later{}(b, a); }
  };
  // push()'s placement of an event whose sequence is already set.
  void place(const Event& event) {
    if (run_head_ == run_.size()) {
      run_.clear();
      run_head_ = 0;
      run_.push_back(event);
    } else if (Later{}(event, run_.back())) {
      run_.push_back(event);
    } else {
      heap_.push_back(event);
      std::push_heap(heap_.begin(), heap_.end(), Later{});
    }
  }
  // Drops the consumed prefix of the run once it is most of it: amortized O(1) per pop. A run
  // popped to its end frees storage beyond kKeptRunEvents events (a start batch's, before the
  // solve that follows it).
  void compact_run() {
    if (run_head_ == run_.size() && run_.capacity() > kKeptRunEvents) {
      std::vector<Event>().swap(run_);
      run_head_ = 0;
      return;
    }
    if (run_head_ >= kCompactAt && 2 * run_head_ >= run_.size()) {
      run_.erase(run_.begin(), run_.begin() + static_cast<std::ptrdiff_t>(run_head_));
      run_head_ = 0;
    }
  }
  // Whether the earliest event is the run's front. REQUIRES: !empty().
  bool from_run() const {
    if (run_head_ == run_.size()) return false;
    return heap_.empty() || Later{}(heap_.front(), run_[run_head_]);
  }

  std::vector<Event> heap_;
  std::vector<Event> run_;  ///< sorted; run_[run_head_..] are pending
  std::size_t run_head_ = 0;
  std::size_t batch_begin_ = 0;  ///< begin_batch(): where the batch starts in run_
  uint64_t next_sequence_ = 0;
};

}  // namespace linksim
