// SPDX-License-Identifier: Apache-2.0
// Parsing `node.links`: endpoints, pairing rules, catalog bandwidth and latency, duplicates.
#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "linksim/topology_yaml.hpp"
#include "common/text.hpp"
#include "topology/name_range.hpp"
#include "topology/server_template.hpp"

namespace linksim::detail {
namespace {

// How many known names an "unknown device" message lists before "...".
constexpr size_t kKnownNamesShown = 8;

std::vector<uint32_t> resolve_endpoints(const YamlValue& value, const ServerTemplate& server) {
  std::string text = value.text();
  NameRange range = expand_name_range(text);
  if (!range.error.empty()) value.fail(range.error);
  std::vector<uint32_t> ids;
  ids.reserve(range.names.size());
  for (const std::string& name : range.names) {
    auto it = server.index_of.find(name);
    if (it != server.index_of.end()) {
      ids.push_back(it->second);
      continue;
    }
    std::vector<std::string> known;
    for (const Device& device : server.devices) known.push_back(device.name);
    std::string close = closest_match(name, known);
    if (!close.empty()) value.fail(fmt::format("unknown device \"{}\"; did you mean \"{}\"?", name, close));
    bool more = known.size() > kKnownNamesShown;
    known.resize(std::min(known.size(), kKnownNamesShown));
    value.fail(fmt::format("unknown device \"{}\"; known devices: {}{}", name,
                           text::join(known, ", "), more ? ", ..." : ""));
  }
  return ids;
}

// The pairing rules of docs/topology-format.md#links.
std::vector<std::pair<uint32_t, uint32_t>> pair_endpoints(const YamlValue& entry,
                                                          const std::vector<uint32_t>& from,
                                                          const std::vector<uint32_t>& to) {
  size_t n = from.size();
  size_t m = to.size();
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  if (n == m) {
    for (size_t i = 0; i < n; ++i) pairs.emplace_back(from[i], to[i]);
  } else if (n == 1 || m == 1) {
    for (uint32_t f : from) {
      for (uint32_t t : to) pairs.emplace_back(f, t);
    }
  } else if (n % m == 0) {
    for (size_t i = 0; i < n; ++i) pairs.emplace_back(from[i], to[i / (n / m)]);
  } else if (m % n == 0) {
    for (size_t j = 0; j < m; ++j) pairs.emplace_back(from[j / (m / n)], to[j]);
  } else {
    entry.fail(fmt::format("cannot pair {} \"from\" devices with {} \"to\" devices; expected "
                           "equal counts, a single device on one side, or a multiple",
                           n, m));
  }
  return pairs;
}

const LinkType& parse_link_type(const YamlValue& value, const Catalog& catalog) {
  std::string text = value.text();
  if (const LinkType* type = catalog.find_link_type(text)) return *type;
  std::vector<std::string> known = catalog.link_type_keys();
  std::string close = closest_match(text, known);
  value.fail(close.empty() ? fmt::format("unknown link type \"{}\"; expected one of {}", text,
                                         text::join(known, ", "))
                           : fmt::format("unknown link type \"{}\"; did you mean \"{}\"?", text,
                                         close));
}

// `lanes` or `width` per the type's lanes_key; fixed-rate types accept `lanes` as a count of
// parallel links (e.g. 3 UPI links).
int parse_lanes(const YamlValue& entry, const LinkType& type) {
  std::string_view wanted = type.lanes_key == "width" ? "width" : "lanes";
  std::string_view other = wanted == "width" ? "lanes" : "width";
  if (entry.find(other)) {
    entry.key_of(other).fail(fmt::format("expected \"{}\" for a {} link, got \"{}\"", wanted,
                                         type.key, other));
  }
  if (auto value = entry.find(wanted)) {
    const int lanes = value->to_int(1);
    // Link::lanes holds up to kMaxLinkLanes (include/linksim/topology.hpp).
    if (lanes > kMaxLinkLanes) {
      value->fail(fmt::format("expected at most {} {}, got {}", kMaxLinkLanes, wanted, lanes));
    }
    // PCIe negotiates x1, x2, x4, x8 or x16 (x12 and x32 never shipped; PCIe 6.0 drops them).
    if (wanted == "width" && lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16) {
      value->fail(
          fmt::format("expected width 1, 2, 4, 8 or 16 (a PCIe link width), got {}", lanes));
    }
    return lanes;
  }
  return type.lanes_key.empty() ? 1 : std::max(1, type.default_lanes);
}

// What each family joins: socket links two CPUs, NVLink GPUs and NVSwitches (a CPU's NVLink
// is NVLink-C2C, its own family). Anything else carries no route (docs/topology-format.md).
void check_link_ends(const YamlValue& entry, const LinkType& type, const Device& a,
                     const Device& b) {
  const auto is = [](const Device& d, DeviceKind kind) { return d.kind == kind; };
  if (type.family == LinkFamily::kSmp && !(is(a, DeviceKind::kCpu) && is(b, DeviceKind::kCpu))) {
    entry.fail(fmt::format("expected a socket link ({}) between two cpus, got {} to {}", type.key,
                           a.name, b.name));
  }
  const auto nvlink_end = [&](const Device& d) {
    return is(d, DeviceKind::kGpu) || is(d, DeviceKind::kNvswitch);
  };
  if (type.family == LinkFamily::kNvlink && !(nvlink_end(a) && nvlink_end(b))) {
    entry.fail(fmt::format("expected an NVLink ({}) between gpus and nvswitches, got {} to {}",
                           type.key, a.name, b.name));
  }
}

// A GPU has as many NVLink links as its datasheet says (the catalog's nvlink_lanes): one
// link may not bond more, and a model without NVLink (nvlink_lanes 0) has none.
void check_nvlink_lanes(const YamlValue& entry, const LinkType& type, int lanes, const Device& end,
                        const Device& other, const Catalog& catalog) {
  if (type.family != LinkFamily::kNvlink || end.kind != DeviceKind::kGpu) return;
  const GpuModel* gpu = catalog.find_gpu(end.model);
  if (gpu != nullptr && gpu->nvlink_lanes <= 0) {
    entry.fail(fmt::format("expected a GPU model with NVLink at {}, got {} (no NVLink) on an {} "
                           "link to {}", end.name, gpu->key, type.key, other.name));
  }
  if (gpu == nullptr || lanes <= gpu->nvlink_lanes) return;
  const std::optional<YamlValue> value = entry.find("lanes");
  (value ? *value : entry)
      .fail(fmt::format("expected lanes of at most {} (the NVLink links of a {}), got {}",
                        gpu->nvlink_lanes, gpu->key, lanes));
}

// Per-lane rate: the type's, capped by a GPU whose NVLink ports are slower (GpuModel docs).
double lane_rate_Bps(const LinkType& type, const Device& a, const Device& b,
                     const Catalog& catalog) {
  double rate = type.lane_bw_Bps;
  if (type.family != LinkFamily::kNvlink) return rate;
  for (const Device* end : {&a, &b}) {
    if (end->kind != DeviceKind::kGpu) continue;
    const GpuModel* gpu = catalog.find_gpu(end->model);
    if (gpu != nullptr && gpu->nvlink_lane_bw_Bps > 0) rate = std::min(rate, gpu->nvlink_lane_bw_Bps);
  }
  return rate;
}

struct LinkEntry {
  const LinkType* type = nullptr;
  int lanes = 1;
  std::optional<double> bw_Bps;
  double latency_s = 0;
  int host_bridge = -1;
};

LinkEntry parse_link_entry(const YamlValue& entry, const Catalog& catalog) {
  LinkEntry link;
  link.type = &parse_link_type(entry.at("type"), catalog);
  link.lanes = parse_lanes(entry, *link.type);
  if (auto bw = entry.find("bandwidth")) link.bw_Bps = bw->to_bandwidth_Bps();
  link.latency_s = link.type->latency_s;
  if (auto latency = entry.find("latency")) link.latency_s = latency->to_duration_s();
  if (auto bridge = entry.find("host_bridge")) {
    link.host_bridge = bridge->to_int(0);
    // Link::host_bridge holds up to kMaxHostBridge (include/linksim/topology.hpp).
    if (link.host_bridge > kMaxHostBridge) {
      bridge->fail(fmt::format("expected host_bridge at most {}, got {}", kMaxHostBridge,
                               link.host_bridge));
    }
  }
  return link;
}

uint64_t pair_key(uint32_t a, uint32_t b) {
  return (uint64_t(std::min(a, b)) << 32) | std::max(a, b);
}

}  // namespace

void parse_links(const YamlValue& links, const Catalog& catalog, ServerTemplate& server,
                 EarlierLinks earlier) {
  // Links declared before this list (an included server's), by pair: replaced when `earlier`
  // says so, a duplicate otherwise.
  std::unordered_map<uint64_t, size_t> earlier_link;
  for (size_t i = 0; i < server.links.size(); ++i) {
    earlier_link.emplace(pair_key(server.links[i].from, server.links[i].to), i);
  }
  std::unordered_map<uint64_t, SourceLocation> first_link;
  if (earlier == EarlierLinks::kDuplicate) {
    for (const LinkSpec& l : server.links) first_link.emplace(pair_key(l.from, l.to), l.where);
  }
  for (const YamlValue& entry : links.items()) {
    entry.check_keys({"from", "to", "type", "lanes", "width", "bandwidth", "latency",
                      "host_bridge"});
    std::vector<uint32_t> from = resolve_endpoints(entry.at("from"), server);
    std::vector<uint32_t> to = resolve_endpoints(entry.at("to"), server);
    LinkEntry link = parse_link_entry(entry, catalog);
    const std::vector<std::pair<uint32_t, uint32_t>> pairs = pair_endpoints(entry, from, to);
    if (server.links.size() + pairs.size() > size_t(kMaxServerLinks)) {
      entry.fail(fmt::format("expected at most {} links in a server, got {} with this entry",
                             kMaxServerLinks, server.links.size() + pairs.size()));
    }
    for (auto [a, b] : pairs) {
      const Device& da = server.devices[a];
      const Device& db = server.devices[b];
      if (a == b) entry.fail(fmt::format("expected a link between two devices, got {} to itself", da.name));
      check_link_ends(entry, *link.type, da, db);
      check_nvlink_lanes(entry, *link.type, link.lanes, da, db, catalog);
      check_nvlink_lanes(entry, *link.type, link.lanes, db, da, catalog);
      bool into_cpu = da.kind == DeviceKind::kCpu || db.kind == DeviceKind::kCpu;
      if (link.host_bridge >= 0 && (link.type->family != LinkFamily::kPcie || !into_cpu)) {
        entry.key_of("host_bridge").fail(fmt::format(
            "expected host_bridge only on a PCIe link into a cpu, got {} to {}", da.name, db.name));
      }
      auto [it, fresh] = first_link.emplace(pair_key(a, b), entry.location());
      if (!fresh) {
        entry.fail(fmt::format("duplicate link between {} and {}; bond links with \"lanes\"",
                               da.name, db.name),
                   {fmt::format("first linked at {}:{}:{}", it->second.file, it->second.line,
                                it->second.column)});
      }
      double bw = link.bw_Bps.value_or(lane_rate_Bps(*link.type, da, db, catalog) * link.lanes);
      LinkSpec spec{a, b, link.type, link.lanes, bw, link.latency_s, link.host_bridge,
                    entry.location()};
      auto replaced = earlier_link.find(pair_key(a, b));
      if (earlier == EarlierLinks::kReplace && replaced != earlier_link.end()) {
        server.links[replaced->second] = spec;
      } else {
        server.links.push_back(spec);
      }
    }
  }
}

}  // namespace linksim::detail
