// SPDX-License-Identifier: Apache-2.0
// The link graph: building, CSR adjacency and name lookup.
#include "linksim/topology.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <climits>
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

std::span<const LinkId> Topology::out_links(DeviceId id) const {
  if (size_t(id.value) + 1 >= out_begin_.size()) return {};
  return std::span<const LinkId>(out_ids_).subspan(
      out_begin_[id.value], out_begin_[id.value + 1] - out_begin_[id.value]);
}

std::vector<DeviceId> Topology::devices_of(int host, DeviceKind kind) const {
  std::vector<DeviceId> found;
  // Only host `host`'s block can hold its devices (the layout contract).
  const auto [begin, end] = host_block(*this, host);
  for (uint32_t i = begin; i < end; ++i) {
    const Device& d = devices_[i];
    if (d.kind == kind && d.host == host) found.push_back(DeviceId{i});
  }
  std::stable_sort(found.begin(), found.end(), [this](DeviceId a, DeviceId b) {
    return devices_[a.value].index < devices_[b.value].index;
  });
  return found;
}

std::string Topology::display_name(DeviceId id) const {
  const Device& d = devices_[id.value];
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
    const Device& d = devices_[i];
    return d.name == local && (host ? d.host == host : (!d.host || *d.host == 0));
  };
  const auto [begin, end] = host_block(*this, host.value_or(0));
  for (uint32_t i = begin; i < end; ++i) {
    if (matches(i)) return DeviceId{i};
  }
  if (host || devices_per_host_ == 0) return std::nullopt;
  for (uint32_t i = host_device_offset(host_count_); i < devices_.size(); ++i) {
    if (matches(i)) return DeviceId{i};
  }
  return std::nullopt;
}

const GpuModel& Topology::gpu_model(DeviceId gpu) const {
  const Device& d = devices_[gpu.value];
  const GpuModel* model = catalog_ ? catalog_->find_gpu(d.model) : nullptr;
  if (d.kind != DeviceKind::kGpu || model == nullptr) {
    throw ConfigError(details(d).where, fmt::format("'{}' has no known gpu model (got '{}')", d.name,
                                           d.model));
  }
  return *model;
}

const HostPlatform& Topology::host_platform(DeviceId cpu) const {
  const Catalog& catalog = catalog_ ? *catalog_ : Catalog::builtin();
  const Device& d = devices_[cpu.value];
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
  devices_.push_back(std::move(device));
  return DeviceId{uint32_t(devices_.size() - 1)};
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
  const uint32_t forward_id = uint32_t(links_.size());
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
  uint32_t link = id.value;
  // Server blocks repeat host 0's links (the layout contract), declarations included.
  if (links_per_host_ > 0 && link < uint64_t(links_per_host_) * uint64_t(host_count_)) {
    link %= links_per_host_;
  }
  return wheres_[link_where_[link / 2]];
}

void Topology::set_host_layout(int hosts, uint32_t devices_per_host, uint32_t links_per_host) {
  host_count_ = hosts;
  devices_per_host_ = devices_per_host;
  links_per_host_ = links_per_host;
}

void Topology::finalize() {
  // CSR by counting sort on the source device; link ids ascend within each device, which is
  // the order the links were added.
  out_begin_.assign(devices_.size() + 1, 0);
  for (const Link& link : links_) ++out_begin_[link.from.value + 1];
  for (size_t d = 0; d < devices_.size(); ++d) out_begin_[d + 1] += out_begin_[d];
  out_ids_.assign(links_.size(), LinkId{});
  std::vector<uint32_t> next(out_begin_.begin(), out_begin_.end() - 1);
  for (uint32_t i = 0; i < links_.size(); ++i) out_ids_[next[links_[i].from.value]++] = LinkId{i};

  gpus_.clear();
  for (uint32_t i = 0; i < devices_.size(); ++i) {
    if (devices_[i].kind == DeviceKind::kGpu) gpus_.push_back(DeviceId{i});
  }
  const auto rank_order = [this](DeviceId a, DeviceId b) {
    const Device& x = devices_[a.value];
    const Device& y = devices_[b.value];
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
