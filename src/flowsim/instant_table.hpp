// SPDX-License-Identifier: Apache-2.0
// Event times named by 4-byte indices: the event loop records, per sub-flow and per resource,
// the instant of its last update, and a run has far fewer distinct instants than sub-flows
// and resources (docs/flowsim.md#complexity-and-storage).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace linksim::flowsim_internal {

/// A table of instants, seconds, each named by its index. index_of() appends an instant
/// unless it is the last one; at() gives back the same double, bit for bit. Indices stay
/// valid until compact(), which keeps only the instants still referred to and rewrites the
/// references, so that the table stays within a small factor of what is referred to.
class InstantTable {
 public:
  /// A reference to no instant (compact() leaves it as it is).
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  /// The index of `time_s`: the last entry's if equal, else a new last entry.
  uint32_t index_of(double time_s) {
    if (times_s_.empty() || times_s_.back() != time_s) times_s_.push_back(time_s);
    return static_cast<uint32_t>(times_s_.size() - 1);
  }
  /// REQUIRES: `index` came from index_of() since the last compact() (or was rewritten by it).
  double at(uint32_t index) const { return times_s_[index]; }
  std::size_t size() const { return times_s_.size(); }

  /// Whether the table has doubled since the last compact() (and holds at least
  /// kCompactFrom entries): compacting then costs O(references) per as many new instants.
  bool wants_compaction() const { return times_s_.size() >= compact_at_; }

  /// Keeps the instants that references name, in their order, and rewrites each reference.
  /// `for_each_reference(visit)` must call visit(uint32_t& reference) for every reference
  /// held (kNone ones included), the same references both times it is called.
  template <typename ForEachReference>
  void compact(ForEachReference&& for_each_reference) {
    std::vector<uint32_t> new_index(times_s_.size(), kNone);
    for_each_reference([&](uint32_t& reference) {
      if (reference != kNone) new_index[reference] = 0;  // referred to
    });
    uint32_t kept = 0;
    for (uint32_t i = 0; i < times_s_.size(); ++i) {
      if (new_index[i] == kNone) continue;
      times_s_[kept] = times_s_[i];
      new_index[i] = kept++;
    }
    times_s_.resize(kept);
    times_s_.shrink_to_fit();
    for_each_reference([&](uint32_t& reference) {
      if (reference != kNone) reference = new_index[reference];
    });
    compact_at_ = std::max(kCompactFrom, 2 * times_s_.size());
  }

 private:
  /// Entries a table holds before its first compaction.
  static constexpr std::size_t kCompactFrom = std::size_t{1} << 16;

  std::vector<double> times_s_;
  std::size_t compact_at_ = kCompactFrom;
};

}  // namespace linksim::flowsim_internal
