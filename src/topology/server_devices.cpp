// SPDX-License-Identifier: Apache-2.0
// Parsing `node.devices`: kinds, per-kind keys, name ranges, catalog lookups.
#include <array>
#include <map>

#include <fmt/format.h>

#include "common/text.hpp"
#include "linksim/topology_yaml.hpp"
#include "topology/name_range.hpp"
#include "topology/server_template.hpp"

namespace linksim::detail {
namespace {

struct KindInfo {
  std::string_view key;
  DeviceKind kind;
};
// The `kind` values of docs/topology-format.md#devices.
constexpr std::array<KindInfo, 6> kKinds = {{{"gpu", DeviceKind::kGpu},
                                              {"cpu", DeviceKind::kCpu},
                                              {"pcie_switch", DeviceKind::kPcieSwitch},
                                              {"nvswitch", DeviceKind::kNvswitch},
                                              {"nic", DeviceKind::kNic},
                                              {"switch", DeviceKind::kNetSwitch}}};

DeviceKind parse_kind(const YamlValue& value) {
  std::string text = value.text();
  std::vector<std::string> keys;
  for (const KindInfo& info : kKinds) {
    if (info.key == text) return info.kind;
    keys.emplace_back(info.key);
  }
  std::string close = closest_match(text, keys);
  value.fail(close.empty() ? fmt::format("unknown device kind \"{}\"; expected one of {}", text,
                                         text::join(keys, ", "))
                           : fmt::format("unknown device kind \"{}\"; did you mean \"{}\"?",
                                         text, close));
}

void check_kind_keys(const YamlValue& entry, DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kGpu: return entry.check_keys({"name", "kind", "model", "p2p"});
    case DeviceKind::kCpu:
      return entry.check_keys({"name", "kind", "numa", "cores", "platform", "host_staging_bw",
                               "host_staging_cross_socket_bw"});
    case DeviceKind::kNic: return entry.check_keys({"name", "kind", "type", "port"});
    case DeviceKind::kNvswitch:
    case DeviceKind::kNetSwitch: return entry.check_keys({"name", "kind", "reduction"});
    case DeviceKind::kPcieSwitch: return entry.check_keys({"name", "kind"});
  }
}

// "unknown X \"word\"; did you mean \"y\"?" or "...; expected one of a, b, c".
[[noreturn]] void fail_unknown(const YamlValue& value, std::string_view what,
                               const std::string& word, const std::vector<std::string>& known) {
  std::string close = closest_match(word, known);
  value.fail(close.empty() ? fmt::format("unknown {} \"{}\"; expected one of {}", what, word,
                                         text::join(known, ", "))
                           : fmt::format("unknown {} \"{}\"; did you mean \"{}\"?", what, word,
                                         close));
}

std::vector<std::string> expand(const YamlValue& value) {
  NameRange range = expand_name_range(value.text());
  if (!range.error.empty()) value.fail(range.error);
  for (const std::string& name : range.names) {
    if (name.empty() || name.find_first_of(": \t") != std::string::npos) {
      value.fail(fmt::format("expected a device name without spaces or \":\", got \"{}\"", name));
    }
  }
  return range.names;
}

// Fills the kind-specific fields shared by every device of one entry.
void parse_kind_fields(const YamlValue& entry, const Catalog& catalog, Device& proto,
                       DeviceDetails& proto_details) {
  if (proto.kind == DeviceKind::kGpu) {
    YamlValue model = entry.at("model");
    std::string text = model.text();
    const GpuModel* gpu = catalog.find_gpu(text);
    if (gpu == nullptr) fail_unknown(model, "gpu model", text, catalog.gpu_keys());
    proto.model = gpu->key;
    proto.p2p = gpu->p2p;
    if (auto p2p = entry.find("p2p")) proto.p2p = p2p->to_bool();
  }
  if (proto.kind == DeviceKind::kNic) {
    YamlValue type = entry.at("type");
    std::string text = type.text();
    const LinkType* link = catalog.find_link_type(text);
    if (link == nullptr) fail_unknown(type, "link type", text, catalog.link_type_keys());
    if (link->family != LinkFamily::kNetwork) {
      type.fail(fmt::format("expected a network link type for a nic (ib_ndr, roce_400, ...), "
                            "got \"{}\"", text));
    }
    proto.model = link->key;
  }
  if (proto.kind == DeviceKind::kCpu) {
    if (auto platform = entry.find("platform")) {
      std::string text = platform->text();
      const HostPlatform* known = catalog.find_platform(text);
      if (known == nullptr) {
        std::vector<std::string> names;
        for (const HostPlatform& p : catalog.platforms()) {
          names.push_back(p.key);
          names.insert(names.end(), p.aliases.begin(), p.aliases.end());
        }
        fail_unknown(*platform, "host platform", text, names);
      }
      proto.model = known->key;
    }
    if (auto bw = entry.find("host_staging_bw")) {
      proto_details.host_staging_Bps = bw->to_bandwidth_Bps();
    }
    if (auto bw = entry.find("host_staging_cross_socket_bw")) {
      proto_details.host_staging_cross_socket_Bps = bw->to_bandwidth_Bps();
    }
  }
  if (auto reduction = entry.find("reduction")) proto.reduction = reduction->to_bool();
  if (auto cores = entry.find("cores")) proto_details.cpu_affinity = cores->text();
}

}  // namespace

void parse_devices(const YamlValue& devices, const Catalog& catalog, ServerTemplate& server) {
  std::map<DeviceKind, int> ordinal;
  size_t gpus = 0;
  for (const YamlValue& entry : devices.items()) {
    entry.expect_map();
    Device proto;
    DeviceDetails proto_details;
    proto.kind = parse_kind(entry.at("kind"));
    check_kind_keys(entry, proto.kind);
    proto.host = 0;
    YamlValue name = entry.at("name");
    std::vector<std::string> names = expand(name);
    std::vector<std::string> ports;
    if (auto port = entry.find("port")) {
      ports = expand(*port);
      if (ports.size() != names.size()) {
        port->fail(fmt::format("expected {} port names to match \"{}\", got {}", names.size(),
                               name.text(), ports.size()));
      }
    }
    parse_kind_fields(entry, catalog, proto, proto_details);
    std::optional<int> numa;
    if (auto value = entry.find("numa")) numa = value->to_int(0);
    proto_details.where = name.location();
    // Checked before any device of the entry is built.
    if (server.devices.size() + names.size() > size_t(kMaxServerDevices)) {
      name.fail(fmt::format("expected at most {} devices in a server, got {} with \"{}\"",
                            kMaxServerDevices, server.devices.size() + names.size(), name.text()));
    }
    if (proto.kind == DeviceKind::kGpu) {
      gpus += names.size();
      if (gpus > size_t(kMaxServerGpus)) {
        name.fail(fmt::format("expected at most {} gpus in a server, got {} with \"{}\"",
                              kMaxServerGpus, gpus, name.text()));
      }
    }
    for (size_t i = 0; i < names.size(); ++i) {
      Device device = proto;
      DeviceDetails details = proto_details;
      device.name = names[i];
      device.index = ordinal[device.kind]++;
      if (device.kind == DeviceKind::kCpu) details.numa = numa.value_or(device.index);
      if (!ports.empty()) details.port_name = ports[i];
      auto [it, fresh] = server.index_of.emplace(names[i], uint32_t(server.devices.size()));
      if (!fresh) {
        const SourceLocation& first = server.details[it->second].where;
        name.fail(fmt::format("duplicate device name \"{}\"", device.name),
                  {fmt::format("first declared at {}:{}:{}", first.file, first.line,
                               first.column)});
      }
      server.devices.push_back(std::move(device));
      server.details.push_back(std::move(details));
      server.device_paths.push_back(entry.path());
    }
  }
}

}  // namespace linksim::detail
