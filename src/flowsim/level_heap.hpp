// SPDX-License-Identifier: Apache-2.0
// The max-min solver's priority queue of fill levels: an indexed binary min-heap holding at
// most one entry per resource (updated in place as its level changes) and the rate bounds of
// the slots being solved (docs/flowsim.md#max-min-fair-rates).
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace linksim::flowsim_internal {

enum class LevelKind : uint8_t { kResource = 0, kSlotBound = 1 };

struct Level {
  double level_Bps;
  uint32_t id;  ///< resource or slot, by kind
  LevelKind kind;
};

/// Min-heap on (level_Bps, kind, id), a total order, so the pop sequence is determined by the
/// entries alone. Resource entries are indexed: set_resource() inserts or moves one, and
/// erase_resource() drops it, in O(log n). Slot bounds are pushed once per solve.
class LevelHeap {
 public:
  explicit LevelHeap(std::size_t resources) : position_(resources, kAbsent) {}

  bool empty() const { return heap_.empty(); }
  /// Room for `entries` entries, allocated at once. Changes no answer.
  void reserve(std::size_t entries) { heap_.reserve(entries); }
  /// Frees the storage of an empty heap that has room for more than `entries`: a large solve
  /// does not keep it through the rest of the run. Changes no answer.
  void trim(std::size_t entries) {
    if (heap_.empty() && heap_.capacity() > entries) std::vector<Level>().swap(heap_);
  }

  /// Adds an entry without restoring the heap order; heapify() must follow before any other
  /// call. REQUIRES: a resource entry's resource is not in the heap.
  void push_unordered(const Level& level) {
    if (level.kind == LevelKind::kResource) position_[level.id] = size();
    heap_.push_back(level);
  }
  /// Restores the heap order after push_unordered() calls, in O(n).
  void heapify() {
    for (uint32_t i = size() / 2; i-- > 0;) sift_down(i);
  }

  /// Sets resource `resource`'s entry to `level_Bps`, inserting it if absent.
  void set_resource(uint32_t resource, double level_Bps) {
    uint32_t i = position_[resource];
    if (i == kAbsent) {
      i = size();
      heap_.push_back(Level{level_Bps, resource, LevelKind::kResource});
      position_[resource] = i;
      sift_up(i);
      return;
    }
    const bool lower = level_Bps < heap_[i].level_Bps;
    heap_[i].level_Bps = level_Bps;
    if (lower) {
      sift_up(i);
    } else {
      sift_down(i);
    }
  }
  /// Drops resource `resource`'s entry if it has one.
  void erase_resource(uint32_t resource) {
    const uint32_t i = position_[resource];
    if (i == kAbsent) return;
    position_[resource] = kAbsent;
    const uint32_t last = size() - 1;
    if (i != last) {
      place(i, heap_[last]);
      heap_.pop_back();
      sift_up(i);
      sift_down(i);
    } else {
      heap_.pop_back();
    }
  }

  /// The least entry. REQUIRES: !empty().
  const Level& top() const { return heap_.front(); }
  /// Whether resource `resource` has an entry, and its level if so.
  bool has_resource(uint32_t resource) const { return position_[resource] != kAbsent; }
  /// REQUIRES: has_resource(resource).
  double resource_level(uint32_t resource) const { return heap_[position_[resource]].level_Bps; }

  /// Removes and returns the least entry. REQUIRES: !empty().
  Level pop() {
    const Level top = heap_.front();
    if (top.kind == LevelKind::kResource) position_[top.id] = kAbsent;
    const uint32_t last = size() - 1;
    if (last > 0) {
      place(0, heap_[last]);
      heap_.pop_back();
      sift_down(0);
    } else {
      heap_.pop_back();
    }
    return top;
  }

 private:
  static constexpr uint32_t kAbsent = std::numeric_limits<uint32_t>::max();

  static bool before(const Level& a, const Level& b) {
    if (a.level_Bps != b.level_Bps) return a.level_Bps < b.level_Bps;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.id < b.id;
  }
  uint32_t size() const { return static_cast<uint32_t>(heap_.size()); }

  void place(uint32_t i, const Level& level) {
    heap_[i] = level;
    if (level.kind == LevelKind::kResource) position_[level.id] = i;
  }
  void sift_up(uint32_t i) {
    const Level moving = heap_[i];
    while (i > 0) {
      const uint32_t parent = (i - 1) / 2;
      if (!before(moving, heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, moving);
  }
  void sift_down(uint32_t i) {
    const Level moving = heap_[i];
    const uint32_t n = size();
    while (true) {
      uint32_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], moving)) break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, moving);
  }

  std::vector<Level> heap_;
  std::vector<uint32_t> position_;  ///< per resource: its index in heap_, or kAbsent
};

}  // namespace linksim::flowsim_internal
