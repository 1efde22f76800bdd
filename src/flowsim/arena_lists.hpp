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
#include <stdexcept>
#include <vector>

namespace linksim::flowsim_internal {

/// `count` lists of trivially copyable T. A list's elements sit in one block whose capacity
/// is a power of two; a full list moves to a block of twice the size and its old block is
/// kept for the next list that needs one of that size. Blocks up to kPageElements come from
/// shared pages (no per-list allocation, no copying as the storage grows); a list beyond that
/// gets a vector of its own. Storage stays within a small factor of the elements held.
/// Blocks are not zero-filled (no list reads past its size), so a page's unused tail is never
/// touched. Indices within a list are stable; spans from list() are valid until the next
/// push_back().
/// A list holds at most kMaxListSize elements (push_back() throws std::length_error beyond).
template <typename T>
class ArenaLists {
 public:
  /// 2^26 = 67,108,864 elements a list: its size fits the header's 27-bit field.
  static constexpr uint32_t kMaxCapacityLog2 = 26;
  static constexpr uint32_t kMaxListSize = uint32_t{1} << kMaxCapacityLog2;

  explicit ArenaLists(std::size_t count) : headers_(count) {}

  std::span<const T> list(uint32_t id) const { return {data(headers_[id]), headers_[id].size}; }
  std::span<T> list(uint32_t id) { return {data(headers_[id]), headers_[id].size}; }
  uint32_t size(uint32_t id) const { return headers_[id].size; }

  /// Appends `value` to list `id`; returns its index in the list.
  uint32_t push_back(uint32_t id, const T& value) {
    Header& header = headers_[id];
    if (header.size == capacity(header)) grow(header);
    const uint32_t index = header.size;
    data(header)[index] = value;
    header.size = index + 1;
    return index;
  }
  /// Removes the last element of list `id`. REQUIRES: it is not empty.
  void pop_back(uint32_t id) { headers_[id].size = headers_[id].size - 1; }
  /// Asks the processor to start loading list `id`'s header (its block and length) into the
  /// cache, for a push_back() or list() of it soon after. Changes no state.
  void prefetch_header(uint32_t id) const { __builtin_prefetch(&headers_[id]); }
  /// The same for the first elements of list `id`'s block (reads its header).
  void prefetch_front(uint32_t id) const {
    if (const T* front = data(headers_[id])) __builtin_prefetch(front);
  }
  /// Empties list `id`; its block stays for its next push_back().
  void clear(uint32_t id) { headers_[id].size = 0; }

 private:
  static constexpr uint32_t kPageShift = 14;
  static constexpr uint32_t kPageElements = uint32_t{1} << kPageShift;  ///< 16384
  static constexpr int kClasses = kPageShift + 1;  ///< block capacities 1, 2, 4 ... kPageElements
  static constexpr uint32_t kNoBlock = 31;         ///< capacity_log2 of a list with no block

  /// A list's block and length in one 8-byte record, so that reading a list costs one cache
  /// miss for its header: `begin` is, for a paged block, its first element's index over all
  /// pages, for a large one its index into large_; `capacity_log2` is log2 of the block's
  /// capacity (a power of two, at most 2^kMaxCapacityLog2) or kNoBlock.
  struct Header {
    uint32_t begin = 0;
    uint32_t size : kMaxCapacityLog2 + 1 = 0;
    uint32_t capacity_log2 : 5 = kNoBlock;
  };
  static_assert(sizeof(Header) == 8);

  /// Capacity of the header's block (0: none).
  static uint32_t capacity(const Header& header) {
    return header.capacity_log2 == kNoBlock ? 0 : uint32_t{1} << header.capacity_log2;
  }
  static bool is_large(uint32_t capacity) { return capacity > kPageElements; }
  T* data(const Header& header) const {
    const uint32_t cap = capacity(header);
    if (cap == 0) return nullptr;
    return is_large(cap) ? large_[header.begin].get() : paged(header.begin);
  }
  /// The element at index `begin` over all pages.
  T* paged(uint32_t begin) const {
    return pages_[begin >> kPageShift].get() + (begin & (kPageElements - 1));
  }

  void grow(Header& header) {
    const uint32_t old_capacity = capacity(header);
    if (old_capacity == kMaxListSize) {
      throw std::length_error("flowsim: more than 67,108,864 crossings of one resource at once");
    }
    const uint32_t new_capacity = old_capacity == 0 ? 1 : 2 * old_capacity;
    const T* old = data(header);
    const uint32_t old_begin = header.begin;
    const uint32_t size = header.size;
    uint32_t new_begin;
    if (is_large(new_capacity)) {
      if (is_large(old_capacity)) {
        new_begin = old_begin;
        large_[old_begin] = copy_into(std::make_unique_for_overwrite<T[]>(new_capacity), old, size);
      } else {
        new_begin = static_cast<uint32_t>(large_.size());
        large_.push_back(copy_into(std::make_unique_for_overwrite<T[]>(new_capacity), old, size));
      }
    } else {
      new_begin = take(new_capacity);
      std::copy_n(old, size, paged(new_begin));
    }
    if (old_capacity > 0 && !is_large(old_capacity)) {
      free_[std::countr_zero(old_capacity)].push_back(old_begin);
    }
    header.begin = new_begin;
    header.capacity_log2 = static_cast<uint32_t>(std::countr_zero(new_capacity));
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
      pages_.push_back(std::make_unique_for_overwrite<T[]>(kPageElements));
      page_used_ = 0;
    }
    const uint32_t begin = page_begin() + page_used_;
    page_used_ += capacity;
    return begin;
  }
  uint32_t page_begin() const {
    return static_cast<uint32_t>(pages_.size() - 1) << kPageShift;
  }

  std::vector<Header> headers_;  ///< per list
  std::vector<std::unique_ptr<T[]>> pages_;
  uint32_t page_used_ = kPageElements;  ///< elements handed out of the newest page
  std::vector<std::unique_ptr<T[]>> large_;
  std::vector<uint32_t> free_[kClasses];  ///< per capacity class: kept blocks' begins
};

}  // namespace linksim::flowsim_internal
