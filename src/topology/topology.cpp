// SPDX-License-Identifier: Apache-2.0
// The link graph: building, CSR adjacency and name lookup.
#include "linksim/topology.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <tuple>

namespace linksim {

std::string_view to_string(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kGpu: return "gpu";
    case DeviceKind::kCpu: return "cpu";
    case DeviceKind::kPcieSwitch: return "pcie_switch";
    case DeviceKind::kNvswitch: return "nvswitch";
    case DeviceKind::kNic: return "nic";
    case DeviceKind::kNetSwitch: return "net_switch";
  }
  return "unknown";
}

namespace {

/// The device ids [first, second) that can belong to `host`: its block under the layout
/// contract (empty for a host outside it), every device when no layout is declared.
std::pair<uint32_t, uint32_t> host_block(const Topology& t, int host) {
  if (t.devices_per_host() == 0) return {0, uint32_t(t.devices().size())};
  if (host < 0 || host >= t.host_count()) return {0, 0};
  return {t.host_device_offset(host), t.host_device_offset(host) + t.devices_per_host()};
}

}  // namespace

OutLinks Topology::out_links(DeviceId id) const {
  std::span<const uint32_t> in_block;
  uint32_t block_first_link = 0;
  if (id.value < host_devices_) {
    const uint32_t stored = stored_device(id);
    if (size_t(stored) + 1 < block_out_begin_.size()) {
      in_block = std::span<const uint32_t>(block_out_links_)
                     .subspan(block_out_begin_[stored],
                              block_out_begin_[stored + 1] - block_out_begin_[stored]);
    }
    block_first_link = host_link_offset(int(id.value / devices_per_host_));
  }
  std::span<const LinkId> outside;
  const auto source = std::lower_bound(outside_sources_.begin(), outside_sources_.end(), id);
  if (source != outside_sources_.end() && *source == id) {
    const size_t k = size_t(source - outside_sources_.begin());
    outside = std::span<const LinkId>(outside_links_)
                  .subspan(outside_begin_[k], outside_begin_[k + 1] - outside_begin_[k]);
  }
  return OutLinks(in_block, block_first_link, outside);
}

std::vector<DeviceId> Topology::devices_of(int host, DeviceKind kind) const {
  std::vector<DeviceId> found;
  // Only host `host`'s block can hold its devices (the layout contract).
  const auto [begin, end] = host_block(*this, host);
  for (uint32_t i = begin; i < end; ++i) {
    const Device d = device(DeviceId{i});
    if (d.kind == kind && d.host == host) found.push_back(DeviceId{i});
  }
  std::stable_sort(found.begin(), found.end(), [this](DeviceId a, DeviceId b) {
    return devices_[stored_device(a)].index < devices_[stored_device(b)].index;
  });
  return found;
}

std::string Topology::display_name(DeviceId id) const {
  const Device d = device(id);
  if (!d.host || host_count_ <= 1) return d.name;
  return fmt::format("host{}:{}", *d.host, d.name);
}

std::optional<DeviceId> Topology::find(std::string_view name) const {
  std::optional<int> host;
  std::string_view local = name;
  if (name.starts_with("host")) {
    size_t colon = name.find(':');
    int parsed = 0;
    const char* first = name.data() + 4;
    const char* last = name.data() + (colon == std::string_view::npos ? 4 : colon);
    auto [end, ec] = std::from_chars(first, last, parsed);
    if (colon != std::string_view::npos && ec == std::errc() && end == last && first != last) {
      host = parsed;
      local = name.substr(colon + 1);
    }
  }
  // A qualified name must match its host; a bare one means host 0 or a fabric device. Under the
  // layout contract those are host `host`'s block, or host 0's block then the fabric devices
  // after all blocks, searched in id order.
  const auto matches = [&](uint32_t i) {
    const Device d = device(DeviceId{i});
    return d.name == local && (host ? d.host == host : (!d.host || *d.host == 0));
  };
  const auto [begin, end] = host_block(*this, host.value_or(0));
  for (uint32_t i = begin; i < end; ++i) {
    if (matches(i)) return DeviceId{i};
  }
  if (host || devices_per_host_ == 0) return std::nullopt;
  for (uint32_t i = host_devices_; i < device_count(); ++i) {
    if (matches(i)) return DeviceId{i};
  }
  return std::nullopt;
}

const GpuModel& Topology::gpu_model(DeviceId gpu) const {
  const Device& d = devices_[stored_device(gpu)];
  const GpuModel* model = catalog_ ? catalog_->find_gpu(d.model) : nullptr;
  if (d.kind != DeviceKind::kGpu || model == nullptr) {
    throw ConfigError(details(d).where, fmt::format("'{}' has no known gpu model (got '{}')", d.name,
                                           d.model));
  }
  return *model;
}

const HostPlatform& Topology::host_platform(DeviceId cpu) const {
  const Catalog& catalog = catalog_ ? *catalog_ : Catalog::builtin();
  const Device& d = devices_[stored_device(cpu)];
  if (d.kind != DeviceKind::kCpu || d.model.empty()) return catalog.default_platform();
  const HostPlatform* platform = catalog.find_platform(d.model);
  if (platform == nullptr) {
    throw ConfigError(details(d).where,
                      fmt::format("'{}' has no known host platform (got '{}')", d.name, d.model));
  }
  return *platform;
}

uint32_t Topology::add_details(DeviceDetails details) {
  details_.push_back(std::move(details));
  return uint32_t(details_.size() - 1);
}

DeviceId Topology::add_device(Device device) {
  if (device.details >= details_.size()) {
    throw std::out_of_range(fmt::format("add_device: details index {} of '{}' is not in the "
                                        "table of {} entries",
                                        device.details, device.name, details_.size()));
  }
  const DeviceId id{device_count()};
  devices_.push_back(std::move(device));
  return id;
}

DeviceId Topology::add_device(Device device, DeviceDetails details) {
  device.details = add_details(std::move(details));
  return add_device(std::move(device));
}

LinkId Topology::add_link(DeviceId from, DeviceId to, const LinkType& type, int lanes,
                          double bw_Bps, double latency_s, SourceLocation where,
                          int host_bridge) {
  if (lanes < 0 || lanes > kMaxLinkLanes) {
    throw ConfigError(where, fmt::format("expected a link of 0 to {} lanes, got {}",
                                         kMaxLinkLanes, lanes));
  }
  if (host_bridge < -1 || host_bridge > kMaxHostBridge) {
    throw ConfigError(where, fmt::format("expected host_bridge 0 to {}, got {}", kMaxHostBridge,
                                         host_bridge));
  }
  auto key = std::find_if(type_keys_.begin(), type_keys_.end(),
                          [&](const auto& entry) { return entry.first == &type; });
  if (key == type_keys_.end()) {
    if (type_keys_.size() >= kMaxLinkTypes) {
      throw ConfigError(where, fmt::format("expected at most {} link types in a topology, got "
                                           "one more: '{}'", kMaxLinkTypes, type.key));
    }
    key = type_keys_.insert(key, {&type, InternedString(type.key)});
  }
  // The pair rule (Topology::reverse): this direction gets an even id, its reverse the next.
  const uint32_t forward_id = link_count();
  Link forward;
  forward.from = from;
  forward.to = to;
  forward.type_index = uint8_t(key - type_keys_.begin());
  forward.family = type.family;
  forward.lanes = int16_t(lanes);
  forward.bw_Bps = bw_Bps;
  forward.latency_s = latency_s;
  forward.host_bridge = int16_t(host_bridge);
  const SourceLocation* last = wheres_.empty() ? nullptr : &wheres_.back();
  if (last == nullptr || !(last->file == where.file && last->line == where.line &&
                           last->column == where.column)) {
    wheres_.push_back(std::move(where));
  }
  link_where_.push_back(uint32_t(wheres_.size() - 1));
  Link backward = forward;
  std::swap(backward.from, backward.to);
  links_.push_back(forward);
  links_.push_back(backward);
  return LinkId{forward_id};
}

const SourceLocation& Topology::link_where(LinkId id) const {
  // Server blocks repeat host 0's links (the layout contract), declarations included; the
  // pairs outside every block follow host 0's.
  const uint32_t pair = id.value < host_links_
                            ? (id.value % links_per_host_) / 2
                            : links_per_host_ / 2 + (id.value - host_links_) / 2;
  return wheres_[link_where_[pair]];
}

namespace {

/// Whether every link of `links` joins two of the `devices` devices from `first_device` on.
bool links_stay_in_block(std::span<const Link> links, uint32_t first_device, uint32_t devices) {
  const auto in_block = [&](DeviceId id) {
    return id.value >= first_device && id.value - first_device < devices;
  };
  return std::all_of(links.begin(), links.end(),
                     [&](const Link& link) { return in_block(link.from) && in_block(link.to); });
}

/// Host 0's device as server `host` repeats it: with the server's number.
Device as_server(Device device, int host) {
  if (device.host == 0) device.host = host;
  return device;
}

/// A block's link with its ends' ids within the block (`first_device`: the block's first
/// device) or, from_block_ids, back at the server's.
Link to_block_ids(Link link, uint32_t first_device) {
  link.from.value -= first_device;
  link.to.value -= first_device;
  return link;
}
Link from_block_ids(Link link, uint32_t first_device) {
  link.from.value += first_device;
  link.to.value += first_device;
  return link;
}

}  // namespace

void Topology::set_host_layout(int hosts, uint32_t devices_per_host, uint32_t links_per_host) {
  if (stored_blocks_ != 0 || host_count_ != 1 || devices_per_host_ != 0) {
    throw std::invalid_argument("set_host_layout: a layout is already declared");
  }
  if (devices_per_host == 0 || hosts < 1) {  // no blocks: every entry stored as added
    host_count_ = hosts;
    return;
  }
  const uint64_t block_devices = uint64_t(hosts) * devices_per_host;
  const uint64_t block_links = uint64_t(hosts) * links_per_host;
  if (block_devices > devices_.size() || block_links > links_.size() || links_per_host % 2 != 0) {
    throw std::invalid_argument(fmt::format(
        "set_host_layout: {} blocks of {} devices and {} links, the topology holds {} and {}",
        hosts, devices_per_host, links_per_host, devices_.size(), links_.size()));
  }
  const std::span<const Device> devices(devices_);
  const std::span<const Link> links(links_);
  // Which servers repeat host 0's block; the others keep a block of their own.
  std::vector<uint32_t> differing;
  for (int h = 0; h < hosts; ++h) {
    const uint32_t first_device = uint32_t(h) * devices_per_host;
    const auto block_links_of_h = links.subspan(uint64_t(h) * links_per_host, links_per_host);
    if (!links_stay_in_block(block_links_of_h, first_device, devices_per_host)) {
      throw std::invalid_argument(fmt::format(
          "set_host_layout: a link of server {}'s block leaves its block", h));
    }
    if (h == 0) continue;
    bool same = true;
    for (uint32_t i = 0; i < devices_per_host && same; ++i) {
      same = as_server(devices[i], h) == devices[first_device + i];
    }
    for (uint32_t i = 0; i < links_per_host && same; ++i) {
      same = from_block_ids(links[i], first_device) == block_links_of_h[i];
    }
    if (!same) differing.push_back(uint32_t(h));
  }
  // Keep host 0's block, the differing blocks (their links by ids within the block), then the
  // entries after every block.
  std::vector<Device> kept_devices;
  std::vector<Link> kept_links;
  std::vector<uint32_t> kept_where;
  const uint32_t stored_blocks = 1 + uint32_t(differing.size());
  kept_devices.reserve(stored_blocks * devices_per_host + (devices_.size() - block_devices));
  kept_links.reserve(stored_blocks * links_per_host + (links_.size() - block_links));
  kept_where.reserve(links_per_host / 2 + (links_.size() - block_links) / 2);
  const auto keep_block = [&](uint32_t h) {
    const uint32_t first_device = h * devices_per_host;
    kept_devices.insert(kept_devices.end(), devices.begin() + first_device,
                        devices.begin() + first_device + devices_per_host);
    for (const Link& link : links.subspan(uint64_t(h) * links_per_host, links_per_host)) {
      kept_links.push_back(to_block_ids(link, first_device));
    }
  };
  keep_block(0);
  for (const uint32_t h : differing) keep_block(h);
  kept_devices.insert(kept_devices.end(), devices.begin() + std::ptrdiff_t(block_devices),
                      devices.end());
  kept_links.insert(kept_links.end(), links.begin() + std::ptrdiff_t(block_links), links.end());
  kept_where.insert(kept_where.end(), link_where_.begin(),
                    link_where_.begin() + links_per_host / 2);
  kept_where.insert(kept_where.end(), link_where_.begin() + std::ptrdiff_t(block_links / 2),
                    link_where_.end());
  // Keep only the declarations the kept pairs name: a machine rebuilt link by link (a
  // faulted copy) names host 0's declarations again in every server, one run each.
  std::vector<SourceLocation> kept_wheres;
  std::vector<uint32_t> renumbered(wheres_.size(), UINT32_MAX);
  for (uint32_t& where : kept_where) {
    if (renumbered[where] == UINT32_MAX) {
      renumbered[where] = uint32_t(kept_wheres.size());
      kept_wheres.push_back(wheres_[where]);
    }
    where = renumbered[where];
  }
  devices_ = std::move(kept_devices);
  links_ = std::move(kept_links);
  link_where_ = std::move(kept_where);
  wheres_ = std::move(kept_wheres);
  host_block_.clear();
  if (!differing.empty()) {
    host_block_.assign(size_t(hosts), 0);
    for (size_t b = 0; b < differing.size(); ++b) host_block_[differing[b]] = uint32_t(b + 1);
  }
  host_count_ = hosts;
  stored_blocks_ = stored_blocks;
  devices_per_host_ = devices_per_host;
  links_per_host_ = links_per_host;
  host_devices_ = uint32_t(block_devices);
  host_links_ = uint32_t(block_links);
}

void Topology::add_server_copies(int hosts) {
  if (stored_blocks_ != 0 || host_count_ != 1 || devices_per_host_ != 0 || hosts < 1) {
    throw std::invalid_argument("add_server_copies: a layout is already declared");
  }
  if (!links_stay_in_block(links_, 0, uint32_t(devices_.size()))) {
    throw std::invalid_argument("add_server_copies: a link leaves host 0's block");
  }
  host_count_ = hosts;
  if (devices_.empty()) return;
  stored_blocks_ = 1;
  devices_per_host_ = uint32_t(devices_.size());
  links_per_host_ = uint32_t(links_.size());
  host_devices_ = uint32_t(uint64_t(hosts) * devices_per_host_);
  host_links_ = uint32_t(uint64_t(hosts) * links_per_host_);
}

void Topology::build_block_adjacency() {
  // CSR by counting sort on the source device within each stored block; link ids ascend
  // within each device, which is the order the links were added.
  const uint32_t stored_devices = stored_block_devices();
  block_out_begin_.assign(size_t(stored_devices) + 1, 0);
  block_out_links_.assign(stored_block_links(), 0);
  for (uint32_t b = 0; b < stored_blocks_; ++b) {
    const uint32_t first_device = b * devices_per_host_;
    const uint32_t first_link = b * links_per_host_;
    for (uint32_t k = 0; k < links_per_host_; ++k) {
      ++block_out_begin_[first_device + links_[first_link + k].from.value + 1];
    }
  }
  for (uint32_t d = 0; d < stored_devices; ++d) block_out_begin_[d + 1] += block_out_begin_[d];
  std::vector<uint32_t> next(block_out_begin_.begin(), block_out_begin_.end() - 1);
  for (uint32_t b = 0; b < stored_blocks_; ++b) {
    const uint32_t first_device = b * devices_per_host_;
    const uint32_t first_link = b * links_per_host_;
    for (uint32_t k = 0; k < links_per_host_; ++k) {
      block_out_links_[next[first_device + links_[first_link + k].from.value]++] = k;
    }
  }
}

void Topology::build_outside_adjacency() {
  // The links after every block, grouped by source device (a counting sort over the sources'
  // ids, ascending); link ids ascend within each source.
  const uint32_t first_stored = stored_block_links();
  const uint32_t outside = uint32_t(links_.size()) - first_stored;
  std::vector<uint32_t> count(size_t(device_count()) + 1, 0);
  for (uint32_t s = first_stored; s < links_.size(); ++s) ++count[links_[s].from.value + 1];
  outside_sources_.clear();
  outside_begin_.clear();
  for (uint32_t d = 0; d < device_count(); ++d) {
    if (count[d + 1] == 0) continue;
    outside_sources_.push_back(DeviceId{d});
    outside_begin_.push_back(0);
  }
  outside_begin_.push_back(0);
  // count[d] becomes the position of source d's first link.
  for (uint32_t d = 0, k = 0; d < device_count(); ++d) {
    const uint32_t links_of_d = count[d + 1];
    count[d + 1] = count[d] + links_of_d;
    if (links_of_d > 0) outside_begin_[++k] = count[d + 1];
  }
  outside_links_.assign(outside, LinkId{});
  for (uint32_t s = first_stored; s < links_.size(); ++s) {
    outside_links_[count[links_[s].from.value]++] = LinkId{host_links_ + (s - first_stored)};
  }
  outside_sources_.shrink_to_fit();
  outside_begin_.shrink_to_fit();
}

void Topology::finalize() {
  build_block_adjacency();
  build_outside_adjacency();
  gpus_.clear();
  for (uint32_t i = 0; i < device_count(); ++i) {
    if (devices_[stored_device(DeviceId{i})].kind == DeviceKind::kGpu) gpus_.push_back(DeviceId{i});
  }
  const auto rank_order = [this](DeviceId a, DeviceId b) {
    const Device x = device(a);
    const Device y = device(b);
    return std::tuple(x.host.value_or(INT_MAX), x.index) <
           std::tuple(y.host.value_or(INT_MAX), y.index);
  };
  // Loaders declare GPUs in index order, so the ids are usually in rank order already; a
  // stable sort of a sorted range would leave it as it is.
  if (!std::is_sorted(gpus_.begin(), gpus_.end(), rank_order)) {
    std::stable_sort(gpus_.begin(), gpus_.end(), rank_order);
  }
}

}  // namespace linksim
