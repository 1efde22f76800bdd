// SPDX-License-Identifier: Apache-2.0
// The GPU and link-type catalogs: YAML schema (docs/catalog.md), validation and lookup.
#include "linksim/catalog.hpp"

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <limits>

#include "catalog/yaml_fields.hpp"
#include "common/check.hpp"
#include "common/text.hpp"

namespace linksim::detail {
extern const char* const kBuiltinGpuCatalogYaml;
extern const char* const kBuiltinLinkCatalogYaml;
extern const char* const kBuiltinGpuCatalogPath;
extern const char* const kBuiltinLinkCatalogPath;
extern const char* const kBuiltinPlatformCatalogYaml;
extern const char* const kBuiltinPlatformCatalogPath;
}  // namespace linksim::detail

namespace linksim {

namespace {

using detail::entry_list;
using detail::entry_reader;
using detail::FieldReader;
using detail::load_document;
using detail::location_of;

constexpr std::array<std::pair<std::string_view, LinkFamily>, 5> kFamilies = {{
    {"nvlink", LinkFamily::kNvlink},
    {"pcie", LinkFamily::kPcie},
    {"smp", LinkFamily::kSmp},
    {"c2c", LinkFamily::kC2c},
    {"network", LinkFamily::kNetwork},
}};

constexpr std::array<std::string_view, 6> kArchitectures = {"volta",  "turing", "ampere",
                                                            "ada",    "hopper", "blackwell"};

std::string comma_list(auto&& names) {
  std::string out;
  for (std::string_view name : names) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

LinkFamily parse_family(FieldReader& fields) {
  const std::string text = fields.required_string("family");
  for (const auto& [name, family] : kFamilies) {
    if (name == text) return family;
  }
  std::vector<std::string_view> names;
  for (const auto& entry : kFamilies) names.push_back(entry.first);
  fields.fail_at("family", fmt::format("unknown link family '{}'; expected one of: {}", text,
                                       comma_list(names)));
}

const std::vector<std::string> kLinkTypeKeys = {
    "key",           "family",  "description", "lanes_key",  "lane_bw", "bandwidth",
    "default_lanes", "latency", "pcie_gen",    "nvlink_gen", "source",  "note"};

const std::vector<std::string> kGpuKeys = {
    "key",      "aliases",   "name",  "arch",           "sm",     "multiprocessors",
    "nvlink_type", "nvlink_lanes", "nvlink_lane_bw", "p2p", "pcie_gen", "bf16", "fp8", "memory",
    "memory_bw", "l2_bw", "boost_clock_mhz", "source", "note"};

constexpr std::array<std::pair<std::string_view, CpuVendor>, 5> kVendors = {{
    {"unknown", CpuVendor::kUnknown},
    {"intel", CpuVendor::kIntel},
    {"amd", CpuVendor::kAmd},
    {"zhaoxin", CpuVendor::kZhaoxin},
    {"nvidia", CpuVendor::kNvidia},
}};

constexpr std::array<std::pair<std::string_view, CpuArch>, 3> kCpuArchs = {{
    {"x86", CpuArch::kX86},
    {"arm", CpuArch::kArm},
    {"power", CpuArch::kPower},
}};

const std::vector<std::string> kPlatformKeys = {
    "key", "aliases", "name", "vendor", "arch", "nccl_smp_bw", "memory_bw", "host_staging_bw",
    "host_staging_cross_socket_bw", "source", "note"};

constexpr std::string_view kDefaultPlatformKey = "generic";

template <typename Enum, size_t N>
Enum parse_enum(FieldReader& fields, const char* key,
                const std::array<std::pair<std::string_view, Enum>, N>& table) {
  const std::string text = fields.required_string(key);
  std::vector<std::string_view> names;
  for (const auto& [name, value] : table) {
    if (name == text) return value;
    names.push_back(name);
  }
  fields.fail_at(key, fmt::format("unknown {} '{}'; expected one of: {}", key, text,
                                  comma_list(names)));
}

// A staged rate a platform leaves out is 0 (none measured: the model's terms alone bound it,
// docs/model.md#shm).
HostPlatform parse_platform(FieldReader& fields) {
  HostPlatform platform;
  if (auto key = fields.optional_string("key")) {
    fields.set_what(fmt::format("platform '{}'", *key));
  }
  fields.reject_unknown_keys(kPlatformKeys);
  platform.key = fields.required_string("key");
  platform.aliases = fields.optional_string_list("aliases");
  platform.name = fields.required_string("name");
  platform.vendor = parse_enum(fields, "vendor", kVendors);
  platform.arch = parse_enum(fields, "arch", kCpuArchs);
  platform.nccl_smp_bw_Bps = fields.optional_bandwidth_Bps("nccl_smp_bw")
                                 .value_or(std::numeric_limits<double>::infinity());
  platform.memory_bw_Bps = fields.optional_bandwidth_Bps("memory_bw")
                               .value_or(std::numeric_limits<double>::infinity());
  platform.host_staging_Bps = fields.optional_bandwidth_Bps("host_staging_bw").value_or(0);
  platform.host_staging_cross_socket_Bps =
      fields.optional_bandwidth_Bps("host_staging_cross_socket_bw").value_or(0);
  platform.source = fields.required_string("source");
  fields.optional_string("note");
  return platform;
}

LinkType parse_link_type(FieldReader& fields) {
  LinkType type;
  // Unknown keys first, so a misspelt key is reported as such rather than as missing.
  if (auto key = fields.optional_string("key")) {
    fields.set_what(fmt::format("link type '{}'", *key));
  }
  fields.reject_unknown_keys(kLinkTypeKeys);
  type.key = fields.required_string("key");
  type.family = parse_family(fields);
  type.description = fields.required_string("description");
  type.lanes_key = fields.optional_string("lanes_key").value_or("");
  if (type.lanes_key.empty()) {
    type.lane_bw_Bps = fields.required_bandwidth_Bps("bandwidth");
  } else {
    if (type.lanes_key != "lanes" && type.lanes_key != "width") {
      fields.fail_at("lanes_key", fmt::format("expected 'lanes' or 'width' for 'lanes_key', "
                                              "got '{}'", type.lanes_key));
    }
    type.lane_bw_Bps = fields.required_bandwidth_Bps("lane_bw");
  }
  type.default_lanes = fields.optional_int("default_lanes").value_or(1);
  if (type.default_lanes < 1) {
    fields.fail_at("default_lanes",
                   fmt::format("expected 'default_lanes' >= 1, got {}", type.default_lanes));
  }
  type.latency_s = fields.required_duration_s("latency");
  type.pcie_gen = fields.optional_int("pcie_gen").value_or(0);
  type.nvlink_gen = fields.optional_int("nvlink_gen").value_or(0);
  type.source = fields.required_string("source");
  fields.optional_string("note");
  return type;
}

void check_arch(FieldReader& fields, const std::string& arch) {
  if (std::find(kArchitectures.begin(), kArchitectures.end(), arch) != kArchitectures.end()) {
    return;
  }
  fields.fail_at("arch", fmt::format("unknown architecture '{}'; expected one of: {}", arch,
                                     comma_list(kArchitectures)));
}

GpuModel parse_gpu(FieldReader& fields, const std::vector<LinkType>& link_types) {
  GpuModel gpu;
  if (auto key = fields.optional_string("key")) fields.set_what(fmt::format("gpu '{}'", *key));
  fields.reject_unknown_keys(kGpuKeys);
  gpu.key = fields.required_string("key");
  gpu.aliases = fields.optional_string_list("aliases");
  gpu.name = fields.required_string("name");
  gpu.arch = fields.required_string("arch");
  check_arch(fields, gpu.arch);
  gpu.sm = fields.required_int("sm");
  gpu.multiprocessors = fields.required_int("multiprocessors");
  if (gpu.multiprocessors < 1) {
    fields.fail_at("multiprocessors",
                   fmt::format("expected 'multiprocessors' >= 1, got {}", gpu.multiprocessors));
  }
  gpu.nvlink_type = fields.optional_string("nvlink_type").value_or("");
  if (!gpu.nvlink_type.empty()) {
    auto it = std::find_if(link_types.begin(), link_types.end(), [&](const LinkType& t) {
      return t.key == gpu.nvlink_type && t.family == LinkFamily::kNvlink;
    });
    if (it == link_types.end()) {
      fields.fail_at("nvlink_type", fmt::format("expected an nvlink link type for "
                                                "'nvlink_type', got '{}'", gpu.nvlink_type));
    }
    gpu.nvlink_lanes = fields.required_int("nvlink_lanes");
  }
  gpu.nvlink_lane_bw_Bps = fields.optional_bandwidth_Bps("nvlink_lane_bw").value_or(0);
  gpu.p2p = fields.optional_bool("p2p").value_or(true);
  gpu.pcie_gen = fields.required_int("pcie_gen");
  gpu.bf16_flops = fields.required_flops("bf16");
  gpu.fp8_flops = fields.optional_flops("fp8").value_or(0);
  gpu.memory_bytes = fields.required_size_bytes("memory");
  gpu.memory_bw_Bps = fields.required_bandwidth_Bps("memory_bw");
  gpu.l2_bw_Bps = fields.optional_bandwidth_Bps("l2_bw").value_or(0);
  if (const std::optional<double> mhz = fields.optional_number("boost_clock_mhz")) {
    if (*mhz <= 0) {
      fields.fail_at("boost_clock_mhz",
                     fmt::format("expected 'boost_clock_mhz' > 0 (MHz), got {:g}", *mhz));
    }
    gpu.boost_clock_hz = *mhz * 1e6;
  }
  gpu.source = fields.required_string("source");
  fields.optional_string("note");
  return gpu;
}

// Every key and alias must name one entry only, ignoring case.
void check_unique(const std::vector<std::string>& names, const std::string& name,
                  const SourceLocation& where) {
  for (const std::string& seen : names) {
    if (text::iequals(seen, name)) {
      throw ConfigError(where, fmt::format("duplicate catalog name '{}'", name));
    }
  }
}

std::vector<LinkType> parse_link_types(std::string_view text, std::string_view file) {
  const YAML::Node entries = entry_list(load_document(text, file), file, "link_types");
  std::vector<LinkType> types;
  std::vector<std::string> names;
  for (size_t i = 0; i < entries.size(); ++i) {
    FieldReader fields = entry_reader(entries[i], file, "link_types", i);
    LinkType type = parse_link_type(fields);
    check_unique(names, type.key, location_of(entries[i]["key"], file));
    names.push_back(type.key);
    types.push_back(std::move(type));
  }
  return types;
}

std::vector<GpuModel> parse_gpus(std::string_view text, std::string_view file,
                                 const std::vector<LinkType>& link_types) {
  const YAML::Node entries = entry_list(load_document(text, file), file, "gpus");
  std::vector<GpuModel> gpus;
  std::vector<std::string> names;
  for (size_t i = 0; i < entries.size(); ++i) {
    const YAML::Node& entry = entries[i];
    FieldReader fields = entry_reader(entry, file, "gpus", i);
    GpuModel gpu = parse_gpu(fields, link_types);
    check_unique(names, gpu.key, location_of(entry["key"], file));
    names.push_back(gpu.key);
    for (size_t a = 0; a < gpu.aliases.size(); ++a) {
      check_unique(names, gpu.aliases[a], location_of(entry["aliases"][a], file));
      names.push_back(gpu.aliases[a]);
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

std::vector<HostPlatform> parse_platforms(std::string_view text, std::string_view file) {
  const YAML::Node document = load_document(text, file);
  const YAML::Node entries = entry_list(document, file, "platforms");
  std::vector<HostPlatform> platforms;
  std::vector<std::string> names;
  for (size_t i = 0; i < entries.size(); ++i) {
    const YAML::Node& entry = entries[i];
    FieldReader fields = entry_reader(entry, file, "platforms", i);
    HostPlatform platform = parse_platform(fields);
    check_unique(names, platform.key, location_of(entry["key"], file));
    names.push_back(platform.key);
    for (size_t a = 0; a < platform.aliases.size(); ++a) {
      check_unique(names, platform.aliases[a], location_of(entry["aliases"][a], file));
      names.push_back(platform.aliases[a]);
    }
    platforms.push_back(std::move(platform));
  }
  const auto fallback = std::find_if(platforms.begin(), platforms.end(), [](const auto& p) {
    return p.key == kDefaultPlatformKey;
  });
  if (fallback == platforms.end()) {
    throw ConfigError(location_of(document, file),
                      fmt::format("expected a platform with key '{}' (the default)",
                                  kDefaultPlatformKey));
  }
  return platforms;
}

template <typename Enum, size_t N>
std::string_view enum_name(Enum value, const std::array<std::pair<std::string_view, Enum>, N>& t) {
  for (const auto& [name, v] : t) {
    if (v == value) return name;
  }
  return "unknown";
}

}  // namespace

std::string_view to_string(CpuVendor vendor) { return enum_name(vendor, kVendors); }
std::string_view to_string(CpuArch arch) { return enum_name(arch, kCpuArchs); }

std::string_view to_string(LinkFamily family) {
  for (const auto& [name, value] : kFamilies) {
    if (value == family) return name;
  }
  return "unknown";
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog =
      parse(detail::kBuiltinGpuCatalogYaml, detail::kBuiltinGpuCatalogPath,
            detail::kBuiltinLinkCatalogYaml, detail::kBuiltinLinkCatalogPath);
  return catalog;
}

Catalog Catalog::parse(std::string_view gpus_yaml, std::string_view gpus_name,
                       std::string_view links_yaml, std::string_view links_name) {
  return parse(gpus_yaml, gpus_name, links_yaml, links_name, detail::kBuiltinPlatformCatalogYaml,
               detail::kBuiltinPlatformCatalogPath);
}

Catalog Catalog::parse(std::string_view gpus_yaml, std::string_view gpus_name,
                       std::string_view links_yaml, std::string_view links_name,
                       std::string_view platforms_yaml, std::string_view platforms_name) {
  Catalog catalog;
  catalog.link_types_ = parse_link_types(links_yaml, links_name);
  catalog.gpus_ = parse_gpus(gpus_yaml, gpus_name, catalog.link_types_);
  catalog.platforms_ = parse_platforms(platforms_yaml, platforms_name);
  return catalog;
}

const HostPlatform* Catalog::find_platform(std::string_view name) const {
  for (const HostPlatform& platform : platforms_) {
    if (text::iequals(platform.key, name)) return &platform;
    for (const std::string& alias : platform.aliases) {
      if (text::iequals(alias, name)) return &platform;
    }
  }
  return nullptr;
}

const HostPlatform& Catalog::default_platform() const {
  const HostPlatform* platform = find_platform(kDefaultPlatformKey);
  LINKSIM_CHECK(platform != nullptr, "every parsed catalog has the default platform");
  return *platform;
}

std::vector<std::string> Catalog::platform_keys() const {
  std::vector<std::string> keys;
  for (const HostPlatform& platform : platforms_) keys.push_back(platform.key);
  return keys;
}

const GpuModel* Catalog::find_gpu(std::string_view name) const {
  for (const GpuModel& gpu : gpus_) {
    if (text::iequals(gpu.key, name)) return &gpu;
    for (const std::string& alias : gpu.aliases) {
      if (text::iequals(alias, name)) return &gpu;
    }
  }
  return nullptr;
}

const LinkType* Catalog::find_link_type(std::string_view key) const {
  for (const LinkType& type : link_types_) {
    if (text::iequals(type.key, key)) return &type;
  }
  return nullptr;
}

std::vector<std::string> Catalog::gpu_keys() const {
  std::vector<std::string> keys;
  for (const GpuModel& gpu : gpus_) keys.push_back(gpu.key);
  return keys;
}

std::vector<std::string> Catalog::link_type_keys() const {
  std::vector<std::string> keys;
  for (const LinkType& type : link_types_) keys.push_back(type.key);
  return keys;
}

}  // namespace linksim
