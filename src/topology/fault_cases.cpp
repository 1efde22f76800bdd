// SPDX-License-Identifier: Apache-2.0
// single_faults(): the single faults `topo contingency` tries, one server's worth (every server
// is the same block) plus the fabric. docs/cli.md#contingency.
#include <fmt/core.h>

#include <set>
#include <utility>

#include "linksim/error.hpp"
#include "linksim/faults.hpp"
#include "linksim/units.hpp"

namespace linksim {
namespace {

bool in_template(const Topology& t, DeviceId id) {
  const Device& d = t.device(id);
  return !d.host || *d.host == 0;
}

Fault device_fault(DeviceId id, FaultChange change, std::string text) {
  Fault f;
  f.target = FaultTargetKind::kDevice;
  f.device = id;
  f.change = change;
  f.text = std::move(text);
  return f;
}

Fault link_fault(DeviceId a, DeviceId b, FaultChange change, std::string text) {
  Fault f;
  f.target = FaultTargetKind::kLink;
  f.device = a;
  f.peer = b;
  f.change = change;
  f.text = std::move(text);
  return f;
}

// "a~b" as a fault names a link: host 0's local names, or fabric names.
std::string link_name(const Topology& t, const Link& l) {
  return fmt::format("{}~{}", t.device(l.from).name, t.device(l.to).name);
}

// Half a rate, in Gb/s as people quote network ports ("400 Gb/s" -> "200Gb/s").
std::string half_rate_text(double bw_Bps) { return fmt::format("{:g}Gb/s", bw_Bps * 8 / kGB / 2); }

void add_link_faults(const Topology& t, std::vector<FaultCase>& out) {
  // One fault per device pair (parallel links between two devices are one bundle).
  std::set<std::pair<uint32_t, uint32_t>> seen;
  std::vector<FaultCase> pcie, nvlink, nic, fabric;
  for (uint32_t i = 0; i < t.links().size(); i += 2) {
    const Link& l = t.link(LinkId{i});
    if (!in_template(t, l.from) || !in_template(t, l.to)) continue;
    const auto pair = std::minmax(l.from.value, l.to.value);
    if (!seen.insert(pair).second) continue;
    const LinkClass c = link_class(t, l);
    if (c == LinkClass::kPcie && l.lanes >= 2) {
      Fault f = link_fault(l.from, l.to, FaultChange::kWidth,
                           fmt::format("{}:width={}", link_name(t, l), l.lanes / 2));
      f.lanes = l.lanes / 2;
      pcie.push_back({"pcie-width", std::move(f)});
    } else if (c == LinkClass::kNvlink && l.lanes >= 2) {
      Fault f = link_fault(l.from, l.to, FaultChange::kWidth,
                           fmt::format("{}:width={}", link_name(t, l), l.lanes - 1));
      f.lanes = l.lanes - 1;
      nvlink.push_back({"nvlink-lane", std::move(f)});
    } else if (c == LinkClass::kNic || c == LinkClass::kFabric) {
      Fault f = link_fault(l.from, l.to, FaultChange::kSpeed,
                           fmt::format("{}:speed={}", link_name(t, l), half_rate_text(l.bw_Bps)));
      f.rate_Bps = l.bw_Bps / 2;
      (c == LinkClass::kNic ? nic : fabric)
          .push_back({c == LinkClass::kNic ? "nic-speed" : "fabric-speed", std::move(f)});
    }
  }
  for (auto* list : {&pcie, &nvlink, &nic, &fabric}) {
    for (FaultCase& c : *list) out.push_back(std::move(c));
  }
}

void add_device_faults(const Topology& t, std::vector<FaultCase>& out) {
  const std::pair<DeviceKind, const char*> kinds[] = {{DeviceKind::kNic, "nic-missing"},
                                                      {DeviceKind::kGpu, "gpu-missing"},
                                                      {DeviceKind::kNvswitch, "nvswitch-missing"},
                                                      {DeviceKind::kNetSwitch, "switch-missing"}};
  for (const auto& [kind, name] : kinds) {
    for (uint32_t i = 0; i < t.devices().size(); ++i) {
      const Device& d = t.device(DeviceId{i});
      if (d.kind != kind || !in_template(t, DeviceId{i})) continue;
      if (kind == DeviceKind::kNetSwitch && d.tier < 2) continue;
      out.push_back({name, device_fault(DeviceId{i}, FaultChange::kMissing,
                                        fmt::format("{}:missing", d.name))});
    }
  }
  for (uint32_t i = 0; i < t.devices().size(); ++i) {
    const Device& d = t.device(DeviceId{i});
    if (d.kind != DeviceKind::kGpu || !in_template(t, DeviceId{i})) continue;
    Fault f = device_fault(DeviceId{i}, FaultChange::kClock,
                           fmt::format("{}:clock={:.1f}%", d.name, kContingencyClockFraction * 100));
    f.clock_fraction = kContingencyClockFraction;
    out.push_back({"gpu-clock", std::move(f)});
  }
}

}  // namespace

std::vector<FaultCase> single_faults(const Topology& topology) {
  std::vector<FaultCase> cases;
  add_link_faults(topology, cases);
  add_device_faults(topology, cases);
  return cases;
}

}  // namespace linksim
