// SPDX-License-Identifier: Apache-2.0
// parse_faults(): the --degrade grammar (docs/cli.md#degrade) resolved against a topology.
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "linksim/error.hpp"
#include "linksim/faults.hpp"
#include "linksim/units.hpp"

namespace linksim {
namespace {

struct ClassName {
  std::string_view name;
  LinkClass link_class;
};
constexpr ClassName kClassNames[] = {
    {"nvlink", LinkClass::kNvlink}, {"nvlink-c2c", LinkClass::kNvlinkC2c},
    {"pcie", LinkClass::kPcie},     {"socket", LinkClass::kSocket},
    {"nic", LinkClass::kNic},       {"fabric", LinkClass::kFabric},
};

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// The names a fault may use: each server device as host 0 spells it, each fabric device,
// and the link classes.
std::vector<std::string> known_names(const Topology& topology) {
  std::vector<std::string> names;
  for (const Device& d : topology.devices()) {
    if (!d.host || *d.host == 0) names.push_back(d.name);
  }
  for (const ClassName& c : kClassNames) names.emplace_back(c.name);
  return names;
}

[[noreturn]] void fail(std::string_view item, const std::string& message) {
  throw ConfigError(fmt::format("'{}': {}", item, message));
}

DeviceId resolve_device(std::string_view item, std::string_view name, const Topology& topology) {
  if (name.find(':') != std::string_view::npos) {
    fail(item, fmt::format("expected a device as one server names it (such as 'gpu3'), got "
                           "'{}': linksim's servers are identical, so a fault applies to that "
                           "device of every server",
                           name));
  }
  if (const std::optional<DeviceId> id = topology.find(name)) return *id;
  const std::string close = closest_match(std::string(name), known_names(topology));
  fail(item, fmt::format("expected a device of {}, got '{}'{}", topology.name(), name,
                         close.empty() ? "" : fmt::format("; did you mean '{}'?", close)));
}

std::optional<int> positive_integer(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1) return std::nullopt;
  return value;
}

// "80%" or "0.8": a fraction in (0, 1).
std::optional<double> clock_fraction(std::string_view text) {
  const bool percent = !text.empty() && text.back() == '%';
  if (percent) text.remove_suffix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (percent) value /= 100;
  if (!(value > 0 && value < 1)) return std::nullopt;
  return value;
}

void parse_target(std::string_view item, std::string_view target, const Topology& topology,
                  Fault& fault) {
  if (target.empty()) fail(item, "expected a device, two devices joined by '~' or a link class before ':'");
  const size_t tilde = target.find('~');
  if (tilde != std::string_view::npos) {
    fault.target = FaultTargetKind::kLink;
    fault.device = resolve_device(item, trim(target.substr(0, tilde)), topology);
    fault.peer = resolve_device(item, trim(target.substr(tilde + 1)), topology);
    for (const LinkId id : topology.out_links(fault.device)) {
      if (topology.link(id).to == fault.peer) return;
    }
    fail(item, fmt::format("expected two devices joined by a link, got '{}' and '{}', which no "
                           "link joins",
                           topology.device(fault.device).name, topology.device(fault.peer).name));
  }
  if (!topology.find(target)) {
    for (const ClassName& c : kClassNames) {
      if (target == c.name) {
        fault.target = FaultTargetKind::kLinkClass;
        fault.link_class = c.link_class;
        return;
      }
    }
  }
  fault.target = FaultTargetKind::kDevice;
  fault.device = resolve_device(item, target, topology);
}

void parse_change(std::string_view item, std::string_view change, Fault& fault) {
  if (change == "missing") {
    fault.change = FaultChange::kMissing;
    return;
  }
  const size_t equals = change.find('=');
  const std::string_view key = trim(change.substr(0, equals));
  const std::string_view value =
      equals == std::string_view::npos ? std::string_view() : trim(change.substr(equals + 1));
  if (key == "width" || key == "lanes") {
    fault.change = FaultChange::kWidth;
    const std::optional<int> lanes = positive_integer(value);
    if (equals == std::string_view::npos || !lanes) {
      fail(item, fmt::format("expected width=N with N lanes left (a positive integer), got '{}'",
                             change));
    }
    fault.lanes = *lanes;
  } else if (key == "speed") {
    fault.change = FaultChange::kSpeed;
    const std::optional<double> rate = parse_bandwidth_Bps(value);
    if (equals == std::string_view::npos || !rate) {
      fail(item, fmt::format("expected speed=RATE with a unit, such as speed=200Gb/s, got '{}'",
                             change));
    }
    fault.rate_Bps = *rate;
  } else if (key == "clock") {
    fault.change = FaultChange::kClock;
    const std::optional<double> fraction = clock_fraction(value);
    if (equals == std::string_view::npos || !fraction) {
      fail(item, fmt::format("expected clock=P% with P between 0 and 100, such as clock=80%, "
                             "got '{}'",
                             change));
    }
    fault.clock_fraction = *fraction;
  } else {
    const std::string close =
        closest_match(std::string(key), {"missing", "width", "lanes", "speed", "clock"});
    fail(item, fmt::format("expected missing, width=N, speed=RATE or clock=P%, got '{}'{}", change,
                           close.empty() ? "" : fmt::format("; did you mean '{}'?", close)));
  }
}

bool is_removable(const Topology& topology, DeviceId id) {
  const Device& d = topology.device(id);
  switch (d.kind) {
    case DeviceKind::kGpu:
    case DeviceKind::kNic:
    case DeviceKind::kNvswitch: return true;
    case DeviceKind::kNetSwitch: return d.tier >= 2;
    case DeviceKind::kCpu:
    case DeviceKind::kPcieSwitch: return false;
  }
  return false;
}

// Which changes fit which targets.
void check_fit(std::string_view item, const Topology& topology, const Fault& fault) {
  const bool device = fault.target == FaultTargetKind::kDevice;
  const std::optional<Device> d =
      device ? std::optional<Device>(topology.device(fault.device)) : std::nullopt;
  switch (fault.change) {
    case FaultChange::kMissing:
      if (!device) fail(item, "expected a device to be missing, got a link or link class (give it a lower width or speed)");
      if (!is_removable(topology, fault.device)) {
        fail(item, fmt::format("expected a GPU, NIC, NVSwitch or spine/core switch to be missing, "
                               "got '{}', a {}: the devices behind it would be cut off",
                               d->name, d->kind == DeviceKind::kNetSwitch ? "leaf switch"
                                                                          : to_string(d->kind)));
      }
      return;
    case FaultChange::kClock:
      if (!device || d->kind != DeviceKind::kGpu) {
        fail(item, "expected a GPU for clock=, got "
                   + (device ? fmt::format("'{}', a {}", d->name, to_string(d->kind))
                             : std::string("a link or link class")));
      }
      return;
    case FaultChange::kWidth:
    case FaultChange::kSpeed:
      return;
  }
}

}  // namespace

std::vector<Fault> parse_faults(std::string_view spec, const Topology& topology) {
  std::vector<Fault> faults;
  size_t begin = 0;
  while (begin <= spec.size()) {
    const size_t comma = std::min(spec.find(',', begin), spec.size());
    const std::string_view item = trim(spec.substr(begin, comma - begin));
    begin = comma + 1;
    if (item.empty()) {
      throw ConfigError(fmt::format("expected a fault such as 'nic0:speed=200Gb/s' or "
                                    "'gpu3:missing', got an empty item in '{}'",
                                    spec));
    }
    const size_t colon = item.rfind(':');
    if (colon == std::string_view::npos) {
      fail(item, "expected TARGET:CHANGE, such as 'nic0:speed=200Gb/s', 'gpu0~pcie_switch0:width=8' "
                 "or 'gpu3:missing'");
    }
    Fault fault;
    fault.text = std::string(item);
    parse_change(item, trim(item.substr(colon + 1)), fault);
    parse_target(item, trim(item.substr(0, colon)), topology, fault);
    check_fit(item, topology, fault);
    faults.push_back(std::move(fault));
  }
  return faults;
}

Topology with_degraded(const Topology& topology, std::string_view spec) {
  const std::vector<Fault> faults = parse_faults(spec, topology);
  return with_degraded(topology, faults);
}

}  // namespace linksim
