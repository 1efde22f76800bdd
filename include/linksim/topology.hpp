// SPDX-License-Identifier: Apache-2.0
// The link graph of a machine: devices (GPUs, CPUs, switches, NICs) and directed links.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "linksim/catalog.hpp"
#include "linksim/error.hpp"
#include "linksim/interned_string.hpp"

namespace linksim {

enum class DeviceKind : uint8_t {
  kGpu,
  kCpu,         ///< a CPU socket: root complex + memory (one NUMA node)
  kPcieSwitch,
  kNvswitch,    ///< an NVSwitch / NVLink-Switch chip
  kNic,
  kNetSwitch,   ///< a network (InfiniBand / Ethernet) switch
};
std::string_view to_string(DeviceKind kind);  ///< "gpu", "cpu", "pcie_switch", ...

/// Dense index of a device in Topology::devices().
struct DeviceId {
  uint32_t value = 0;
  friend bool operator==(DeviceId, DeviceId) = default;
  friend auto operator<=>(DeviceId, DeviceId) = default;
};
/// Dense index of one direction of a link in Topology::links().
struct LinkId {
  uint32_t value = 0;
  friend bool operator==(LinkId, LinkId) = default;
  friend auto operator<=>(LinkId, LinkId) = default;
};

/// What a device's declaration says beyond its place in the graph: read for messages, reports
/// and a few host-staging and NIC-selection rules, never per flow. Held once per declaration in
/// the topology's details table (Topology::details): every server instance's device shares
/// host 0's entry, so 16,384 servers cost the template's handful of entries, not 500,000.
struct DeviceDetails {
  SourceLocation where;    ///< where the device was declared, for messages
  int numa = -1;           ///< CPU: NUMA node id as nvidia-smi prints it; GPU: its memory's node
  std::string cpu_affinity;///< CPU: cores as nvidia-smi prints them ("0-35,72-107"), may be empty
  std::string port_name;   ///< NIC: the name nvidia-smi's NIC legend shows ("mlx5_0"), may be empty
  /// CPU: the topology's own host-staged (SHM) rates, bytes/s, overriding its platform's.
  std::optional<double> host_staging_Bps;
  std::optional<double> host_staging_cross_socket_Bps;
};

/// The environment a platform's NCCL network plugin sets before NCCL reads it (a topology's
/// `nccl_env`, docs/topology-format.md#nccl-env; aws-ofi-nccl does so per EC2 instance
/// type). Unset fields keep NCCL's defaults.
struct NcclEnv {
  std::optional<int> nvls_chunk_bytes;          ///< NCCL_NVLS_CHUNKSIZE, bytes
  std::optional<int> nvlstree_max_chunk_bytes;  ///< NCCL_NVLSTREE_MAX_CHUNKSIZE, bytes
  std::optional<int> buffsize_bytes;            ///< NCCL_BUFFSIZE, bytes (the Simple buffer)

  friend bool operator==(const NcclEnv&, const NcclEnv&) = default;
};

/// One device of the graph: the fields routing and the simulators read per device. 48 bytes,
/// so that 131,072 GPUs' servers (501,760 devices) take 24 MB; the rarely read rest of its
/// declaration lives in the shared DeviceDetails entry `details` names.
struct Device {
  /// Local name, unique within its host ("gpu3"), or fabric-wide ("leaf2"). Interned: every
  /// server's "gpu3" is one string.
  InternedString name;
  /// GPU: catalog key of its model ("h100-sxm"). NIC: catalog link type of its port ("ib_ndr").
  /// CPU: catalog key of its host platform ("intel-sapphire-rapids"); empty = the default.
  InternedString model;
  std::optional<int> host; ///< server instance index; nullopt for fabric devices
  /// GPU: the fraction of its catalog clock it runs at: 1 nominal, lower after a clock fault
  /// (include/linksim/faults.hpp); its tensor FLOP/s scale with it.
  double clock_fraction = 1;
  int index = 0;           ///< ordinal among devices of its kind in its host (GPU3 -> 3, NIC0 -> 0)
  int group = -1;          ///< network switch: rail (rail-optimized leaves) or pod, -1 if none
  /// Index of its entry in Topology::details (0: the default entry, no declaration).
  uint32_t details = 0;
  DeviceKind kind = DeviceKind::kGpu;
  bool p2p = true;         ///< GPU: the driver allows PCIe peer-to-peer (false on GeForce cards)
  bool reduction = false;  ///< NVSwitch / network switch: in-switch reduction (NVLS / SHARP)
  int8_t tier = 0;         ///< network switch: 1 = leaf, 2 = spine, 3 = core (0: not a switch)

  friend bool operator==(const Device&, const Device&) = default;
};

/// One direction of a link: the fields routing and the simulators read per hop. 32 bytes, so
/// that 131,072 GPUs' servers (2.46 M directed links) take 75 MiB. Its reverse direction is
/// Topology::reverse (the pair rule: ids 2k and 2k+1), its catalog type key is
/// Topology::link_type (an index into the topology's table of the link types it holds).
struct Link {
  DeviceId from;
  DeviceId to;
  double bw_Bps = 0;       ///< capacity of this direction, bytes/s (> 0)
  double latency_s = 0;    ///< one-way latency of this hop, seconds (>= 0)
  /// Index of its catalog type in the topology's link-type table (Topology::link_type).
  uint8_t type_index = 0;
  LinkFamily family = LinkFamily::kPcie;
  int16_t lanes = 1;       ///< NVLink links bonded, or PCIe width (1 .. kMaxLinkLanes)
  /// PCIe links into a CPU: the host bridge (root complex) they enter. Two devices below the
  /// same host bridge are PHB to each other; below different ones of one CPU, NODE.
  /// -1 = a host bridge of its own; at most kMaxHostBridge.
  int16_t host_bridge = -1;
  // Where it was declared: Topology::link_where (kept apart: a handful of declarations for
  // millions of links).

  friend bool operator==(const Link&, const Link&) = default;
};
static_assert(sizeof(Link) <= 32, "Link is read per hop by routing and the simulators; keep it 32 bytes");

/// The ranges Link's narrow fields hold; Topology::add_link (and the loader, with the
/// value's position) refuse a link outside them rather than truncate it.
inline constexpr int kMaxLinkLanes = INT16_MAX;
inline constexpr int kMaxHostBridge = INT16_MAX;
/// Distinct catalog link types one topology may hold (Link::type_index is one byte).
inline constexpr size_t kMaxLinkTypes = 256;

class Topology;

/// A read-only random-access view of a topology's devices (Id = DeviceId, Value = Device) or
/// links (LinkId, Link) in id order. An element is read as a value (Topology::device,
/// Topology::link): a server block after host 0's is not stored but derived on each read, so
/// there is no element to point at. Valid while the topology lives.
template <typename Id, typename Value>
class TopologyView {
 public:
  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Value;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Value;

    iterator() = default;
    iterator(const Topology* topology, uint32_t id) : topology_(topology), id_(id) {}
    Value operator*() const;
    Value operator[](difference_type n) const { return *(*this + n); }
    iterator& operator++() { ++id_; return *this; }
    iterator operator++(int) { iterator old = *this; ++id_; return old; }
    iterator& operator--() { --id_; return *this; }
    iterator operator--(int) { iterator old = *this; --id_; return old; }
    iterator& operator+=(difference_type n) { id_ = uint32_t(difference_type(id_) + n); return *this; }
    iterator& operator-=(difference_type n) { id_ = uint32_t(difference_type(id_) - n); return *this; }
    friend iterator operator+(iterator it, difference_type n) { return it += n; }
    friend iterator operator+(difference_type n, iterator it) { return it += n; }
    friend iterator operator-(iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(iterator a, iterator b) {
      return difference_type(a.id_) - difference_type(b.id_);
    }
    friend bool operator==(iterator a, iterator b) { return a.id_ == b.id_; }
    friend std::strong_ordering operator<=>(iterator a, iterator b) { return a.id_ <=> b.id_; }

   private:
    const Topology* topology_ = nullptr;
    uint32_t id_ = 0;
  };

  TopologyView(const Topology* topology, uint32_t first, uint32_t last)
      : topology_(topology), first_(first), last_(last) {}
  size_t size() const { return last_ - first_; }
  bool empty() const { return first_ == last_; }
  Value operator[](size_t i) const { return *iterator(topology_, first_ + uint32_t(i)); }
  Value front() const { return (*this)[0]; }
  Value back() const { return (*this)[size() - 1]; }
  iterator begin() const { return iterator(topology_, first_); }
  iterator end() const { return iterator(topology_, last_); }
  /// The elements from `offset` on, as std::span::subspan. REQUIRES: offset <= size().
  TopologyView subspan(size_t offset) const {
    return TopologyView(topology_, first_ + uint32_t(offset), last_);
  }

 private:
  const Topology* topology_;
  uint32_t first_;
  uint32_t last_;
};

using DeviceView = TopologyView<DeviceId, Device>;
using LinkView = TopologyView<LinkId, Link>;

/// The directed links leaving one device (Topology::out_links), ascending by id: those of its
/// server block (stored once per block as ids within the block, shifted to the server's ids
/// on read), then those outside every block (the fabric's). Holds views of the topology's
/// storage: valid while the topology lives.
class OutLinks {
  /// Its two parts: ids within the server block, `block_first_link` added to each, then ids
  /// outside every block as they are.
  struct Parts {
    std::span<const uint32_t> in_block;
    uint32_t block_first_link = 0;
    std::span<const LinkId> outside;

    size_t size() const { return in_block.size() + outside.size(); }
    LinkId at(size_t i) const {
      if (i < in_block.size()) return LinkId{block_first_link + in_block[i]};
      return outside[i - in_block.size()];
    }
  };

 public:
  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = LinkId;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = LinkId;

    iterator() = default;
    iterator(const Parts& parts, size_t i) : parts_(parts), i_(i) {}
    LinkId operator*() const { return parts_.at(i_); }
    LinkId operator[](difference_type n) const { return parts_.at(size_t(difference_type(i_) + n)); }
    iterator& operator++() { ++i_; return *this; }
    iterator operator++(int) { iterator old = *this; ++i_; return old; }
    iterator& operator--() { --i_; return *this; }
    iterator operator--(int) { iterator old = *this; --i_; return old; }
    iterator& operator+=(difference_type n) { i_ = size_t(difference_type(i_) + n); return *this; }
    iterator& operator-=(difference_type n) { i_ = size_t(difference_type(i_) - n); return *this; }
    friend iterator operator+(iterator it, difference_type n) { return it += n; }
    friend iterator operator+(difference_type n, iterator it) { return it += n; }
    friend iterator operator-(iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) {
      return difference_type(a.i_) - difference_type(b.i_);
    }
    friend bool operator==(const iterator& a, const iterator& b) { return a.i_ == b.i_; }
    friend std::strong_ordering operator<=>(const iterator& a, const iterator& b) {
      return a.i_ <=> b.i_;
    }

   private:
    Parts parts_;  // a copy (five words): the iterator outlives a temporary OutLinks
    size_t i_ = 0;
  };

  OutLinks() = default;
  /// `in_block`: ids within the server block, `block_first_link` added to each; `outside`:
  /// ids as they are.
  OutLinks(std::span<const uint32_t> in_block, uint32_t block_first_link,
           std::span<const LinkId> outside)
      : parts_{in_block, block_first_link, outside} {}
  size_t size() const { return parts_.size(); }
  bool empty() const { return size() == 0; }
  LinkId operator[](size_t i) const { return parts_.at(i); }
  LinkId front() const { return parts_.at(0); }
  LinkId back() const { return parts_.at(size() - 1); }
  iterator begin() const { return iterator(parts_, 0); }
  iterator end() const { return iterator(parts_, size()); }

 private:
  Parts parts_;
};

/// An immutable-after-build machine description.
///
/// Layout contract (routing relies on it for speed): the devices and links of server instance
/// h form contiguous blocks, identical in shape for every h:
///   device id = host_device_offset(h) + local id,  link id = host_link_offset(h) + local id,
/// with the local ids of host 0. Fabric devices and links (host == nullopt, and links that
/// touch a fabric device) come after all hosts. A link and its reverse are ids 2k and 2k+1.
/// A server block's links join devices of that block.
///
/// Storage: host 0's block is stored once; a server whose block equals host 0's with its own
/// ids and host number (every server of a loaded file, faults included: a fault applies to
/// every server) is derived from it on each read, so 16,384 servers cost one server's
/// devices, links and adjacency. A server whose block differs is stored as a block of its
/// own; devices and links outside every block (the fabric) are stored one by one.
class Topology {
 public:
  Topology() = default;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const std::string& source_file() const { return source_file_; }
  void set_source_file(std::string file) { source_file_ = std::move(file); }
  /// What the platform's network plugin sets in NCCL's environment (NcclEnv).
  const NcclEnv& nccl_env() const { return nccl_env_; }
  void set_nccl_env(NcclEnv env) { nccl_env_ = env; }

  /// Every device in id order, read as values.
  DeviceView devices() const { return DeviceView(this, 0, device_count()); }
  /// Device `id`: a copy (a server after host 0 is derived from host 0's block).
  Device device(DeviceId id) const;
  /// Every directed link in id order, read as values.
  LinkView links() const { return LinkView(this, 0, link_count()); }
  /// Link `id`: a copy (a server's link after host 0's is derived from host 0's block).
  Link link(LinkId id) const;
  /// The other direction of `id`: the pair rule of the layout contract (ids 2k and 2k+1).
  static LinkId reverse(LinkId id) { return LinkId{id.value ^ 1u}; }
  /// The catalog link type key of a link of this topology ("nvlink4", "pcie5", "ib_ndr").
  const InternedString& link_type(const Link& link) const { return type_keys_[link.type_index].second; }
  const InternedString& link_type(LinkId id) const {
    return type_keys_[links_[stored_link(id)].type_index].second;
  }
  /// The declaration details of a device (its entry of the details table).
  const DeviceDetails& details(DeviceId id) const {
    return details_[devices_[stored_device(id)].details];
  }
  const DeviceDetails& details(const Device& device) const { return details_[device.details]; }
  /// Where the link was declared, for messages (the template's entry for a server's link).
  const SourceLocation& link_where(LinkId id) const;
  /// Directed links leaving `id`, in the order they were added (ascending ids). Empty for an
  /// id that names no device, and before finalize().
  OutLinks out_links(DeviceId id) const;

  int host_count() const { return host_count_; }
  uint32_t devices_per_host() const { return devices_per_host_; }
  uint32_t links_per_host() const { return links_per_host_; }
  uint32_t host_device_offset(int host) const { return uint32_t(host) * devices_per_host_; }
  uint32_t host_link_offset(int host) const { return uint32_t(host) * links_per_host_; }

  /// All GPUs, host by host, each host's by index: the default rank order.
  const std::vector<DeviceId>& gpus() const { return gpus_; }
  /// GPUs (or NICs) of one host ordered by index (nvidia-smi numbering).
  std::vector<DeviceId> devices_of(int host, DeviceKind kind) const;
  /// "gpu3" (single-host topologies or fabric devices) or "host1:gpu3".
  std::string display_name(DeviceId id) const;
  /// Finds "host1:gpu3", or "gpu3" meaning host 0, or a fabric device name.
  std::optional<DeviceId> find(std::string_view name) const;

  /// The GPU model of a GPU device, from the catalog it was built with.
  const GpuModel& gpu_model(DeviceId gpu) const;
  /// The host platform of a CPU device (its `platform`, else the catalog's default).
  const HostPlatform& host_platform(DeviceId cpu) const;
  const Catalog& catalog() const { return *catalog_; }

  // ---- building (used by the loader, generators and tests) ----
  /// REQUIRES: catalog outlives the topology.
  explicit Topology(const Catalog& catalog) : catalog_(&catalog) {}
  /// Adds a details entry and returns its index, for devices that share it (Device::details).
  uint32_t add_details(DeviceDetails details);
  /// Adds a device whose `details` already names an entry of this topology's table.
  /// Throws std::out_of_range when it does not.
  DeviceId add_device(Device device);
  /// Adds a device with a details entry of its own.
  DeviceId add_device(Device device, DeviceDetails details);
  /// Replaces the details table with `source`'s, so that devices copied from `source` keep
  /// their `details` indexes. REQUIRES: no device added yet.
  void copy_details_from(const Topology& source) { details_ = source.details_; }
  /// Adds a full-duplex link as two directed links with the same capacity and latency.
  /// Returns the id of the from->to direction. REQUIRES: bw_Bps > 0, latency_s >= 0.
  /// A link of a server block after host 0's (set_host_layout) reports host 0's `where`.
  /// Throws ConfigError at `where` when lanes exceed kMaxLinkLanes, host_bridge is outside
  /// -1 .. kMaxHostBridge, or the topology would hold more than kMaxLinkTypes link types.
  LinkId add_link(DeviceId from, DeviceId to, const LinkType& type, int lanes, double bw_Bps,
                  double latency_s, SourceLocation where = {}, int host_bridge = -1);
  /// Declares that the first `hosts` x devices_per_host devices (and the matching links) are
  /// `hosts` server blocks, each block's links joining that block's devices; keeps host 0's
  /// block and the blocks that differ from it (topology storage above), drops the rest.
  /// Called once, after the servers are added and before finalize(). Throws
  /// std::invalid_argument when the topology holds fewer devices or links than the blocks, or
  /// a block's link leaves its block.
  void set_host_layout(int hosts, uint32_t devices_per_host, uint32_t links_per_host);
  /// Declares that the devices and links added so far are host 0's block (its devices'
  /// host 0, its links between them) and that `hosts` servers repeat it, server h's devices
  /// with host h: the copies are derived, never stored. Called once, before the fabric is
  /// added. Throws std::invalid_argument when a link leaves the block or a layout is declared.
  void add_server_copies(int hosts);
  /// Pre-sizes storage for `devices` devices and `links` directed links to be added, so a
  /// loader that knows the final size does not pay for repeated regrowth. Optional.
  void reserve(size_t devices, size_t links) {
    devices_.reserve(devices);
    links_.reserve(links);
    link_where_.reserve(links / 2);
  }
  /// Rebuilds adjacency and indexes after building. Called once, last.
  void finalize();

 private:
  /// Devices and links in id order: those of the server blocks, then the rest.
  uint32_t device_count() const {
    return host_devices_ + uint32_t(devices_.size()) - stored_block_devices();
  }
  uint32_t link_count() const {
    return host_links_ + uint32_t(links_.size()) - stored_block_links();
  }
  /// The stored blocks' entries at the front of devices_ / links_.
  uint32_t stored_block_devices() const { return stored_blocks_ * devices_per_host_; }
  uint32_t stored_block_links() const { return stored_blocks_ * links_per_host_; }
  /// The stored block server `host` reads: 0 (host 0's) unless its block differs.
  uint32_t block_of(uint32_t host) const { return host_block_.empty() ? 0 : host_block_[host]; }
  /// The index in devices_ / links_ of the entry `id` reads (its server's block's entry of
  /// the same local id, before deriving).
  uint32_t stored_device(DeviceId id) const;
  uint32_t stored_link(LinkId id) const;
  void build_block_adjacency();
  void build_outside_adjacency();

  const Catalog* catalog_ = nullptr;
  std::string name_;
  std::string source_file_;
  NcclEnv nccl_env_;
  /// Stored devices: the stored blocks (host 0's first, then each differing server's, by
  /// server), then the devices outside every block (all of them before a layout).
  std::vector<Device> devices_;
  /// Entry 0 is the default (nothing declared); see DeviceDetails.
  std::vector<DeviceDetails> details_ = std::vector<DeviceDetails>(1);
  /// Stored links, ordered as devices_. A stored block's links join its devices by their ids
  /// within the block (from, to < devices_per_host); the others hold topology-wide ids.
  std::vector<Link> links_;
  /// Per server, its stored block: empty when every server reads host 0's (block 0).
  std::vector<uint32_t> host_block_;
  uint32_t stored_blocks_ = 0;  ///< blocks in devices_ / links_ (0 before a layout)
  uint32_t host_devices_ = 0;   ///< hosts x devices_per_host: ids below are a server's
  uint32_t host_links_ = 0;     ///< hosts x links_per_host
  /// Per link pair of host 0's block, then per pair outside every block: an index into
  /// wheres_, which holds each run of equal declarations once. A server's pair reads host
  /// 0's entry.
  std::vector<uint32_t> link_where_;
  std::vector<SourceLocation> wheres_;
  /// CSR over the stored blocks' devices: the out-links of stored device d, as ids within
  /// its block, are block_out_links_[block_out_begin_[d] .. block_out_begin_[d + 1]).
  std::vector<uint32_t> block_out_begin_;
  std::vector<uint32_t> block_out_links_;
  /// The links outside every block by source device: outside_sources_ ascending, the
  /// out-links of outside_sources_[k] are outside_links_[outside_begin_[k] .. [k + 1]).
  std::vector<DeviceId> outside_sources_;
  std::vector<uint32_t> outside_begin_;
  std::vector<LinkId> outside_links_;
  std::vector<DeviceId> gpus_;
  int host_count_ = 1;
  uint32_t devices_per_host_ = 0;
  uint32_t links_per_host_ = 0;
  /// The link types add_link has seen (a handful), with their interned keys; Link::type_index
  /// indexes it.
  std::vector<std::pair<const LinkType*, InternedString>> type_keys_;
};

inline uint32_t Topology::stored_device(DeviceId id) const {
  if (id.value >= host_devices_) return id.value - host_devices_ + stored_block_devices();
  if (id.value < devices_per_host_) return id.value;  // host 0: block 0 as stored
  const uint32_t host = id.value / devices_per_host_;
  return block_of(host) * devices_per_host_ + (id.value - host * devices_per_host_);
}

inline uint32_t Topology::stored_link(LinkId id) const {
  if (id.value >= host_links_) return id.value - host_links_ + stored_block_links();
  if (id.value < links_per_host_) return id.value;  // host 0: block 0 as stored
  const uint32_t host = id.value / links_per_host_;
  return block_of(host) * links_per_host_ + (id.value - host * links_per_host_);
}

inline Device Topology::device(DeviceId id) const {
  if (id.value >= host_devices_ || id.value < devices_per_host_) return devices_[stored_device(id)];
  const uint32_t host = id.value / devices_per_host_;
  const uint32_t block = block_of(host);
  Device device = devices_[block * devices_per_host_ + (id.value - host * devices_per_host_)];
  // Derived from host 0's block: host 0's device with its own server number.
  if (block == 0 && device.host == 0) device.host = int(host);
  return device;
}

inline Link Topology::link(LinkId id) const {
  if (id.value >= host_links_ || id.value < links_per_host_) return links_[stored_link(id)];
  const uint32_t host = id.value / links_per_host_;
  Link link = links_[block_of(host) * links_per_host_ + (id.value - host * links_per_host_)];
  // A block's link joins devices by their ids within the block: shift them to the server's.
  const uint32_t first_device = host * devices_per_host_;
  link.from.value += first_device;
  link.to.value += first_device;
  return link;
}

template <typename Id, typename Value>
Value TopologyView<Id, Value>::iterator::operator*() const {
  if constexpr (std::is_same_v<Value, Device>) {
    return topology_->device(DeviceId{id_});
  } else {
    return topology_->link(LinkId{id_});
  }
}

}  // namespace linksim
