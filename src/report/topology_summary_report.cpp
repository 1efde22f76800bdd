// SPDX-License-Identifier: Apache-2.0
// render_topology_summary_text and render_topology_summary_json
// (linksim/topology_summary_report.hpp).
#include "linksim/topology_summary_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <iterator>
#include <string>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>

#include "linksim/units.hpp"

namespace linksim {

namespace {

// What bounds a host-staged (SHM) copy on this host (docs/model.md#shm): its measured rates
// where it has them, and the memory and socket figures the model's terms take.
std::string describe_staging(const HostPlatformSummary& host) {
  std::string out = "host-staged copies bounded by the GPU's PCIe link";
  if (std::isfinite(host.platform->memory_bw_Bps)) {
    out += fmt::format(", memory ({} per socket)", format_bandwidth(host.platform->memory_bw_Bps));
  }
  if (std::isfinite(host.platform->nccl_smp_bw_Bps)) {
    out += fmt::format(", the socket link ({})", format_bandwidth(host.platform->nccl_smp_bw_Bps));
  }
  std::vector<std::string> measured;
  if (host.staging_Bps > 0) {
    measured.push_back(fmt::format("{} within a socket", format_bandwidth(host.staging_Bps)));
  }
  if (host.staging_cross_socket_Bps > 0) {
    measured.push_back(
        fmt::format("{} across the sockets", format_bandwidth(host.staging_cross_socket_Bps)));
  }
  if (!measured.empty()) {
    out += fmt::format(" and {}: {}", measured.size() == 1 ? "a measurement" : "measurements",
                       fmt::join(measured, ", "));
  }
  return out;
}

// The variables of `env` that are set, by NCCL's name, in docs/topology-format.md#nccl-env's
// order.
std::vector<std::pair<std::string, int>> nccl_env_entries(const NcclEnv& env) {
  std::vector<std::pair<std::string, int>> out;
  if (env.nvls_chunk_bytes) out.emplace_back("NCCL_NVLS_CHUNKSIZE", *env.nvls_chunk_bytes);
  if (env.nvlstree_max_chunk_bytes) {
    out.emplace_back("NCCL_NVLSTREE_MAX_CHUNKSIZE", *env.nvlstree_max_chunk_bytes);
  }
  if (env.buffsize_bytes) out.emplace_back("NCCL_BUFFSIZE", *env.buffsize_bytes);
  return out;
}

}  // namespace

std::string render_topology_summary_text(const TopologySummary& s) {
  std::string out;
  auto line = std::back_inserter(out);
  const HostPlatformSummary& host = s.host;
  fmt::format_to(line, "{}  ({})\n", s.name, s.source_file);
  fmt::format_to(line, "servers: {}\n", s.servers);
  fmt::format_to(line, "host: {} = {}; NCCL's default P2P level {}; {}\n", host.platform->key,
                 host.platform->name, p2p_level_name(host.p2p_level), describe_staging(host));
  if (s.fabric) fmt::format_to(line, "fabric: {}\n", describe_fabric(*s.fabric));
  const auto env = nccl_env_entries(s.nccl_env);
  if (!env.empty()) {
    fmt::format_to(line, "NCCL environment the platform sets:");
    for (const auto& [name, value] : env) fmt::format_to(line, " {}={}", name, value);
    fmt::format_to(line, "\n");
  }
  fmt::format_to(line, "\ndevices:\n");
  for (const auto& [kind, count] : s.devices_by_kind) {
    fmt::format_to(line, "  {:<12} {:>7}\n", kind, count);
  }
  fmt::format_to(line, "\nlinks (full duplex; bandwidth per direction):\n");
  for (const LinkTypeCount& g : s.links) {
    fmt::format_to(line, "  {:<10} x{:<3} {:>12}  {:>7} links\n", g.type, g.lanes,
                   format_bandwidth(g.bw_Bps), g.count);
  }
  fmt::format_to(line, "\ngpus{}:\n", s.servers > 1 ? " (server 0; every server is alike)" : "");
  for (const GpuPathSummary& g : s.gpus) {
    fmt::format_to(line, "  {} {} ({}): NVLink {} lanes, {}; PCIe {} ({}); nearest NIC: {}\n",
                   g.name, g.device, g.model, g.nvlink_lanes, format_bandwidth(g.nvlink_bw_Bps),
                   g.pcie_path, format_bandwidth(g.pcie_bw_Bps), g.nic);
  }
  fmt::format_to(line,
                 "\nbisection bandwidth (max-flow, first half of the GPUs to the second, per "
                 "direction): {}\n",
                 s.bisection_Bps ? format_bandwidth(*s.bisection_Bps) : std::string("not computed"));
  return out;
}

std::string render_topology_summary_json(const TopologySummary& s) {
  nlohmann::json out;
  out["name"] = s.name;
  out["servers"] = s.servers;
  out["host"] = {{"platform", s.host.platform->key},
                 {"vendor", std::string(to_string(s.host.platform->vendor))},
                 {"p2p_level", std::string(p2p_level_name(s.host.p2p_level))},
                 {"host_staging_GBps", s.host.staging_Bps / 1e9},
                 {"host_staging_cross_socket_GBps", s.host.staging_cross_socket_Bps / 1e9}};
  // A figure the platform does not give (no bound) is null.
  const auto gbps_or_null = [](double Bps) {
    return std::isfinite(Bps) ? nlohmann::json(Bps / 1e9) : nlohmann::json(nullptr);
  };
  out["host"]["memory_GBps"] = gbps_or_null(s.host.platform->memory_bw_Bps);
  out["host"]["nccl_smp_GBps"] = gbps_or_null(s.host.platform->nccl_smp_bw_Bps);
  if (s.fabric) {
    out["fabric"] = {{"planes", s.fabric->planes},
                     {"plane_per_rail", s.fabric->plane_per_rail},
                     {"tiers", s.fabric->tiers},
                     {"switches_by_tier", s.fabric->switches_by_tier}};
  }
  out["nccl_env"] = nlohmann::json::object();
  for (const auto& [name, value] : nccl_env_entries(s.nccl_env)) out["nccl_env"][name] = value;
  for (const auto& [kind, count] : s.devices_by_kind) out["devices"][kind] = count;
  out["links"] = nlohmann::json::array();
  for (const LinkTypeCount& g : s.links) {
    out["links"].push_back(
        {{"type", g.type}, {"lanes", g.lanes}, {"bw_GBps", g.bw_Bps / 1e9}, {"count", g.count}});
  }
  out["gpus"] = nlohmann::json::array();
  for (const GpuPathSummary& g : s.gpus) {
    out["gpus"].push_back({{"name", g.name},
                           {"device", g.device},
                           {"model", g.model},
                           {"nvlink_lanes", g.nvlink_lanes},
                           {"nvlink_GBps", g.nvlink_bw_Bps / 1e9},
                           {"pcie_path", g.pcie_path},
                           {"pcie_GBps", g.pcie_bw_Bps / 1e9},
                           {"nearest_nic", g.nic}});
  }
  out["bisection_GBps"] =
      s.bisection_Bps ? nlohmann::json(*s.bisection_Bps / 1e9) : nlohmann::json(nullptr);
  return out.dump(2) + "\n";
}

}  // namespace linksim
