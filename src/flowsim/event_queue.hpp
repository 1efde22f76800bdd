// SPDX-License-Identifier: Apache-2.0
// The simulator's event queue: a binary min-heap ordered by (time, insertion sequence).
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
  double time_s = 0;
  /// (insertion sequence << 8) | kind: the sequence breaks ties between equal times
  /// first-in first-out; packing the kind keeps an event at 24 bytes.
  uint64_t order = 0;
  uint32_t id = 0;       ///< transfer id (kStart) or sub-flow slot (kFinish)
  uint32_t version = 0;  ///< kFinish: the slot's version when scheduled; stale if it changed

  EventKind kind() const { return static_cast<EventKind>(order & 0xff); }
};

/// Min-heap of events. Ordering is total ((time, sequence) is unique), so the pop order, and
/// with it the whole simulation, is deterministic. push and pop are O(log n).
class EventQueue {
 public:
  void push(double time_s, EventKind kind, uint32_t id, uint32_t version = 0) {
    heap_.push_back(Event{time_s, (next_sequence_++ << 8) | static_cast<uint8_t>(kind), id, version});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }
  /// REQUIRES: !empty().
  Event pop() {
    LINKSIM_CHECK(!heap_.empty(), "pop from an empty event queue");
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    Event event = heap_.back();
    heap_.pop_back();
    return event;
  }
  /// REQUIRES: !empty().
  const Event& top() const {
    LINKSIM_CHECK(!heap_.empty(), "top of an empty event queue");
    return heap_.front();
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      if (a.time_s != b.time_s) return a.time_s > b.time_s;
      return a.order > b.order;
    }
  };
  std::vector<Event> heap_;
  uint64_t next_sequence_ = 0;
};

}  // namespace linksim
