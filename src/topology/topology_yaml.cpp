// SPDX-License-Identifier: Apache-2.0
// Loading topology files (docs/topology-format.md): includes, parameters, the server
// template, its instances and the fabric, into a finalized Topology.
#include "linksim/topology_yaml.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/text.hpp"
#include "linksim/input_file.hpp"
#include "topology/fabric_builder.hpp"
#include "topology/includes.hpp"
#include "topology/server_template.hpp"

namespace linksim {
namespace {

// A chunk or buffer NCCL can run: at least one 16-byte line, at most 1 GiB, bytes.
constexpr int kMinNcclChunkBytes = 16;
constexpr int kMaxNcclChunkBytes = 1 << 30;

using detail::MergedDocument;
using detail::Params;
using detail::Section;
using detail::YamlValue;

Params collect_params(const MergedDocument& doc, const ParamOverrides& overrides) {
  Params params;
  for (const auto& [name, section] : doc.params) params.set(name, section.value.Scalar());
  for (const auto& [name, value] : overrides) {
    if (!params.declared(name)) {
      const Section* anchor = doc.params_key ? &*doc.params_key : nullptr;
      YamlValue where(anchor ? anchor->key : doc.root, anchor ? anchor->file : &doc.files.front(),
                      "", nullptr);
      where.fail(fmt::format("--set of unknown parameter \"{}\"{}", name,
                             params.unknown_hint(name)));
    }
    params.set(name, value);
  }
  return params;
}

detail::FabricKind parse_fabric_kind(const YamlValue& value) {
  std::string text = value.text();
  if (text == "single_switch") return detail::FabricKind::kSingleSwitch;
  if (text == "fat_tree") return detail::FabricKind::kFatTree;
  if (text == "rail_optimized") return detail::FabricKind::kRailOptimized;
  std::string close = closest_match(text, {"single_switch", "fat_tree", "rail_optimized"});
  value.fail(close.empty() ? fmt::format("unknown fabric kind \"{}\"; expected one of "
                                         "single_switch, fat_tree, rail_optimized", text)
                           : fmt::format("unknown fabric kind \"{}\"; did you mean \"{}\"?",
                                         text, close));
}

detail::FabricPlanes parse_fabric_planes(const YamlValue& value, detail::FabricKind kind) {
  std::string text = value.text();
  if (kind != detail::FabricKind::kRailOptimized) {
    value.fail(fmt::format("expected planes only on a rail_optimized fabric, got \"{}\" on "
                           "another kind", text));
  }
  if (text == "auto") return detail::FabricPlanes::kAuto;
  if (text == "single") return detail::FabricPlanes::kSingle;
  if (text == "per_rail") return detail::FabricPlanes::kPerRail;
  value.fail(fmt::format("expected planes auto, single or per_rail, got \"{}\"", text));
}

detail::FabricSpec parse_fabric(const YamlValue& fabric, const YamlValue& key,
                                const Catalog& catalog) {
  fabric.check_keys({"kind", "radix", "oversubscription", "link", "reduction", "planes"});
  detail::FabricSpec spec;
  spec.where = key.location();
  spec.kind = parse_fabric_kind(fabric.at("kind"));
  if (auto radix = fabric.find("radix")) spec.radix = radix->to_int(2);
  if (auto ratio = fabric.find("oversubscription")) spec.oversubscription = ratio->to_double(1);
  if (auto reduction = fabric.find("reduction")) spec.reduction = reduction->to_bool();
  if (auto planes = fabric.find("planes")) spec.planes = parse_fabric_planes(*planes, spec.kind);
  if (auto link = fabric.find("link")) {
    std::string text = link->text();
    spec.link = catalog.find_link_type(text);
    if (spec.link == nullptr || spec.link->family != LinkFamily::kNetwork) {
      link->fail(fmt::format("expected a network link type (ib_ndr, roce_400, ...), got \"{}\"",
                             text));
    }
  }
  return spec;
}

// The value of a top-level key with parameters substituted, or nullopt when absent.
std::optional<YamlValue> section(const MergedDocument& doc, const std::string& key,
                                 const Params& params) {
  auto it = doc.sections.find(key);
  if (it == doc.sections.end()) return std::nullopt;
  return YamlValue(it->second.value, it->second.file, key, &params);
}

YamlValue section_key(const MergedDocument& doc, const std::string& key) {
  const Section& s = doc.sections.at(key);
  return YamlValue(s.key, s.file, "", nullptr);
}

// The fabric section, checked against the server count before any server is built (so a
// machine too large for its fabric is refused without building it).
std::optional<detail::FabricSpec> fabric_spec(const MergedDocument& doc, const Params& params,
                                              const detail::ServerTemplate& server, int hosts,
                                              const Catalog& catalog) {
  std::optional<YamlValue> fabric = section(doc, "fabric", params);
  if (!fabric) {
    if (hosts > 1) {
      section(doc, "nodes", params)->fail(
          fmt::format("expected a fabric to join {} servers, got none", hosts));
    }
    return std::nullopt;
  }
  YamlValue key = section_key(doc, "fabric");
  detail::FabricSpec spec = parse_fabric(*fabric, key, catalog);
  int nics = 0;
  for (const Device& device : server.devices) nics += device.kind == DeviceKind::kNic ? 1 : 0;
  if (nics == 0) key.fail("expected a nic in the server to attach the fabric to, got none");
  detail::plan_fabric(spec, hosts, nics);
  return spec;
}

// The `nccl_env` section: the variables a platform's network plugin sets, each a size in bytes
// within NCCL's range (docs/topology-format.md#nccl-env).
NcclEnv parse_nccl_env(const YamlValue& env) {
  env.expect_map();
  env.check_keys({"NCCL_NVLS_CHUNKSIZE", "NCCL_NVLSTREE_MAX_CHUNKSIZE", "NCCL_BUFFSIZE"});
  NcclEnv out;
  if (auto v = env.find("NCCL_NVLS_CHUNKSIZE")) {
    out.nvls_chunk_bytes = v->to_int(kMinNcclChunkBytes, kMaxNcclChunkBytes);
  }
  if (auto v = env.find("NCCL_NVLSTREE_MAX_CHUNKSIZE")) {
    out.nvlstree_max_chunk_bytes = v->to_int(kMinNcclChunkBytes, kMaxNcclChunkBytes);
  }
  if (auto v = env.find("NCCL_BUFFSIZE")) {
    out.buffsize_bytes = v->to_int(kMinNcclChunkBytes, kMaxNcclChunkBytes);
  }
  return out;
}

}  // namespace

Topology parse_topology(std::string_view text, const std::string& filename,
                        const ParamOverrides& overrides, const Catalog& catalog) {
  MergedDocument doc = detail::load_document(std::string(text), filename);
  Params params = collect_params(doc, overrides);
  YamlValue root(doc.root, &doc.files.front(), "", nullptr);
  std::optional<YamlValue> name = section(doc, "name", params);
  if (!name) root.fail("missing required key \"name\"");
  std::optional<YamlValue> node = section(doc, "node", params);
  if (!node) root.fail("missing required key \"node\"");

  Topology topology(catalog);
  topology.set_name(name->text());
  topology.set_source_file(filename);
  if (auto description = section(doc, "description", params)) description->text();
  int hosts = 1;
  if (auto nodes = section(doc, "nodes", params)) hosts = nodes->to_int(1, kMaxServers);
  node->expect_map();
  std::optional<YamlValue> extend = section(doc, "extend", params);
  if (extend) extend->expect_map();
  detail::ServerTemplate server = detail::parse_server(*node, extend, catalog);
  const std::optional<detail::FabricSpec> fabric = fabric_spec(doc, params, server, hosts, catalog);
  detail::instantiate_servers(topology, server, hosts);
  if (fabric) detail::build_fabric(topology, *fabric, catalog);
  if (auto env = section(doc, "nccl_env", params)) topology.set_nccl_env(parse_nccl_env(*env));
  topology.finalize();
  return topology;
}

Topology load_topology(const std::string& path, const ParamOverrides& overrides,
                       const Catalog& catalog) {
  return parse_topology(read_input_file(path), path, overrides, catalog);
}

std::pair<std::string, std::string> parse_override(std::string_view text) {
  size_t equals = text.find('=');
  std::string_view name = equals == std::string_view::npos ? "" : text::trim(text.substr(0, equals));
  if (name.empty()) {
    throw ConfigError(fmt::format("expected name=value for --set, got \"{}\"", text));
  }
  return {std::string(name), std::string(text::trim(text.substr(equals + 1)))};
}

}  // namespace linksim
