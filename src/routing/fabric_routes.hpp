// SPDX-License-Identifier: Apache-2.0
// Up/down routing through the network switches between servers, with InfiniBand-style static
// destination-mod-k choice among equal uplinks. See docs/routing.md#fabric.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "linksim/topology.hpp"

namespace linksim::routing_detail {

/// Precomputed reachability of a fabric: leaves (network switches a NIC is attached to) are
/// ranked in depth-first order from the top switches, so the leaves below any switch form a
/// few runs of consecutive ranks; each switch keeps the runs it reaches going down and the
/// runs it reaches going up then down. Built in time linear in the fabric's links for a
/// fat tree (one run per switch). Immutable after construction; thread-safe to read.
class FabricRoutes {
 public:
  /// How a route's next hop is found among a switch's links.
  enum class HopSearch : uint8_t {
    /// Where the fabric allows, without testing every link: a switch whose uplinks all lead
    /// to switches of the same reach (a fat tree's) takes the D-mod-k uplink by index, and
    /// one whose downlinks reach single, disjoint, ascending runs of leaves finds the one
    /// toward a leaf by binary search. The same links as kEveryLink.
    kShortcuts,
    /// Every link of the switch tested for its reach (the reference the shortcuts match).
    kEveryLink,
  };

  explicit FabricRoutes(const Topology& topology, HopSearch search = HopSearch::kShortcuts);

  /// Appends to `links` the fabric links from NIC `src` to NIC `dst` (both with a network
  /// port): NIC -> leaf, up to the lowest common ancestor, down to dst's leaf, leaf -> NIC.
  /// Returns false, `links` as it was, when the NICs are not connected (another plane).
  /// Cost: O(tiers x switch degree x log runs), no allocation beyond `links`' own growth.
  bool append_route(DeviceId src, DeviceId dst, std::vector<LinkId>* links) const;

 private:
  /// Leaf ranks [begin, end).
  struct Run {
    uint32_t begin = 0;
    uint32_t end = 0;
  };
  /// A switch's runs: runs_[first .. first + count).
  struct RunSet {
    uint32_t first = 0;
    uint32_t count = 0;
  };
  /// A link between switches and the switch it leads to (read without the topology's link).
  struct Hop {
    LinkId link;
    DeviceId to;
  };

  /// A NIC's first link (in link id order) of the network family to a network switch.
  std::optional<LinkId> find_uplink(DeviceId nic) const;
  /// Sets every NIC's uplink, leaf and downlink (NicState): find_uplink's answers, read in one
  /// pass over the links after the server blocks when no server link is an uplink.
  void find_uplinks();
  /// A NIC's link to its leaf; nullopt for a NIC without one or another device.
  std::optional<LinkId> uplink_of(DeviceId nic) const {
    const NicState* state = attached(nic);
    return state != nullptr ? std::optional<LinkId>(LinkId{state->uplink}) : std::nullopt;
  }
  /// Records switch `id`'s links to switches of a higher tier, then of a lower one.
  void list_neighbours(DeviceId id);
  void rank_leaves(const std::vector<DeviceId>& switches);
  void number_nics(const std::vector<DeviceId>& switches);
  void collect_reach(const std::vector<DeviceId>& switches);
  RunSet merged(std::vector<Run>& runs);
  bool contains(RunSet set, uint32_t rank) const;
  bool reaches(DeviceId upper, uint32_t leaf_rank) const;
  bool descend(DeviceId from, uint32_t leaf_rank, uint32_t key,
               std::vector<LinkId>* links) const;
  /// Sets each switch's alike_up and sorted_down (SwitchState), after collect_reach.
  void find_shortcuts(const std::vector<DeviceId>& switches);
  /// Whether two run sets hold the same runs.
  bool same_runs(RunSet a, RunSet b) const;
  /// The link among `from`'s up (`up`) or down links whose far end satisfies `accept`,
  /// the (key mod count)-th of `count` such links in link order.
  template <typename Accept>
  Hop pick(DeviceId from, bool up, uint64_t key, uint32_t count, Accept accept) const;

  static constexpr uint32_t kNone = ~uint32_t{0};
  static constexpr uint32_t kNicSlot = uint32_t{1} << 31;  ///< slot bit: an index into nics_

  /// A network switch's part: its rank among the leaves (kNone if not a leaf), the leaves it
  /// reaches going down, and those it reaches going up then down.
  struct SwitchState {
    uint32_t leaf_rank = kNone;
    RunSet down;
    RunSet cone;
    /// Its links up to switches of a higher tier: hops_[up_begin, down_begin); down to a
    /// lower tier: hops_[down_begin, down_end); each in link order.
    uint32_t up_begin = 0;
    uint32_t down_begin = 0;
    uint32_t down_end = 0;
    /// Its uplinks all lead to switches with the same down and cone runs: for any leaf they
    /// are all candidates of append_route's climb or none is (HopSearch::kShortcuts).
    bool alike_up = false;
    /// Its downlinks lead to switches each reaching one run of leaves going down, the runs
    /// disjoint and ascending in link order: at most one leads toward a leaf, found by
    /// binary search (HopSearch::kShortcuts).
    bool sorted_down = false;
  };
  /// Calls visit(link id, neighbour) for every link from switch `from` to a network switch
  /// of a higher tier (`up`) or a lower one (`!up`), in link order.
  template <typename Visit>
  void for_each_neighbour(DeviceId from, bool up, Visit visit) const {
    const SwitchState& state = at_switch(from);
    const uint32_t begin = up ? state.up_begin : state.down_begin;
    const uint32_t end = up ? state.down_begin : state.down_end;
    for (uint32_t i = begin; i < end; ++i) visit(hops_[i].link, hops_[i].to);
  }
  /// A NIC's part: its index when NICs are counted leaf by leaf in rank order, each leaf's
  /// NICs in port order (the destination number of D-mod-k), its link to its leaf, that
  /// leaf and the link back: append_route reads none of the topology's links.
  struct NicState {
    uint32_t key = kNone;
    uint32_t uplink = kNone;
    uint32_t leaf = kNone;
    uint32_t downlink = kNone;
  };
  /// A NIC's part when it has a link to a leaf; nullptr for another NIC or device.
  const NicState* attached(DeviceId id) const {
    const uint32_t at = slot(id);
    if (at == kNone || (at & kNicSlot) == 0) return nullptr;
    const NicState& state = nics_[at & ~kNicSlot];
    return state.uplink == kNone ? nullptr : &state;
  }
  /// `id`'s index into switches_, or into nics_ with kNicSlot set; kNone for another device.
  /// A server block's device has host 0's twin's index shifted by the switches or NICs of the
  /// blocks before its own (both are numbered in device id order and every block repeats host
  /// 0's kinds: the layout contract of linksim/topology.hpp), so no table over a cluster's
  /// devices is read (or held: 4 bytes a device, mostly GPUs and PCIe parts).
  uint32_t slot(DeviceId id) const {
    if (id.value >= block_devices_) return fabric_slot_[id.value - block_devices_];
    const uint32_t host = id.value / devices_per_host_;
    const uint32_t twin = host0_slot_[id.value - host * devices_per_host_];
    if (twin == kNone) return twin;
    return twin + host * ((twin & kNicSlot) != 0 ? nics_per_host_ : switches_per_host_);
  }
  /// REQUIRES: `id` is a network switch (a NIC for nic()).
  SwitchState& at_switch(DeviceId id) { return switches_[slot(id)]; }
  const SwitchState& at_switch(DeviceId id) const { return switches_[slot(id)]; }
  NicState& nic(DeviceId id) { return nics_[slot(id) & ~kNicSlot]; }
  const NicState& nic(DeviceId id) const { return nics_[slot(id) & ~kNicSlot]; }

  const Topology& topology_;
  /// The server blocks' devices [0, block_devices_), devices_per_host_ each (0 and 0 without
  /// the layout: every device is then the fabric's for slot()).
  uint32_t block_devices_ = 0;
  uint32_t devices_per_host_ = 0;
  /// The network switches and NICs of one server block.
  uint32_t switches_per_host_ = 0;
  uint32_t nics_per_host_ = 0;
  /// slot() of host 0's devices, by local id; of the devices after the blocks, by id minus
  /// block_devices_.
  std::vector<uint32_t> host0_slot_;
  std::vector<uint32_t> fabric_slot_;
  std::vector<SwitchState> switches_;
  std::vector<NicState> nics_;
  std::vector<Hop> hops_;  ///< the switches' up and down links (SwitchState's ranges)
  std::vector<Run> runs_;
};

}  // namespace linksim::routing_detail
