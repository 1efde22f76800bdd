// SPDX-License-Identifier: Apache-2.0
#include "collectives/link_efficiency.hpp"

#include <limits>

#include "collectives/model_params.hpp"

namespace linksim::detail {
namespace {

// The GPU at either end of a link, if any: its architecture sets NVLink efficiency.
int gpu_sm_of(const Topology& t, const Link& link) {
  for (DeviceId end : {link.from, link.to}) {
    if (t.device(end).kind == DeviceKind::kGpu) return t.gpu_model(end).sm;
  }
  return 0;
}

}  // namespace

double link_efficiency(const Topology& t, const Link& link) {
  const ModelCalibration& calibration = t.calibration();
  // A calibration factor scales the family's fraction; no link carries more than its raw rate.
  const auto calibrated = [&](double efficiency, CalibrationParameter p) {
    return std::min(1.0, efficiency * calibration[p]);
  };
  switch (link.family) {
    case LinkFamily::kNvlink: {
      int sm = gpu_sm_of(t, link);
      return calibrated(nvlink_efficiency(sm == 0 ? 90 : sm, link.bw_Bps / std::max(1, link.lanes)),
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

std::vector<double> effective_capacities(const Topology& topology) {
  std::vector<double> capacity;
  capacity.reserve(topology.links().size());
  for (const Link& link : topology.links()) {
    capacity.push_back(link.bw_Bps * link_efficiency(topology, link));
  }
  return capacity;
}

double route_rate_cap(const Topology& topology, const Route& route, Bottleneck* why) {
  if (route.transport != Transport::kShm) return std::numeric_limits<double>::infinity();
  // Host staging: the sender's SMs store into pinned host memory and the receiver's SMs load
  // from it; both PCIe legs and any SMP crossing carry every byte (docs/model.md#shm).
  double cap = std::numeric_limits<double>::infinity();
  bool crosses_socket = false;
  for (const Path& path : route.paths) {
    for (LinkId id : path.links) {
      const Link& link = topology.link(id);
      if (link.family == LinkFamily::kPcie) cap = std::min(cap, link.bw_Bps * kShmPcieEfficiency);
      if (link.family == LinkFamily::kSmp) {
        cap = std::min(cap, link.bw_Bps * kShmSmpEfficiency);
        crosses_socket = true;
      }
    }
  }
  cap *= topology.calibration()[CalibrationParameter::kHostStagingRate];
  if (why) {
    *why = Bottleneck{};
    why->kind = BottleneckKind::kHostStaging;
    why->from = route.src;
    why->to = route.dst;
    why->crosses_socket = crosses_socket;
  }
  return cap;
}

Bottleneck link_bottleneck(const Topology& topology, LinkId id, bool name_family) {
  Bottleneck b;
  b.kind = BottleneckKind::kLink;
  b.link = id;
  b.family = topology.link(id).family;
  b.name_family = name_family;
  return b;
}

void StreamSet::add(const Route& route, double weight, double rate_cap_Bps,
                    const Bottleneck& cap_why) {
  if (load_.empty()) load_.assign(capacity_.size(), 0.0);
  for (const Path& path : route.paths) {
    for (LinkId id : path.links) {
      if (load_[id.value] == 0.0) touched_.push_back(id.value);
      load_[id.value] += weight * path.share;
    }
  }
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
    double t = capacity_[id] / load_[id];
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
