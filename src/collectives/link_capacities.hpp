// SPDX-License-Identifier: Apache-2.0
// Per-link capacities stored once per server block: every server repeats host 0's links (the
// layout contract of linksim/topology.hpp; a fault applies to every server), so a cluster's
// table holds host 0's block and the links after the blocks instead of every link.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace linksim::detail {

/// A value per directed link, bytes/s, by link id: a link of server block h (ids
/// [h x per_host, (h + 1) x per_host) below the blocks' end) reads host 0's link of the same
/// local id; a link after the blocks (the fabric's) its own. Immutable once built.
class LinkCapacities {
 public:
  LinkCapacities() = default;
  /// `host0_Bps`: host 0's block (per_host values); `rest_Bps`: the links after the
  /// `blocks` x per_host block links. With per_host = 0 (no server blocks) `rest_Bps` holds
  /// every link.
  LinkCapacities(std::vector<double> host0_Bps, uint64_t blocks, std::vector<double> rest_Bps)
      : host0_(std::move(host0_Bps)),
        block_links_(host0_.size() * blocks),
        rest_(std::move(rest_Bps)) {}

  /// The capacity of link `id`. REQUIRES: id < size().
  double operator[](size_t id) const {
    return id < block_links_ ? host0_[id % host0_.size()] : rest_[id - block_links_];
  }
  /// The topology's link count.
  size_t size() const { return block_links_ + rest_.size(); }
  /// Every link's value times `scale`, by link id (one array, as a simulator takes it).
  std::vector<double> to_vector(double scale = 1.0) const;

  bool operator==(const LinkCapacities&) const = default;

 private:
  std::vector<double> host0_;
  uint64_t block_links_ = 0;  ///< links of all server blocks: host0_.size() x blocks
  std::vector<double> rest_;
};

}  // namespace linksim::detail
