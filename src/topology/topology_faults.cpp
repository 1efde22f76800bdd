// SPDX-License-Identifier: Apache-2.0
// with_degraded(): a machine with faults applied, rebuilt so that its servers stay identical
// blocks (the layout contract of include/linksim/topology.hpp). docs/cli.md#degrade.
#include <fmt/core.h>

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <vector>

#include "linksim/error.hpp"
#include "linksim/faults.hpp"
#include "linksim/units.hpp"

namespace linksim {
namespace {

// A device's place in the server template: its id within its server, or its own id for a
// fabric device (fabric ids come after every server block, so the two never collide).
uint32_t template_key(const Topology& t, DeviceId id) {
  const Device& d = t.device(id);
  return d.host ? id.value - t.host_device_offset(*d.host) : id.value;
}

// The mutable parameters of the copy being built.
struct Draft {
  std::vector<int> lanes;        // per directed link
  std::vector<double> bw_Bps;    // per directed link
  std::vector<bool> removed;     // per device
  std::vector<double> clock;     // per device
};

bool touches(const Topology& t, const Link& link, uint32_t key) {
  return template_key(t, link.from) == key || template_key(t, link.to) == key;
}

// The directed links a width or speed fault acts on, before filtering by lanes or rate.
std::vector<uint32_t> matched_links(const Topology& t, const Fault& f) {
  std::vector<uint32_t> found;
  const uint32_t a = template_key(t, f.device), b = template_key(t, f.peer);
  for (uint32_t i = 0; i < t.links().size(); ++i) {
    const Link& link = t.link(LinkId{i});
    bool match = false;
    switch (f.target) {
      case FaultTargetKind::kDevice:
        match = touches(t, link, a) &&
                link.family == (f.change == FaultChange::kWidth ? LinkFamily::kPcie
                                                                : LinkFamily::kNetwork);
        break;
      case FaultTargetKind::kLink: {
        const uint32_t from = template_key(t, link.from), to = template_key(t, link.to);
        match = (from == a && to == b) || (from == b && to == a);
        break;
      }
      case FaultTargetKind::kLinkClass: match = link_class(t, link) == f.link_class; break;
    }
    if (match) found.push_back(i);
  }
  return found;
}

std::string target_words(const Topology& t, const Fault& f) {
  switch (f.target) {
    case FaultTargetKind::kDevice:
      return fmt::format("'{}' has no {} link", t.device(f.device).name,
                         f.change == FaultChange::kWidth ? "PCIe" : "network");
    case FaultTargetKind::kLink: return "";
    case FaultTargetKind::kLinkClass:
      return fmt::format("the topology has no {} link", to_string(f.link_class));
  }
  return "";
}

void apply_width_or_speed(const Topology& t, const Fault& f, Draft& draft) {
  const std::vector<uint32_t> links = matched_links(t, f);
  if (links.empty()) throw ConfigError(fmt::format("'{}': {}", f.text, target_words(t, f)));
  const bool width = f.change == FaultChange::kWidth;
  int changed = 0;
  double most = 0;  // the widest (lanes) or fastest (bytes/s) matched link, for messages
  for (const uint32_t i : links) {
    if (width) {
      most = std::max(most, double(draft.lanes[i]));
      if (draft.lanes[i] <= f.lanes) continue;
      draft.bw_Bps[i] *= double(f.lanes) / draft.lanes[i];
      draft.lanes[i] = f.lanes;
    } else {
      most = std::max(most, draft.bw_Bps[i]);
      if (draft.bw_Bps[i] <= f.rate_Bps) continue;
      draft.bw_Bps[i] = f.rate_Bps;
    }
    ++changed;
  }
  if (changed > 0) return;
  if (width) {
    throw ConfigError(fmt::format("'{}': expected fewer lanes than the link's {}, got {}", f.text,
                                  int(most), f.lanes));
  }
  throw ConfigError(fmt::format("'{}': expected a rate below the link's {:g} Gb/s, got {:g} Gb/s",
                                f.text, most * 8 / kGB, f.rate_Bps * 8 / kGB));
}

void apply(const Topology& t, const Fault& f, Draft& draft) {
  switch (f.change) {
    case FaultChange::kWidth:
    case FaultChange::kSpeed: apply_width_or_speed(t, f, draft); return;
    case FaultChange::kMissing:
    case FaultChange::kClock: {
      const uint32_t key = template_key(t, f.device);
      for (uint32_t i = 0; i < t.devices().size(); ++i) {
        if (template_key(t, DeviceId{i}) != key || (t.device(DeviceId{i}).host.has_value() !=
                                                    t.device(f.device).host.has_value())) {
          continue;
        }
        if (f.change == FaultChange::kMissing) draft.removed[i] = true;
        else draft.clock[i] = std::min(draft.clock[i], f.clock_fraction);
      }
      return;
    }
  }
}

// Every GPU and NIC must still reach the first GPU over links (in any direction).
void check_connected(const Topology& out, std::string_view faults) {
  if (out.gpus().empty()) {
    throw ConfigError(fmt::format("'{}': expected a GPU to be left, got none", faults));
  }
  std::vector<bool> seen(out.devices().size(), false);
  std::deque<DeviceId> queue{out.gpus().front()};
  seen[out.gpus().front().value] = true;
  while (!queue.empty()) {
    const DeviceId at = queue.front();
    queue.pop_front();
    for (const LinkId id : out.out_links(at)) {
      const DeviceId next = out.link(id).to;
      if (!seen[next.value]) {
        seen[next.value] = true;
        queue.push_back(next);
      }
    }
  }
  for (uint32_t i = 0; i < out.devices().size(); ++i) {
    const Device& d = out.device(DeviceId{i});
    if (seen[i] || (d.kind != DeviceKind::kGpu && d.kind != DeviceKind::kNic)) continue;
    throw ConfigError(fmt::format("'{}': expected every GPU and NIC to stay connected, got {} "
                                  "cut off from {}",
                                  faults, out.display_name(DeviceId{i}),
                                  out.display_name(out.gpus().front())));
  }
}

std::string joined_text(std::span<const Fault> faults) {
  std::string text;
  for (const Fault& f : faults) text += (text.empty() ? "" : ",") + f.text;
  return text;
}

}  // namespace

Topology with_degraded(const Topology& topology, std::span<const Fault> faults) {
  const auto links = topology.links();
  const auto devices = topology.devices();
  Draft draft;
  draft.removed.assign(devices.size(), false);
  draft.clock.resize(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) draft.clock[i] = devices[i].clock_fraction;
  for (const Link& l : links) {
    draft.lanes.push_back(l.lanes);
    draft.bw_Bps.push_back(l.bw_Bps);
  }
  for (const Fault& f : faults) apply(topology, f, draft);

  Topology out(topology.catalog());
  out.set_name(topology.name());
  out.set_source_file(topology.source_file());
  out.set_nccl_env(topology.nccl_env());
  out.reserve(devices.size(), links.size());
  out.copy_details_from(topology);
  std::vector<DeviceId> new_id(devices.size());
  uint32_t host0_devices = 0;
  for (uint32_t i = 0; i < devices.size(); ++i) {
    if (draft.removed[i]) continue;
    Device d = devices[i];
    d.clock_fraction = draft.clock[i];
    host0_devices += d.host == 0 ? 1 : 0;
    new_id[i] = out.add_device(std::move(d));
  }
  // Links come in pairs (2k, 2k+1 = reverse); re-adding the forward one recreates both.
  uint32_t host0_links = 0;
  for (uint32_t id = 0; id < links.size(); id += 2) {
    const Link& l = links[id];
    if (draft.removed[l.from.value] || draft.removed[l.to.value]) continue;
    const LinkType* type = topology.catalog().find_link_type(topology.link_type(l));
    if (type == nullptr) throw std::logic_error("with_degraded: link type not in the catalog");
    out.add_link(new_id[l.from.value], new_id[l.to.value], *type, draft.lanes[id],
                 draft.bw_Bps[id], l.latency_s, topology.link_where(LinkId{id}),
                 l.host_bridge);
    host0_links += id < topology.links_per_host() ? 2 : 0;
  }
  if (topology.devices_per_host() > 0) {
    out.set_host_layout(topology.host_count(), host0_devices, host0_links);
  } else {
    out.set_host_layout(topology.host_count(), 0, 0);
  }
  out.finalize();
  check_connected(out, joined_text(faults));
  return out;
}

}  // namespace linksim
