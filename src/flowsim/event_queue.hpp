// SPDX-License-Identifier: Apache-2.0
// The simulator's event queue: a priority queue ordered by (time, insertion sequence).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/check.hpp"

namespace linksim {

enum class EventKind : uint8_t {
  kStart,   ///< a transfer's latency has elapsed: its sub-flows begin to share bandwidth
  kFinish,  ///< a sub-flow's last byte arrives (valid only if `version` is still current)
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
    // Built in place from the fields: a copied Event would be reloaded across the stores
    // that wrote it.
    if (run_head_ == run_.size()) {  // empty run: restart it
      run_.clear();
      run_head_ = 0;
      run_.emplace_back(time_s, order, id, version);
    } else if (time_s > run_.back().time_s ||
               (time_s == run_.back().time_s && order > run_.back().order)) {  // Later
      run_.emplace_back(time_s, order, id, version);
    } else {
      heap_.emplace_back(time_s, order, id, version);
      std::push_heap(heap_.begin(), heap_.end(), Later{});
    }
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
  bool empty() const { return heap_.empty() && run_head_ == run_.size(); }
  std::size_t size() const { return heap_.size() + (run_.size() - run_head_); }

 private:
  static constexpr std::size_t kCompactAt = 4096;

  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      if (a.time_s != b.time_s) return a.time_s > b.time_s;
      return a.order > b.order;
    }
  };
  // Drops the consumed prefix of the run once it is most of it: amortized O(1) per pop.
  void compact_run() {
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
  uint64_t next_sequence_ = 0;
};

}  // namespace linksim
