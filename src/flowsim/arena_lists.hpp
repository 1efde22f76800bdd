// SPDX-License-Identifier: Apache-2.0
// Many small growable lists (one per resource) in pages shared by all of them instead of one
// heap block each: the max-min solver's per-resource user lists
// (docs/flowsim.md#complexity-and-storage).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace linksim::flowsim_internal {

/// `count` lists of trivially copyable T. A list's elements sit in one block whose capacity
/// is a power of two; a full list moves to a block of twice the size and its old block is
/// kept for the next list that needs one of that size. Blocks up to kPageElements come from
/// shared pages (no per-list allocation, no copying as the storage grows); a list beyond that
/// gets a vector of its own. Storage stays within a small factor of the elements held.
/// Indices within a list are stable; spans from list() are valid until the next push_back().
template <typename T>
class ArenaLists {
 public:
  explicit ArenaLists(std::size_t count) : blocks_(count) {}

  std::span<const T> list(uint32_t id) const {
    const Block& b = blocks_[id];
    return {data(b), b.size};
  }
  std::span<T> list(uint32_t id) {
    const Block& b = blocks_[id];
    return {data(b), b.size};
  }
  uint32_t size(uint32_t id) const { return blocks_[id].size; }

  /// Appends `value` to list `id`; returns its index in the list.
  uint32_t push_back(uint32_t id, const T& value) {
    Block& b = blocks_[id];
    if (b.size == b.capacity) grow(b);
    data(b)[b.size] = value;
    return b.size++;
  }
  /// Removes the last element of list `id`. REQUIRES: it is not empty.
  void pop_back(uint32_t id) { --blocks_[id].size; }

 private:
  static constexpr uint32_t kPageShift = 14;
  static constexpr uint32_t kPageElements = uint32_t{1} << kPageShift;  ///< 16384
  static constexpr int kClasses = kPageShift + 1;  ///< block capacities 1, 2, 4 ... kPageElements

  struct Block {
    uint32_t begin = 0;  ///< paged: element index over all pages; large: index into large_
    uint32_t size = 0;
    uint32_t capacity = 0;
  };

  static bool is_large(const Block& b) { return b.capacity > kPageElements; }
  T* data(const Block& b) const {
    if (b.capacity == 0) return nullptr;
    if (is_large(b)) return large_[b.begin].get();
    return pages_[b.begin >> kPageShift].get() + (b.begin & (kPageElements - 1));
  }

  void grow(Block& b) {
    const uint32_t capacity = b.capacity == 0 ? 1 : 2 * b.capacity;
    const T* old = data(b);
    Block moved{0, b.size, capacity};
    if (capacity > kPageElements) {
      if (is_large(b)) {
        moved.begin = b.begin;
        large_[b.begin] = copy_into(std::make_unique<T[]>(capacity), old, b.size);
      } else {
        moved.begin = static_cast<uint32_t>(large_.size());
        large_.push_back(copy_into(std::make_unique<T[]>(capacity), old, b.size));
      }
    } else {
      moved.begin = take(capacity);
      std::copy_n(old, b.size, data(moved));
    }
    if (b.capacity > 0 && !is_large(b)) free_[std::countr_zero(b.capacity)].push_back(b.begin);
    b = moved;
  }

  static std::unique_ptr<T[]> copy_into(std::unique_ptr<T[]> to, const T* from, uint32_t n) {
    std::copy_n(from, n, to.get());
    return to;
  }

  // A block of `capacity` (a power of two, <= kPageElements): a kept one, or the next
  // elements of the newest page. The rest of a page too short for it is kept in pieces.
  uint32_t take(uint32_t capacity) {
    std::vector<uint32_t>& kept = free_[std::countr_zero(capacity)];
    if (!kept.empty()) {
      const uint32_t begin = kept.back();
      kept.pop_back();
      return begin;
    }
    if (page_used_ + capacity > kPageElements) {
      for (uint32_t piece = kPageElements; piece > 0; piece /= 2) {
        if (page_used_ + piece > kPageElements || pages_.empty()) continue;
        free_[std::countr_zero(piece)].push_back(page_begin() + page_used_);
        page_used_ += piece;
      }
      pages_.push_back(std::make_unique<T[]>(kPageElements));
      page_used_ = 0;
    }
    const uint32_t begin = page_begin() + page_used_;
    page_used_ += capacity;
    return begin;
  }
  uint32_t page_begin() const {
    return static_cast<uint32_t>(pages_.size() - 1) << kPageShift;
  }

  std::vector<Block> blocks_;
  std::vector<std::unique_ptr<T[]>> pages_;
  uint32_t page_used_ = kPageElements;  ///< elements handed out of the newest page
  std::vector<std::unique_ptr<T[]>> large_;
  std::vector<uint32_t> free_[kClasses];  ///< per capacity class: kept blocks' begins
};

}  // namespace linksim::flowsim_internal
