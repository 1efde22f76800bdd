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
  explicit ArenaLists(std::size_t count)
      : begin_(count, 0), size_(count, 0), capacity_log2_(count, kNoBlock) {}

  std::span<const T> list(uint32_t id) const { return {data(id), size_[id]}; }
  std::span<T> list(uint32_t id) { return {data(id), size_[id]}; }
  uint32_t size(uint32_t id) const { return size_[id]; }

  /// Appends `value` to list `id`; returns its index in the list.
  uint32_t push_back(uint32_t id, const T& value) {
    if (size_[id] == capacity(id)) grow(id);
    data(id)[size_[id]] = value;
    return size_[id]++;
  }
  /// Removes the last element of list `id`. REQUIRES: it is not empty.
  void pop_back(uint32_t id) { --size_[id]; }

 private:
  static constexpr uint32_t kPageShift = 14;
  static constexpr uint32_t kPageElements = uint32_t{1} << kPageShift;  ///< 16384
  static constexpr int kClasses = kPageShift + 1;  ///< block capacities 1, 2, 4 ... kPageElements
  static constexpr uint8_t kNoBlock = 0xff;        ///< capacity_log2_ of a list with no block

  /// Capacity of list `id`'s block (0: none).
  uint32_t capacity(uint32_t id) const {
    return capacity_log2_[id] == kNoBlock ? 0 : uint32_t{1} << capacity_log2_[id];
  }
  static bool is_large(uint32_t capacity) { return capacity > kPageElements; }
  T* data(uint32_t id) const {
    const uint32_t cap = capacity(id);
    if (cap == 0) return nullptr;
    const uint32_t begin = begin_[id];
    return is_large(cap) ? large_[begin].get() : paged(begin);
  }
  /// The element at index `begin` over all pages.
  T* paged(uint32_t begin) const {
    return pages_[begin >> kPageShift].get() + (begin & (kPageElements - 1));
  }

  void grow(uint32_t id) {
    const uint32_t old_capacity = capacity(id);
    const uint32_t new_capacity = old_capacity == 0 ? 1 : 2 * old_capacity;
    const T* old = data(id);
    const uint32_t old_begin = begin_[id];
    uint32_t new_begin;
    if (is_large(new_capacity)) {
      if (is_large(old_capacity)) {
        new_begin = old_begin;
        large_[old_begin] = copy_into(std::make_unique<T[]>(new_capacity), old, size_[id]);
      } else {
        new_begin = static_cast<uint32_t>(large_.size());
        large_.push_back(copy_into(std::make_unique<T[]>(new_capacity), old, size_[id]));
      }
    } else {
      new_begin = take(new_capacity);
      std::copy_n(old, size_[id], paged(new_begin));
    }
    if (old_capacity > 0 && !is_large(old_capacity)) {
      free_[std::countr_zero(old_capacity)].push_back(old_begin);
    }
    begin_[id] = new_begin;
    capacity_log2_[id] = static_cast<uint8_t>(std::countr_zero(new_capacity));
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

  // Per list, 9 bytes: its block (paged: element index over all pages; large: index into
  // large_), its length, and log2 of its block's capacity (a power of two) or kNoBlock.
  std::vector<uint32_t> begin_;
  std::vector<uint32_t> size_;
  std::vector<uint8_t> capacity_log2_;
  std::vector<std::unique_ptr<T[]>> pages_;
  uint32_t page_used_ = kPageElements;  ///< elements handed out of the newest page
  std::vector<std::unique_ptr<T[]>> large_;
  std::vector<uint32_t> free_[kClasses];  ///< per capacity class: kept blocks' begins
};

}  // namespace linksim::flowsim_internal
