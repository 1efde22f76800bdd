// SPDX-License-Identifier: Apache-2.0
#include "collectives/link_efficiency.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/model_params.hpp"
#include "common/check.hpp"
#include "topology/server_tree.hpp"

namespace linksim::detail {
namespace {

// The GPU at either end of a link, if any, as `gpu_model_of` maps a GPU device to its catalog
// model: its architecture sets NVLink efficiency.
template <typename GpuModelOf>
const GpuModel* gpu_of(const Topology& t, const Link& link, GpuModelOf&& gpu_model_of) {
  for (DeviceId end : {link.from, link.to}) {
    if (t.device(end).kind == DeviceKind::kGpu) return gpu_model_of(end);
  }
  return nullptr;
}

// The nominal rate of one NVLink lane, from the catalogs: the GPU's own lane rate where its
// entry gives one (GA102 bridges: 14.0625 GB/s), else the link type's (`type`, null when the
// catalog has none), else the link's own rate per lane.
double nominal_nvlink_lane_Bps(const Link& link, const GpuModel* gpu, const LinkType* type) {
  if (gpu != nullptr && gpu->nvlink_lane_bw_Bps > 0) return gpu->nvlink_lane_bw_Bps;
  if (type != nullptr && type->lane_bw_Bps > 0) return type->lane_bw_Bps;
  return link.bw_Bps / std::max(1, int(link.lanes));
}

// `gpu` is the GPU at an end of an NVLink link (null for none or another family); `type` the
// link's catalog type; `calibration` the topology's fitted factors (docs/calibration.md).
double efficiency_of(const Link& link, const GpuModel* gpu, const LinkType* type,
                     const ModelCalibration& calibration) {
  // A calibration factor scales the family's fraction; no link carries more than its raw rate.
  const auto calibrated = [&](double efficiency, CalibrationParameter p) {
    return std::min(1.0, efficiency * calibration[p]);
  };
  switch (link.family) {
    case LinkFamily::kNvlink: {
      // Per GPU generation, against the catalogs' nominal lane rate: a faster link (a
      // what-if) keeps its generation's fraction (docs/model.md#link-efficiency).
      const int sm = gpu != nullptr ? gpu->sm : 90;
      return calibrated(nvlink_efficiency(sm, nominal_nvlink_lane_Bps(link, gpu, type)),
                        CalibrationParameter::kNvlinkEfficiency);
    }
    case LinkFamily::kPcie: return calibrated(kPcieEfficiency, CalibrationParameter::kPcieEfficiency);
    case LinkFamily::kNetwork:
      return calibrated(kNetworkEfficiency, CalibrationParameter::kNetworkEfficiency);
    case LinkFamily::kC2c:
    case LinkFamily::kSmp: return kC2cEfficiency;
  }
  return 1.0;
}

}  // namespace

double link_efficiency(const Topology& t, const Link& link, const ModelCalibration& calibration) {
  if (link.family != LinkFamily::kNvlink) return efficiency_of(link, nullptr, nullptr, calibration);
  return efficiency_of(link, gpu_of(t, link, [&](DeviceId gpu) { return &t.gpu_model(gpu); }),
                       t.catalog().find_link_type(t.link_type(link)), calibration);
}

LinkCapacities effective_link_capacities(const Topology& topology,
                                         const ModelCalibration& calibration) {
  // A cluster has hundreds of thousands of links and a few GPU models and link types: look each
  // name up in the catalog once (the lookups ignore case, which makes them slow).
  std::vector<std::pair<std::string_view, const GpuModel*>> model_of_name;
  auto gpu_model_of = [&](DeviceId gpu) {
    const std::string& model = topology.device(gpu).model;
    for (const auto& [name, entry] : model_of_name) {
      if (name == model) return entry;
    }
    model_of_name.emplace_back(model, &topology.gpu_model(gpu));
    return model_of_name.back().second;
  };
  std::vector<std::pair<InternedString, const LinkType*>> type_of_name;  // by pointer
  auto link_type_of = [&](const Link& link) {
    for (const auto& [name, entry] : type_of_name) {
      if (name == topology.link_type(link)) return entry;
    }
    type_of_name.emplace_back(topology.link_type(link), topology.catalog().find_link_type(topology.link_type(link).str()));
    return type_of_name.back().second;
  };
  const auto links = topology.links();
  const auto capacity_of = [&](size_t id) {
    const Link& link = links[id];
    const bool nvlink = link.family == LinkFamily::kNvlink;
    return link.bw_Bps * efficiency_of(link, nvlink ? gpu_of(topology, link, gpu_model_of) : nullptr,
                                       nvlink ? link_type_of(link) : nullptr, calibration);
  };
  // Servers are identical blocks, faults applied to each (linksim/topology.hpp, faults.hpp):
  // a server's link after host 0's has the capacity of host 0's link of the same local id, so
  // only host 0's block and the links after the blocks are computed and kept.
  uint64_t per_host = topology.links_per_host();
  uint64_t hosts = uint64_t(topology.host_count());
  if (per_host == 0 || per_host * hosts > links.size()) {
    per_host = 0;
    hosts = 0;
  }
  std::vector<double> host0(per_host);
  for (size_t id = 0; id < per_host; ++id) host0[id] = capacity_of(id);
  std::vector<double> rest(links.size() - per_host * hosts);
  for (size_t i = 0; i < rest.size(); ++i) rest[i] = capacity_of(per_host * hosts + i);
  return LinkCapacities(std::move(host0), hosts, std::move(rest));
}

std::vector<double> effective_capacities(const Topology& topology,
                                         const ModelCalibration& calibration) {
  return effective_link_capacities(topology, calibration).to_vector();
}

namespace {

// The GPUs of `cpu`'s server whose way up the PCIe tree ends at `cpu`: each may stage its
// copies through that CPU's memory at once (a ring's every hop is staged).
int gpus_below(const Topology& topology, DeviceId cpu) {
  int n = 0;
  const std::optional<int> host = topology.device(cpu).host;
  for (DeviceId gpu : topology.devices_of(host.value_or(0), DeviceKind::kGpu)) {
    if (detail::find_up_chain(topology, gpu).cpu() == cpu) ++n;
  }
  return std::max(1, n);
}

// The staged rate of a copy over `paths` (docs/model.md#shm), the CPU whose memory stages it
// being the last CPU the path reaches (paths.cc diverts through ncclGetLocalCpu of the
// destination): B_shm = min(B_copy, B_mem, B_socket, B_measured).
HostStagingRate staging_over(const Topology& topology, const std::vector<std::vector<LinkId>>& paths,
                             const ModelCalibration& calibration) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  HostStagingRate r;
  r.copy_Bps = kNone;
  bool found_cpu = false;
  for (const std::vector<LinkId>& path : paths) {
    for (LinkId id : path) {
      const Link& link = topology.link(id);
      // A GPU's SMs copy over its own links; a NIC moves its bytes by DMA, no copy to bound.
      const bool nic_link = topology.device(link.from).kind == DeviceKind::kNic ||
                            topology.device(link.to).kind == DeviceKind::kNic;
      if (link.family == LinkFamily::kPcie && !nic_link) {
        r.copy_Bps = std::min(r.copy_Bps, link.bw_Bps * kNcclPcieBwFraction * kShmCopyFraction);
      }
      if (link.family == LinkFamily::kSmp) r.crosses_socket = true;
      if (topology.device(link.to).kind == DeviceKind::kCpu) {
        r.cpu = link.to;
        found_cpu = true;
      }
    }
  }
  const HostPlatform& platform = found_cpu ? topology.host_platform(r.cpu)
                                           : topology.catalog().default_platform();
  r.staging_gpus = found_cpu ? gpus_below(topology, r.cpu) : 1;
  r.memory_Bps = platform.memory_bw_Bps / (2.0 * r.staging_gpus);
  r.socket_Bps = r.crosses_socket ? platform.nccl_smp_bw_Bps : kNone;
  const std::optional<double> own =
      found_cpu ? (r.crosses_socket ? topology.details(r.cpu).host_staging_cross_socket_Bps
                                    : topology.details(r.cpu).host_staging_Bps)
                : std::nullopt;
  r.overridden = own.has_value();
  const double measured = own.value_or(r.crosses_socket ? platform.host_staging_cross_socket_Bps
                                                        : platform.host_staging_Bps);
  r.measured_Bps = measured > 0 ? measured : kNone;
  const std::pair<double, const char*> terms[] = {{r.copy_Bps, "B_copy"},
                                                  {r.memory_Bps, "B_mem"},
                                                  {r.socket_Bps, "B_socket"},
                                                  {r.measured_Bps, "B_measured"}};
  double rate = kNone;
  for (const auto& [value, name] : terms) {
    if (value < rate) {
      rate = value;
      r.bound = name;
    }
  }
  if (rate == kNone) {
    // No PCIe link, memory figure nor measurement bounds it (a C2C-attached GPU on a platform
    // without memory_bw): the default platform's measured rate.
    const HostPlatform& fallback = topology.catalog().default_platform();
    r.measured_Bps = r.crosses_socket ? fallback.host_staging_cross_socket_Bps
                                      : fallback.host_staging_Bps;
    rate = r.measured_Bps;
    r.bound = "B_measured";
  }
  r.rate_Bps = rate * calibration[CalibrationParameter::kHostStagingRate];
  return r;
}

bool leg_through_cpu(const Topology& topology, const std::vector<LinkId>& links, size_t begin,
                     size_t end) {
  for (size_t i = begin; i < end; ++i) {
    if (block_twin(topology, topology.link(links[i]).to).kind == DeviceKind::kCpu) return true;
  }
  return false;
}

// A network route's NIC legs: its first path's links before the first network link (the
// sender's GPU to its NIC) and after the last (the receiver's NIC to its GPU). Every path of
// a network route shares them (PXN adds NVLink paths before them). false for another route.
bool network_leg_bounds(const Topology& topology, const Route& route, size_t* first, size_t* last) {
  if (route.transport != Transport::kNet || route.paths.empty()) return false;
  const std::vector<LinkId>& links = route.paths.front().links;
  *first = links.size();
  *last = 0;
  for (size_t i = 0; i < links.size(); ++i) {
    if (topology.link(links[i]).family != LinkFamily::kNetwork) continue;
    *first = std::min(*first, i);
    *last = i;
  }
  return *first < links.size();
}

// The leg's NIC: the device the send leg ends at, the one the receive leg starts from.
DeviceId leg_nic(const Topology& topology, const std::vector<LinkId>& links, size_t begin,
                 size_t end, bool send) {
  return send ? topology.link(links[end - 1]).to : topology.link(links[begin]).from;
}

bool leg_capped(const Topology& topology, const std::vector<LinkId>& links, size_t begin,
                size_t end, bool send, const GdrNics* gdr_nics) {
  if (begin >= end || !leg_through_cpu(topology, links, begin, end)) return false;
  if (gdr_nics == nullptr) return true;
  const DeviceId nic = leg_nic(topology, links, begin, end, send);
  return !(nic.value < gdr_nics->size() && (*gdr_nics)[nic.value]);
}

bool has_staged_network_leg(const Topology& topology, const Route& route, const GdrNics* gdr_nics) {
  size_t first = 0, last = 0;
  if (!network_leg_bounds(topology, route, &first, &last)) return false;
  const std::vector<LinkId>& links = route.paths.front().links;
  return leg_capped(topology, links, 0, first, true, gdr_nics) ||
         leg_capped(topology, links, last + 1, links.size(), false, gdr_nics);
}

}  // namespace

std::vector<StagedLeg> staged_network_legs(const Topology& topology, const Route& route,
                                           const GdrNics* gdr_nics) {
  std::vector<StagedLeg> legs;
  size_t first = 0, last = 0;
  if (!network_leg_bounds(topology, route, &first, &last)) return legs;
  const std::vector<LinkId>& links = route.paths.front().links;
  if (leg_capped(topology, links, 0, first, true, gdr_nics)) {
    legs.push_back({std::vector<LinkId>(links.begin(), links.begin() + static_cast<std::ptrdiff_t>(first)),
                    leg_nic(topology, links, 0, first, true)});
  }
  if (leg_capped(topology, links, last + 1, links.size(), false, gdr_nics)) {
    legs.push_back({std::vector<LinkId>(links.begin() + static_cast<std::ptrdiff_t>(last) + 1, links.end()),
                    leg_nic(topology, links, last + 1, links.size(), false)});
  }
  return legs;
}

HostStagingRate host_staging_rate(const Topology& topology, const Route& route,
                                  const ModelCalibration& calibration, const GdrNics* gdr_nics) {
  if (route.transport == Transport::kNet) {
    const std::vector<StagedLeg> legs = staged_network_legs(topology, route, gdr_nics);
    LINKSIM_CHECK(!legs.empty(), "a network route with a host-staged leg");
    // Each end stages its own copy (net.cc: the proxy's host buffer on each side): the
    // slower end bounds the route.
    std::optional<HostStagingRate> slowest;
    for (const StagedLeg& leg : legs) {
      HostStagingRate r = staging_over(topology, {leg.links}, calibration);
      if (!slowest || r.rate_Bps < slowest->rate_Bps) slowest = r;
    }
    return *slowest;
  }
  LINKSIM_CHECK(route.transport == Transport::kShm, "a host-staged route");
  std::vector<std::vector<LinkId>> paths;
  for (const Path& path : route.paths) paths.push_back(path.links);
  return staging_over(topology, paths, calibration);
}

double route_rate_cap(const Topology& topology, const Route& route,
                      const ModelCalibration& calibration, Bottleneck* why,
                      const GdrNics* gdr_nics) {
  const bool staged =
      route.transport == Transport::kShm || has_staged_network_leg(topology, route, gdr_nics);
  if (!staged) return std::numeric_limits<double>::infinity();
  const HostStagingRate staging = host_staging_rate(topology, route, calibration, gdr_nics);
  if (why) *why = host_staging_bottleneck(route, staging.crosses_socket);
  return staging.rate_Bps;
}

Bottleneck host_staging_bottleneck(const Route& route, bool crosses_socket) {
  Bottleneck b;
  b.kind = BottleneckKind::kHostStaging;
  b.from = route.src;
  b.to = route.dst;
  b.crosses_socket = crosses_socket;
  return b;
}

Bottleneck link_bottleneck(const Topology& topology, LinkId id, bool name_family) {
  Bottleneck b;
  b.kind = BottleneckKind::kLink;
  b.link = id;
  b.family = topology.link(id).family;
  b.name_family = name_family;
  return b;
}

namespace {

// Cleared per-link arrays of finished StreamSets on this thread: a set then costs the links it
// loads instead of clearing one slot per link of the machine (a layout search builds thousands
// of small sets on a cluster of hundreds of thousands of links). The arrays of a machine of
// more than kMaxSpareLinks links are freed instead, so the largest machines keep their peak
// memory.
constexpr size_t kMaxSpareLinks = size_t(1) << 20;
// StreamSet::add's first array: this many links (32 KiB), room for a server block's links.
constexpr size_t kFirstLoads = 4096;
thread_local std::vector<std::vector<double>> spare_loads;

}  // namespace

StreamSet::~StreamSet() {
  if (load_.empty() || links_ > kMaxSpareLinks) return;
  for (uint32_t id : touched_) load_[id] = 0.0;
  spare_loads.push_back(std::move(load_));
}

void StreamSet::grow_to(uint32_t id) {
  if (load_.empty() && !spare_loads.empty() && links_ <= kMaxSpareLinks) {
    load_ = std::move(spare_loads.back());
    spare_loads.pop_back();
    if (id < load_.size()) return;
  }
  // kFirstLoads links while the set loads only those (a server's own ring on a cluster
  // loads host 0's block alone), then every link: one large array, as before, so the
  // allocator's heap is not left with the holes of regrown ones.
  const bool every_link = id >= kFirstLoads;
  load_.resize(every_link ? links_ : std::min(links_, kFirstLoads), 0.0);
  // The touched list's room for every link too (4 bytes a link, its pages used only as
  // links are touched): no regrowth by doubling, whose freed arrays would leave the same
  // holes.
  if (every_link) touched_.reserve(links_);
}

void StreamSet::add(const Route& route, double weight, double rate_cap_Bps,
                    const Bottleneck& cap_why, uint32_t link_offset) {
  for (const Path& path : route.paths) {
    for (LinkId local : path.links) load(local.value + link_offset, weight * path.share);
  }
  note_cap(weight, rate_cap_Bps, cap_why);
}

void StreamSet::note_cap(double weight, double rate_cap_Bps, const Bottleneck& cap_why) {
  if (rate_cap_Bps < std::numeric_limits<double>::infinity() && weight > 0) {
    double limit = rate_cap_Bps / weight;
    if (!has_cap_ || limit < cap_limit_) {
      cap_limit_ = limit;
      cap_why_ = cap_why;
      has_cap_ = true;
    }
  }
}

std::vector<std::pair<LinkId, double>> StreamSet::loads() const {
  std::vector<std::pair<LinkId, double>> out;
  out.reserve(touched_.size());
  for (uint32_t id : touched_) out.emplace_back(LinkId{id}, load_[id]);
  return out;
}

StreamSet::Limit StreamSet::limit() const {
  Limit best;
  best.throughput_Bps = std::numeric_limits<double>::infinity();
  // No stream (a single rank): nothing limits, and best.why stays kNone.
  best.by_link = false;
  for (uint32_t id : touched_) {
    double t = capacity_Bps(id) / load_[id];
    if (t < best.throughput_Bps) {
      best.throughput_Bps = t;
      best.link = LinkId{id};
      best.by_link = true;
    }
  }
  if (has_cap_ && cap_limit_ < best.throughput_Bps) {
    best.throughput_Bps = cap_limit_;
    best.by_link = false;
    best.why = cap_why_;
  }
  return best;
}

}  // namespace linksim::detail
