// SPDX-License-Identifier: Apache-2.0
// The link graph of a machine: devices (GPUs, CPUs, switches, NICs) and directed links.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
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
};

/// One direction of a full-duplex link. The opposite direction is `reverse`.
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
};
static_assert(sizeof(Link) <= 32, "Link is read per hop by routing and the simulators; keep it 32 bytes");

/// The ranges Link's narrow fields hold; Topology::add_link (and the loader, with the
/// value's position) refuse a link outside them rather than truncate it.
inline constexpr int kMaxLinkLanes = INT16_MAX;
inline constexpr int kMaxHostBridge = INT16_MAX;
/// Distinct catalog link types one topology may hold (Link::type_index is one byte).
inline constexpr size_t kMaxLinkTypes = 256;

/// An immutable-after-build machine description.
///
/// Layout contract (routing relies on it for speed): the devices and links of server instance
/// h form contiguous blocks, identical in shape for every h:
///   device id = host_device_offset(h) + local id,  link id = host_link_offset(h) + local id,
/// with the local ids of host 0. Fabric devices and links (host == nullopt, and links that
/// touch a fabric device) come after all hosts. A link and its reverse are ids 2k and 2k+1.
class Topology {
 public:
  Topology() = default;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const std::string& source_file() const { return source_file_; }
  void set_source_file(std::string file) { source_file_ = std::move(file); }

  std::span<const Device> devices() const { return devices_; }
  const Device& device(DeviceId id) const { return devices_[id.value]; }
  std::span<const Link> links() const { return links_; }
  const Link& link(LinkId id) const { return links_[id.value]; }
  /// The other direction of `id`: the pair rule of the layout contract (ids 2k and 2k+1).
  static LinkId reverse(LinkId id) { return LinkId{id.value ^ 1u}; }
  /// The catalog link type key of a link of this topology ("nvlink4", "pcie5", "ib_ndr").
  const InternedString& link_type(const Link& link) const { return type_keys_[link.type_index].second; }
  const InternedString& link_type(LinkId id) const { return link_type(links_[id.value]); }
  /// The declaration details of a device (its entry of the details table).
  const DeviceDetails& details(DeviceId id) const { return details_[devices_[id.value].details]; }
  const DeviceDetails& details(const Device& device) const { return details_[device.details]; }
  /// Where the link was declared, for messages (the template's entry for a server's link).
  const SourceLocation& link_where(LinkId id) const;
  /// Directed links leaving `id`, in the order they were added.
  std::span<const LinkId> out_links(DeviceId id) const;

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
  /// Declares that the first `hosts` x devices_per_host devices (and the matching links)
  /// are `hosts` identical server blocks. Called by the loader once the servers are built.
  void set_host_layout(int hosts, uint32_t devices_per_host, uint32_t links_per_host);
  /// Pre-sizes storage for `devices` devices and `links` directed links, so a loader that
  /// knows the final size (nodes: 4096) does not pay for repeated regrowth. Optional.
  void reserve(size_t devices, size_t links) {
    devices_.reserve(devices);
    links_.reserve(links);
    link_where_.reserve(links / 2);
  }
  /// Rebuilds adjacency and indexes after building. Called once, last.
  void finalize();

 private:
  const Catalog* catalog_ = nullptr;
  std::string name_;
  std::string source_file_;
  std::vector<Device> devices_;
  /// Entry 0 is the default (nothing declared); see DeviceDetails.
  std::vector<DeviceDetails> details_ = std::vector<DeviceDetails>(1);
  std::vector<Link> links_;
  /// Per link pair (ids 2k, 2k+1): an index into wheres_, which holds each run of equal
  /// declarations once.
  std::vector<uint32_t> link_where_;
  std::vector<SourceLocation> wheres_;
  std::vector<uint32_t> out_begin_;   // CSR: out_links of device d = out_ids_[out_begin_[d] .. out_begin_[d+1])
  std::vector<LinkId> out_ids_;
  std::vector<DeviceId> gpus_;
  int host_count_ = 1;
  uint32_t devices_per_host_ = 0;
  uint32_t links_per_host_ = 0;
  /// The link types add_link has seen (a handful), with their interned keys; Link::type_index
  /// indexes it.
  std::vector<std::pair<const LinkType*, InternedString>> type_keys_;
};

}  // namespace linksim
