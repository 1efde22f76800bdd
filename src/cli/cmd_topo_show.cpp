// SPDX-License-Identifier: Apache-2.0
// `linksim topo show FILE [--set k=v]... [--json]`: devices by kind, links by type, per-GPU
// NVLink lanes, PCIe path and nearest NIC, and the GPU set's bisection bandwidth
// (docs/routing.md#bisection).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/cli_common.hpp"
#include "cli/command_table.hpp"
#include "linksim/fabric_summary.hpp"
#include "linksim/routing.hpp"
#include "linksim/units.hpp"
#include "topology/link_graph.hpp"

namespace linksim::cli {
namespace {

/// Above this many directed links the max-flow bisection is skipped (it grows superlinearly).
constexpr size_t kMaxLinksForBisection = 200000;

struct ShowArgs {
  TopoArgs topo;
  bool json = false;
};

struct GpuSummary {
  std::string name;        ///< "GPU0"
  std::string device;      ///< "gpu0" / "host1:gpu0"
  std::string model;
  int nvlink_lanes = 0;
  double nvlink_bw_Bps = 0;
  std::string pcie_path;   ///< "gpu0 > psw0 > cpu0"
  double pcie_bw_Bps = 0;  ///< bottleneck of the path
  std::string nic;         ///< "NIC0 (mlx5_0, PIX)" or "none"
};

GpuSummary summarize_gpu(const Router& router, DeviceId gpu) {
  const Topology& t = router.topology();
  GpuSummary s;
  s.name = fmt::format("GPU{}", t.device(gpu).index);
  s.device = t.display_name(gpu);
  s.model = t.device(gpu).model;
  for (LinkId id : t.out_links(gpu)) {
    if (t.link(id).family != LinkFamily::kNvlink) continue;
    s.nvlink_lanes += t.link(id).lanes;
    s.nvlink_bw_Bps += t.link(id).bw_Bps;
  }
  s.pcie_path = t.display_name(gpu);
  for (LinkId id : router.cpu_path(gpu)) {
    s.pcie_path += " > " + t.display_name(t.link(id).to);
    const double bw_Bps = t.link(id).bw_Bps;
    s.pcie_bw_Bps = s.pcie_bw_Bps == 0 ? bw_Bps : std::min(s.pcie_bw_Bps, bw_Bps);
  }
  s.nic = "none";
  if (auto nic = router.nearest_nic(gpu)) {
    const Device& d = t.device(*nic);
    s.nic = fmt::format("NIC{} ({}, {})", d.index, d.port_name.empty() ? d.name : d.port_name,
                        to_string(router.classify(gpu, *nic)));
  }
  return s;
}

/// Max-flow from the first half of the GPUs (rank order) to the second half; nullopt when
/// there are fewer than 2 GPUs or the topology is too large.
std::optional<double> bisection_Bps(const Topology& t) {
  const auto& gpus = t.gpus();
  if (gpus.size() < 2 || t.links().size() > kMaxLinksForBisection) return std::nullopt;
  const auto middle = gpus.begin() + long(gpus.size() / 2);
  return detail::max_flow_Bps(t, {gpus.begin(), middle}, {middle, gpus.end()});
}

struct LinkGroup {
  int count = 0;
  int lanes = 0;
};

/// The host platform of server 0's first CPU and what it means for NCCL
/// (docs/catalog.md#platforms): its default P2P level and host-staged (SHM) rates.
struct HostSummary {
  const HostPlatform* platform = nullptr;
  PathClass p2p_level = PathClass::kPxb;
  double staging_Bps = 0;               ///< within a socket: the CPU's own rate, else the platform's
  double staging_cross_socket_Bps = 0;  ///< across the sockets, likewise
};

HostSummary summarize_host(const Router& router) {
  const Topology& t = router.topology();
  HostSummary h;
  const auto cpus = t.devices_of(0, DeviceKind::kCpu);
  h.platform = cpus.empty() ? &t.catalog().default_platform() : &t.host_platform(cpus.front());
  h.p2p_level = router.p2p_level();
  h.staging_Bps = h.platform->host_staging_Bps;
  h.staging_cross_socket_Bps = h.platform->host_staging_cross_socket_Bps;
  if (!cpus.empty()) {
    const Device& cpu = t.device(cpus.front());
    h.staging_Bps = cpu.host_staging_Bps.value_or(h.staging_Bps);
    h.staging_cross_socket_Bps =
        cpu.host_staging_cross_socket_Bps.value_or(h.staging_cross_socket_Bps);
  }
  return h;
}

void print_text(const Topology& t, const std::vector<GpuSummary>& gpus,
                std::optional<double> bisection, const HostSummary& host) {
  fmt::print("{}  ({})\n", t.name(), t.source_file());
  fmt::print("servers: {}\n", t.host_count());
  fmt::print("host: {} = {}; NCCL's default P2P level {}; host-staged copies {} within a "
             "socket, {} across\n",
             host.platform->key, host.platform->name, p2p_level_name(host.p2p_level),
             format_bandwidth(host.staging_Bps), format_bandwidth(host.staging_cross_socket_Bps));
  if (t.host_count() > 1) fmt::print("fabric: {}\n", describe_fabric(summarize_fabric(t)));
  fmt::print("\ndevices:\n");
  std::map<std::string, int> kinds;
  for (const Device& d : t.devices()) ++kinds[std::string(to_string(d.kind))];
  for (const auto& [kind, count] : kinds) fmt::print("  {:<12} {:>7}\n", kind, count);
  fmt::print("\nlinks (full duplex; bandwidth per direction):\n");
  std::map<std::pair<std::string, double>, LinkGroup> groups;
  for (size_t i = 0; i < t.links().size(); i += 2) {
    const Link& link = t.links()[i];
    LinkGroup& g = groups[{link.type, link.bw_Bps}];
    ++g.count;
    g.lanes = link.lanes;
  }
  for (const auto& [key, g] : groups) {
    fmt::print("  {:<10} x{:<3} {:>12}  {:>7} links\n", key.first, g.lanes,
               format_bandwidth(key.second), g.count);
  }
  fmt::print("\ngpus{}:\n", t.host_count() > 1 ? " (server 0; every server is alike)" : "");
  for (const GpuSummary& g : gpus) {
    fmt::print("  {} {} ({}): NVLink {} lanes, {}; PCIe {} ({}); nearest NIC: {}\n", g.name,
               g.device, g.model, g.nvlink_lanes, format_bandwidth(g.nvlink_bw_Bps), g.pcie_path,
               format_bandwidth(g.pcie_bw_Bps), g.nic);
  }
  fmt::print("\nbisection bandwidth (max-flow, first half of the GPUs to the second, per "
             "direction): {}\n",
             bisection ? format_bandwidth(*bisection) : std::string("not computed"));
}

void print_json(const Topology& t, const std::vector<GpuSummary>& gpus,
                std::optional<double> bisection, const HostSummary& host) {
  nlohmann::json out;
  out["name"] = t.name();
  out["servers"] = t.host_count();
  out["host"] = {{"platform", host.platform->key},
                 {"vendor", std::string(to_string(host.platform->vendor))},
                 {"p2p_level", std::string(p2p_level_name(host.p2p_level))},
                 {"host_staging_GBps", host.staging_Bps / 1e9},
                 {"host_staging_cross_socket_GBps", host.staging_cross_socket_Bps / 1e9}};
  if (t.host_count() > 1) {
    const FabricSummary fabric = summarize_fabric(t);
    out["fabric"] = {{"planes", fabric.planes},
                     {"plane_per_rail", fabric.plane_per_rail},
                     {"tiers", fabric.tiers},
                     {"switches_by_tier", fabric.switches_by_tier}};
  }
  for (const Device& d : t.devices()) {
    auto& slot = out["devices"][std::string(to_string(d.kind))];
    slot = slot.is_null() ? 1 : slot.get<int>() + 1;
  }
  out["links"] = nlohmann::json::array();
  std::map<std::pair<std::string, double>, LinkGroup> groups;
  for (size_t i = 0; i < t.links().size(); i += 2) {
    LinkGroup& g = groups[{t.links()[i].type, t.links()[i].bw_Bps}];
    ++g.count;
    g.lanes = t.links()[i].lanes;
  }
  for (const auto& [key, g] : groups) {
    out["links"].push_back({{"type", key.first},
                            {"lanes", g.lanes},
                            {"bw_GBps", key.second / 1e9},
                            {"count", g.count}});
  }
  out["gpus"] = nlohmann::json::array();
  for (const GpuSummary& g : gpus) {
    out["gpus"].push_back({{"name", g.name},
                           {"device", g.device},
                           {"model", g.model},
                           {"nvlink_lanes", g.nvlink_lanes},
                           {"nvlink_GBps", g.nvlink_bw_Bps / 1e9},
                           {"pcie_path", g.pcie_path},
                           {"pcie_GBps", g.pcie_bw_Bps / 1e9},
                           {"nearest_nic", g.nic}});
  }
  out["bisection_GBps"] = bisection ? nlohmann::json(*bisection / 1e9) : nlohmann::json(nullptr);
  fmt::print("{}\n", out.dump(2));
}

void run_show(const ShowArgs& args) {
  const Topology topology = load_topology_arg(args.topo);
  const Router router(topology);
  std::vector<GpuSummary> gpus;
  for (DeviceId gpu : topology.devices_of(0, DeviceKind::kGpu)) {
    gpus.push_back(summarize_gpu(router, gpu));
  }
  const auto bisection = bisection_Bps(topology);
  const HostSummary host = summarize_host(router);
  if (args.json) {
    print_json(topology, gpus, bisection, host);
  } else {
    print_text(topology, gpus, bisection, host);
  }
}

const CommandRegistrar kShow{"topo", "show", [](CLI::App& topo) {
  auto args = std::make_shared<ShowArgs>();
  CLI::App* cmd = topo.add_subcommand(
      "show", "Summarize a machine: devices, links, GPU paths, bisection bandwidth");
  add_topology_options(*cmd, args->topo);
  cmd->add_flag("--json", args->json, "machine-readable output");
  cmd->callback([args] { run_show(*args); });
}};

}  // namespace
}  // namespace linksim::cli
