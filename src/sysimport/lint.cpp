// SPDX-License-Identifier: Apache-2.0
// `topo lint`: what a buyer should ask the vendor, in NCCL's vocabulary. Each rule and its
// NCCL source: docs/verify-and-lint.md#lint-rules.
#include "sysimport/lint.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "common/text.hpp"
#include "sysimport/import_defaults.hpp"
#include "topology/server_tree.hpp"

namespace linksim {

namespace {

using namespace sysimport;

// The server being linted, with the facts several rules share.
struct Server {
  const Router& router;
  const Topology& topology;
  std::vector<DeviceId> gpus;
  std::vector<DeviceId> nics;
  std::vector<int> nvlink_lanes;     // per GPU (parallel to gpus)
  std::vector<int> nvlink_component; // per GPU: GPUs joined by NVLink (directly or via switches)
  detail::ServerTree tree;

  std::string name(DeviceId id) const { return topology.display_name(id); }
};

Server make_server(const Router& router, int host) {
  const Topology& t = router.topology();
  Server s{router, t, t.devices_of(host, DeviceKind::kGpu), t.devices_of(host, DeviceKind::kNic),
           {}, {}, detail::build_server_tree(t, host)};
  for (DeviceId gpu : s.gpus) {
    int lanes = 0;
    for (LinkId id : t.out_links(gpu)) {
      if (t.link(id).family == LinkFamily::kNvlink) lanes += t.link(id).lanes;
    }
    s.nvlink_lanes.push_back(lanes);
    s.nvlink_component.push_back(s.tree.nvlink_component[gpu.value]);
  }
  return s;
}

std::string names(const Server& s, const std::vector<DeviceId>& ids) {
  std::vector<std::string> out;
  for (DeviceId id : ids) out.push_back(s.name(id));
  return text::join(out, ", ");
}

std::vector<std::string> name_list(const Server& s, const std::vector<DeviceId>& ids) {
  std::vector<std::string> out;
  for (DeviceId id : ids) out.push_back(s.name(id));
  return out;
}

std::string gbps(double bw_Bps) { return fmt::format("{:.4g} GB/s", bw_Bps / 1e9); }

std::string_view class_text(PathClass cls) {
  switch (cls) {
    case PathClass::kPhb: return "PHB, behind the host bridge";
    case PathClass::kNode: return "NODE, across host bridges";
    case PathClass::kSys: return "SYS, across the socket link";
    default: return "";
  }
}

bool has_c2c(const Topology& t, DeviceId gpu) {
  for (LinkId id : t.out_links(gpu)) {
    if (t.link(id).family == LinkFamily::kC2c) return true;
  }
  return false;
}

void check_gdr(const Server& s, std::vector<LintWarning>& out) {
  if (s.nics.empty()) return;
  for (DeviceId gpu : s.gpus) {
    PathClass best = PathClass::kNet;
    DeviceId best_nic = s.nics.front();
    for (DeviceId nic : s.nics) {
      const PathClass cls = s.router.classify(gpu, nic);
      if (cls < best) {
        best = cls;
        best_nic = nic;
      }
    }
    if (best <= kNcclDefaultGdrLevel) continue;
    // A GPU on NVLink-C2C reaches a NIC of its own CPU as NCCL's PATH_P2C, which keeps
    // GPUDirect RDMA (reference/nccl-model.md 1.1).
    if (best <= PathClass::kNode && has_c2c(s.topology, gpu)) continue;
    out.push_back({std::string(kRuleGdrLost), {s.name(gpu), s.name(best_nic)},
                   fmt::format("{}: nearest NIC {} is {}: GPUDirect RDMA is off at NCCL's "
                               "default NCCL_NET_GDR_LEVEL (PXB), network traffic is staged "
                               "through host memory",
                               s.name(gpu), s.name(best_nic), class_text(best))});
  }
}

// The GPUs and NICs below a switch (PCIe links down the server tree), each with the
// bandwidth of its own link up.
void collect_below(const Server& s, DeviceId sw, std::vector<std::pair<DeviceId, double>>& out) {
  for (DeviceId child : s.tree.children[sw.value]) {
    const DeviceKind kind = s.topology.device(child).kind;
    if (kind == DeviceKind::kPcieSwitch) collect_below(s, child, out);
    if (kind == DeviceKind::kGpu || kind == DeviceKind::kNic) {
      out.push_back({child, s.topology.link(*s.tree.down_link[child.value]).bw_Bps});
    }
  }
}

void check_switch(const Server& s, DeviceId sw, std::vector<LintWarning>& out) {
  const Topology& t = s.topology;
  const detail::UpChain& up = s.tree.chains[sw.value];
  if (up.links.empty() || t.link(up.links.front()).family != LinkFamily::kPcie) return;
  const Link uplink = t.link(up.links.front());
  std::vector<std::pair<DeviceId, double>> below;
  collect_below(s, sw, below);
  const bool serves_local_gpu = std::any_of(below.begin(), below.end(), [&](const auto& e) {
    return t.device(e.first).kind == DeviceKind::kGpu;
  });
  // Traffic that must cross the uplink: GPUs without NVLink (their peer traffic runs on
  // PCIe) and NICs with no GPU of their own below the switch.
  std::vector<DeviceId> crossing;
  double demand_Bps = 0;
  for (const auto& [id, bw] : below) {
    const auto it = std::find(s.gpus.begin(), s.gpus.end(), id);
    const bool counts = it != s.gpus.end()
                            ? s.nvlink_lanes[size_t(it - s.gpus.begin())] == 0
                            : !serves_local_gpu;
    if (!counts) continue;
    crossing.push_back(id);
    demand_Bps += bw;
  }
  if (crossing.size() < 2 || demand_Bps <= uplink.bw_Bps * 1.0001) return;
  std::vector<std::string> devices{s.name(sw)};
  for (const std::string& n : name_list(s, crossing)) devices.push_back(n);
  out.push_back({std::string(kRulePcieOversubscribed), devices,
                 fmt::format("{}: {} share one {} x{} uplink: {} of device links behind {} "
                             "({:.1f}:1); traffic leaving the switch (other switches, the other "
                             "socket, host-staged copies) is throttled",
                             s.name(sw), names(s, crossing), t.link_type(uplink), uplink.lanes,
                             gbps(demand_Bps), gbps(uplink.bw_Bps),
                             demand_Bps / uplink.bw_Bps)});
}

void check_pcie_oversubscription(const Server& s, int host, std::vector<LintWarning>& out) {
  for (DeviceId sw : s.topology.devices_of(host, DeviceKind::kPcieSwitch)) check_switch(s, sw, out);
}

void check_nvlink_lanes(const Server& s, std::vector<LintWarning>& out) {
  // Grouped by (model, lanes) so eight identical GPUs make one warning.
  std::map<std::pair<std::string, int>, std::vector<DeviceId>> short_of;
  for (size_t i = 0; i < s.gpus.size(); ++i) {
    const GpuModel& model = s.topology.gpu_model(s.gpus[i]);
    if (s.nvlink_lanes[i] < model.nvlink_lanes) {
      short_of[{model.key, s.nvlink_lanes[i]}].push_back(s.gpus[i]);
    }
  }
  for (const auto& [key, gpus] : short_of) {
    const GpuModel& model = s.topology.gpu_model(gpus.front());
    const std::string message =
        key.second == 0
            ? fmt::format("{} ({}): none of the {} NVLinks on its datasheet is wired (no "
                          "bridge or board links): GPU-to-GPU traffic falls back to PCIe",
                          names(s, gpus), key.first, model.nvlink_lanes)
            : fmt::format("{} ({}): {} of the {} NVLinks on its datasheet are wired: "
                          "NVLink bandwidth is {:.0f}% of the design",
                          names(s, gpus), key.first, key.second, model.nvlink_lanes,
                          100.0 * key.second / model.nvlink_lanes);
    out.push_back({std::string(kRuleNvlinkLanes), name_list(s, gpus), message});
  }
}

// "an intel-sapphire-rapids" / "a generic": the server's host platform, for messages.
std::string platform_text(const Server& s) {
  for (DeviceId id : s.topology.devices_of(0, DeviceKind::kCpu)) {
    const std::string& key = s.topology.host_platform(id).key;
    return fmt::format("{} {}", key.find_first_of("aeiou") == 0 ? "an" : "a", key);
  }
  return fmt::format("a {}", s.topology.catalog().default_platform().key);
}

void check_p2p(const Server& s, std::vector<LintWarning>& out) {
  std::vector<DeviceId> disabled;
  for (DeviceId gpu : s.gpus) {
    if (!s.topology.device(gpu).p2p) disabled.push_back(gpu);
  }
  if (s.gpus.size() >= 2 && !disabled.empty()) {
    out.push_back({std::string(kRuleP2pDisabled), name_list(s, disabled),
                   fmt::format("{}: the driver disables PCIe peer-to-peer (consumer card): "
                               "NCCL moves GPU-to-GPU data through host memory (SHM), both "
                               "legs on PCIe",
                               names(s, disabled))});
  }
  std::vector<std::string> pairs;
  std::vector<std::string> devices;
  for (size_t a = 0; a < s.gpus.size(); ++a) {
    for (size_t b = a + 1; b < s.gpus.size(); ++b) {
      if (s.nvlink_component[a] == s.nvlink_component[b]) continue;  // NVLink (or NVB)
      if (!s.topology.device(s.gpus[a]).p2p || !s.topology.device(s.gpus[b]).p2p) continue;
      const PathClass cls = s.router.classify(s.gpus[a], s.gpus[b]);
      if (within_p2p_level(cls, s.router.p2p_level())) continue;
      pairs.push_back(fmt::format("{}-{} ({})", s.name(s.gpus[a]), s.name(s.gpus[b]),
                                  to_string(cls)));
      for (DeviceId id : {s.gpus[a], s.gpus[b]}) {
        if (std::find(devices.begin(), devices.end(), s.name(id)) == devices.end()) {
          devices.push_back(s.name(id));
        }
      }
    }
  }
  if (pairs.empty()) return;
  out.push_back({std::string(kRuleP2pLevel), devices,
                 fmt::format("GPU pairs beyond NCCL's default P2P level ({}, {} host): {}: "
                             "NCCL refuses P2P between them and copies through host memory (SHM)",
                             p2p_level_name(s.router.p2p_level()), platform_text(s),
                             text::join(pairs, ", "))});
}

double link_type_bw(const Catalog& catalog, const std::string& key) {
  const LinkType* type = catalog.find_link_type(key);
  return type ? type->lane_bw_Bps * std::max(1, type->lanes_key.empty() ? 1 : type->default_lanes)
              : 0;
}

void check_nic_rail(const Server& s, std::vector<LintWarning>& out) {
  if (s.nics.empty() || s.gpus.empty()) return;
  const size_t needed = (s.gpus.size() + kMaxGpusPerNic - 1) / kMaxGpusPerNic;
  if (s.nics.size() < needed) {
    out.push_back({std::string(kRuleNicRail), name_list(s, s.nics),
                   fmt::format("{} NIC(s) for {} GPUs: below the rail design (at least one NIC "
                               "per {} GPUs): GPUs share NICs for traffic between servers",
                               s.nics.size(), s.gpus.size(), kMaxGpusPerNic)});
  }
  const Catalog& catalog = s.topology.catalog();
  const int gen = s.topology.gpu_model(s.gpus.front()).pcie_gen;
  const std::string rail_type = nic_type_for_pcie_gen(gen);
  const double rail_bw = link_type_bw(catalog, rail_type);
  double total_bw = 0;
  for (DeviceId nic : s.nics) total_bw += link_type_bw(catalog, s.topology.device(nic).model);
  const double per_gpu = total_bw / double(s.gpus.size());
  if (total_bw <= 0 || rail_bw <= 0 || per_gpu >= rail_bw * 0.999) return;
  out.push_back({std::string(kRuleNicRail), name_list(s, s.nics),
                 fmt::format("network bandwidth per GPU is {} ({} NIC(s), {} in all, for {} "
                             "GPUs), below the rail rate for PCIe Gen{} GPUs ({}, {}): "
                             "inter-server traffic is capped below what each GPU could feed",
                             gbps(per_gpu), s.nics.size(), gbps(total_bw), s.gpus.size(), gen,
                             rail_type, gbps(rail_bw))});
}

void check_ring_socket(const Server& s, std::vector<LintWarning>& out) {
  std::vector<int> components = s.nvlink_component;
  std::sort(components.begin(), components.end());
  if (std::unique(components.begin(), components.end()) - components.begin() <= 1) return;
  for (size_t a = 0; a < s.gpus.size(); ++a) {
    for (size_t b = a + 1; b < s.gpus.size(); ++b) {
      if (s.nvlink_component[a] == s.nvlink_component[b]) continue;
      if (s.router.classify(s.gpus[a], s.gpus[b]) != PathClass::kSys) continue;
      out.push_back({std::string(kRuleRingCrossesSocket), name_list(s, s.gpus),
                     fmt::format("a ring over {} must cross the socket link (e.g. {}-{} is SYS) "
                                 "with no NVLink around it: ring bandwidth is capped by the "
                                 "inter-socket path",
                                 names(s, s.gpus), s.name(s.gpus[a]), s.name(s.gpus[b]))});
      return;
    }
  }
}

void check_nvlink_symmetry(const Server& s, std::vector<LintWarning>& out) {
  std::vector<std::string> counts;
  std::vector<DeviceId> wired;
  int lo = 1 << 30;
  int hi = 0;
  for (size_t i = 0; i < s.gpus.size(); ++i) {
    if (s.nvlink_lanes[i] == 0) continue;
    wired.push_back(s.gpus[i]);
    counts.push_back(fmt::format("{} {}", s.name(s.gpus[i]), s.nvlink_lanes[i]));
    lo = std::min(lo, s.nvlink_lanes[i]);
    hi = std::max(hi, s.nvlink_lanes[i]);
  }
  if (wired.empty() || lo == hi) return;
  out.push_back({std::string(kRuleNvlinkAsymmetric), name_list(s, wired),
                 fmt::format("asymmetric NVLink wiring ({}): collectives run at the pace of the "
                             "GPU with the fewest links ({})",
                             text::join(counts, ", "), lo)});
}

}  // namespace

std::vector<LintWarning> lint_topology(const Router& router, int host) {
  const Topology& t = router.topology();
  if (host < 0 || host >= t.host_count()) {
    throw ConfigError(fmt::format("expected a host between 0 and {}, got {}", t.host_count() - 1,
                                  host));
  }
  const Server s = make_server(router, host);
  std::vector<LintWarning> out;
  check_gdr(s, out);
  check_pcie_oversubscription(s, host, out);
  check_nvlink_lanes(s, out);
  check_p2p(s, out);
  check_nic_rail(s, out);
  check_ring_socket(s, out);
  check_nvlink_symmetry(s, out);
  return out;
}

}  // namespace linksim
