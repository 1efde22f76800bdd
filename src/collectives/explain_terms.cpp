// SPDX-License-Identifier: Apache-2.0
#include "collectives/explain_terms.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "collectives/link_efficiency.hpp"
#include "collectives/model_params.hpp"

namespace linksim::detail {
namespace {

std::string efficiency_source(const Link& link, int sm) {
  switch (link.family) {
    case LinkFamily::kNvlink:
      if (measured_nvlink_efficiency(sm) > 0) {
        return fmt::format("measured NVLink efficiency of SM{}: the lowest large-message busbw of "
                           "its published tables over raw NVLink (docs/model.md#link-efficiency)",
                           sm);
      }
      return "NCCL topo.h per-NVLink rate over the raw lane rate, by GPU architecture";
    case LinkFamily::kPcie:
      return "PCIe DMA measured at ~0.8 of the raw rate (reference links.yaml)";
    case LinkFamily::kNetwork:
      return "NDR/HDR measured at 0.96 of the line rate (calibration 66, 71)";
    case LinkFamily::kC2c:
    case LinkFamily::kSmp:
      return "NCCL's NVLink-like factor for C2C and SMP links";
  }
  return "";
}

std::string catalog_source(const Topology& t, const Link& link) {
  const std::string name =
      fmt::format("{}->{}", t.display_name(link.from), t.display_name(link.to));
  const LinkType* type = t.catalog().find_link_type(t.link_type(link));
  if (type == nullptr) return fmt::format("{}: link type '{}'", name, t.link_type(link));
  if (type->lanes_key.empty()) {
    return fmt::format("{}: catalog '{}' ({}), per direction", name, type->key, type->description);
  }
  return fmt::format("{}: catalog '{}' ({}), {} {} x {:g} GB/s per direction", name, type->key,
                     type->description, type->lanes_key, link.lanes,
                     link.bw_Bps / std::max(1, int(link.lanes)) / 1e9);
}

int rank_of(const CommGraph& g, DeviceId gpu) {
  for (size_t r = 0; r < g.ranks().size(); ++r) {
    if (g.ranks()[r] == gpu) return static_cast<int>(r);
  }
  return -1;
}

// A host-staged route's rate, term by term (host_staging_rate, docs/model.md#shm): the copy
// over the GPU's PCIe link, the staging CPU's memory, the socket link and a measurement, the
// smallest of which bounds it.
void add_staging_rate_terms(const CommGraph& g, const Bottleneck& b,
                            std::vector<ExplainTerm>& terms) {
  const int from = rank_of(g, b.from), to = rank_of(g, b.to);
  if (from < 0 || to < 0) return;
  const Topology& t = g.topology();
  const HostStagingRate staging = host_staging_rate(t, g.route(from, to), g.options().calibration, &g.gdr_nics());
  const HostPlatform& platform = t.host_platform(staging.cpu);
  const std::string cpu = t.display_name(staging.cpu);
  const std::string where = staging.crosses_socket ? "across the sockets" : "within a socket";
  if (std::isfinite(staging.copy_Bps)) {
    terms.push_back(rate_term("B_copy", staging.copy_Bps,
                              fmt::format("{} x NCCL's PCIe bandwidth of the path's slowest PCIe "
                                          "link (width x speed / 80, topo.h PCI_BW): the GPU "
                                          "stores into host memory, the peer loads it (shm.cc)",
                                          kShmCopyFraction)));
  }
  if (std::isfinite(staging.memory_Bps)) {
    terms.push_back(rate_term(
        "B_mem", staging.memory_Bps,
        fmt::format("memory_bw of platform '{}' ({:g} GB/s) of {} / (2 x {} GPUs staging below "
                    "it): each byte written and read once",
                    platform.key, platform.memory_bw_Bps / 1e9, cpu, staging.staging_gpus)));
  }
  if (std::isfinite(staging.socket_Bps)) {
    terms.push_back(rate_term("B_socket", staging.socket_Bps,
                              fmt::format("NCCL's inter-CPU bandwidth of platform '{}' "
                                          "(ncclTopoGetInterCpuBw, topo.h)",
                                          platform.key)));
  }
  if (std::isfinite(staging.measured_Bps)) {
    const std::string source =
        staging.overridden
            ? fmt::format("{}'s own host_staging{}_bw (the topology), {}", cpu,
                          staging.crosses_socket ? "_cross_socket" : "", where)
            : fmt::format("measured host_staging{}_bw of platform '{}' (data/catalog/platforms.yaml), {}",
                          staging.crosses_socket ? "_cross_socket" : "", platform.key, where);
    terms.push_back(rate_term("B_measured", staging.measured_Bps, source));
  }
  terms.push_back(rate_term("B_shm", staging.rate_Bps,
                            fmt::format("min of the terms above: {} bounds it", staging.bound)));
}

}  // namespace

std::optional<double> load_of(const std::vector<std::pair<LinkId, double>>& loads, LinkId link) {
  for (const auto& [id, load] : loads) {
    if (id == link) return load;
  }
  return std::nullopt;
}

ExplainTerm us_term(std::string symbol, double us, std::string source) {
  return {std::move(symbol), us * 1e-6, "s", std::move(source)};
}

ExplainTerm count_term(std::string symbol, double value, std::string source) {
  return {std::move(symbol), value, "", std::move(source)};
}

ExplainTerm rate_term(std::string symbol, double Bps, std::string source) {
  return {std::move(symbol), Bps, "B/s", std::move(source)};
}

void add_bottleneck_terms(const CommGraph& g, const Bottleneck& b, std::vector<ExplainTerm>& terms,
                          std::optional<double> load) {
  const Topology& t = g.topology();
  switch (b.kind) {
    case BottleneckKind::kLink: {
      const Link& link = t.link(b.link);
      terms.push_back(rate_term("C_raw", link.bw_Bps, catalog_source(t, link)));
      terms.push_back(count_term("eff_link", link_efficiency(t, link, g.options().calibration), efficiency_source(link, g.min_sm())));
      terms.push_back(rate_term("C_eff", g.capacities()[b.link.value], "C_raw x eff_link"));
      if (load) {
        terms.push_back(count_term("load", *load,
                                   "bytes this link carries per byte each rank sends; "
                                   "rate x load <= C_eff"));
      }
      break;
    }
    case BottleneckKind::kHostStaging:
      add_staging_rate_terms(g, b, terms);
      break;
    case BottleneckKind::kNvls:
      terms.push_back(rate_term("B_nvlink", b.rate_Bps,
                                "raw NVLink of each GPU into the reduction-capable NVSwitches"));
      break;
    case BottleneckKind::kServerNics:
      if (b.rate_Bps > 0) {
        terms.push_back(
            rate_term("B_nics", b.rate_Bps,
                      "the distinct NICs of a server, each x 0.96 (network efficiency)"));
      }
      break;
    case BottleneckKind::kRingChannels:
      terms.push_back(count_term("comm_channels", b.channels,
                                 "the channels NCCL's communicator opens: its ring graph's, "
                                 "which the servers' NICs bound, doubled (ncclTopoPostset)"));
      terms.push_back(rate_term("B_channel", g.nvlink_channel_Bps(),
                                "one channel over NVLink: a lane at its realized rate "
                                "(docs/model.md#p2p)"));
      terms.push_back(rate_term("C_channels", b.rate_Bps,
                                "comm_channels x B_channel (docs/model.md#ring-channels)"));
      break;
    case BottleneckKind::kP2pChannels:
    case BottleneckKind::kNone:
      break;
  }
}

}  // namespace linksim::detail
