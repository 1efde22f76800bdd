// SPDX-License-Identifier: Apache-2.0
// Which routes a communicator has cached: per source rank, its destination ranks and where
// their routes are stored. A rank routes to a few neighbours (ring, tree) in most patterns,
// found by a short scan; one that routes to many (AllToAll) gets a dense row of all ranks.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace linksim::detail {

class RouteIndex {
 public:
  /// No row is allocated before the first insert (48 bytes a rank: 6 MiB for 131,072 ranks
  /// that may never cache a route).
  explicit RouteIndex(std::size_t ranks) : ranks_(ranks) {}

  /// The stored index of the route from rank `from` to rank `to`, if any.
  /// REQUIRES: both below the rank count.
  std::optional<uint32_t> find(uint32_t from, uint32_t to) const {
    if (rows_.empty()) return std::nullopt;
    const Row& row = rows_[from];
    if (!row.dense.empty()) {
      const uint32_t index = row.dense[to];
      if (index == kAbsent) return std::nullopt;
      return index;
    }
    for (const auto& [destination, index] : row.listed) {
      if (destination == to) return index;
    }
    return std::nullopt;
  }

  /// Records `index` for (from, to). REQUIRES: find(from, to) is empty.
  void insert(uint32_t from, uint32_t to, uint32_t index) {
    if (rows_.empty()) rows_.resize(ranks_);
    Row& row = rows_[from];
    if (row.dense.empty() && row.listed.size() < kListed) {
      row.listed.emplace_back(to, index);
      return;
    }
    if (row.dense.empty()) {
      row.dense.assign(ranks_, kAbsent);
      for (const auto& [destination, stored] : row.listed) row.dense[destination] = stored;
      row.listed = {};
    }
    row.dense[to] = index;
  }

 private:
  static constexpr std::size_t kListed = 16;  ///< destinations scanned before a dense row
  static constexpr uint32_t kAbsent = std::numeric_limits<uint32_t>::max();
  struct Row {
    std::vector<std::pair<uint32_t, uint32_t>> listed;  ///< (destination, index), small
    std::vector<uint32_t> dense;                        ///< per destination, or empty
  };
  std::size_t ranks_;
  std::vector<Row> rows_;  ///< by source rank; empty until the first insert
};

}  // namespace linksim::detail
