// SPDX-License-Identifier: Apache-2.0
// The max-min solver's priority queue of fill levels: a 4-ary min-heap of resource levels
// and of the rate bounds of the slots being solved (docs/flowsim.md#max-min-fair-rates).
// A d-ary heap (D. B. Johnson, "Priority queues with update and finding minimum spanning
// trees", Information Processing Letters 4(3), 1975) with d = 4: half the levels of a binary
// heap, and a node's four 16-byte children are 64 adjacent bytes, so a sift through a heap
// larger than the caches reads about half as many cache lines.
#pragma once

#include <algorithm>
#include <cstdint>
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
/// entries alone (entries equal in all three are interchangeable), whatever the heap's arity.
/// Entries are not indexed by resource: the solver keeps, for each resource it
/// is filling, some entry at most its current level, corrects an entry's level when it
/// reaches the top (replace_top_level) and pushes another when a level falls
/// (MaxMinSolver::solve_component). No per-resource array, no index written per move.
class LevelHeap {
 public:
  bool empty() const { return heap_.empty(); }
  /// Room for `entries` entries, allocated at once. Changes no answer.
  void reserve(std::size_t entries) { heap_.reserve(entries); }
  /// Frees the storage of an empty heap that has room for more than `entries`: a large solve
  /// does not keep it through the rest of the run. Changes no answer.
  void trim(std::size_t entries) {
    if (heap_.empty() && heap_.capacity() > entries) std::vector<Level>().swap(heap_);
  }

  /// Adds an entry without restoring the heap order; heapify() must follow before any other
  /// call.
  void push_unordered(const Level& level) { heap_.push_back(level); }
  /// Restores the heap order after push_unordered() calls, in O(n).
  void heapify() {
    if (size() < 2) return;
    // The last entry with a child is the parent of the last entry.
    for (uint32_t i = (size() - 2) / kArity + 1; i-- > 0;) sift_down(i);
  }
  /// Adds an entry, O(log n).
  void push(const Level& level) {
    heap_.push_back(level);
    sift_up(size() - 1);
  }

  /// The least entry. REQUIRES: !empty().
  const Level& top() const { return heap_.front(); }
  /// Sets the least entry's level and restores the order, O(log n). REQUIRES: !empty().
  void replace_top_level(double level_Bps) {
    heap_.front().level_Bps = level_Bps;
    sift_down(0);
  }
  /// Removes and returns the least entry. REQUIRES: !empty().
  Level pop() {
    const Level top = heap_.front();
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
    return top;
  }

  /// The order of the pops: whether `a` pops before `b`.
  static bool before(const Level& a, const Level& b) {
    if (a.level_Bps != b.level_Bps) return a.level_Bps < b.level_Bps;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.id < b.id;
  }

 private:
  uint32_t size() const { return static_cast<uint32_t>(heap_.size()); }

  /// Children of entry i: kArity * i + 1 ... kArity * i + kArity (those < size);
  /// the parent of entry i > 0: (i - 1) / kArity.
  static constexpr uint32_t kArity = 4;

  void sift_up(uint32_t i) {
    const Level moving = heap_[i];
    while (i > 0) {
      const uint32_t parent = (i - 1) / kArity;
      if (!before(moving, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = moving;
  }
  void sift_down(uint32_t i) {
    const Level moving = heap_[i];
    const uint32_t n = size();
    while (true) {
      const uint64_t first = uint64_t{kArity} * i + 1;
      if (first >= n) break;
      // The least of the (up to kArity) children.
      uint32_t child = static_cast<uint32_t>(first);
      const uint32_t end = static_cast<uint32_t>(std::min<uint64_t>(first + kArity, n));
      for (uint32_t sibling = child + 1; sibling < end; ++sibling) {
        if (before(heap_[sibling], heap_[child])) child = sibling;
      }
      if (!before(heap_[child], moving)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = moving;
  }

  std::vector<Level> heap_;
};

}  // namespace linksim::flowsim_internal
