// SPDX-License-Identifier: Apache-2.0
#include "collectives/route_caps.hpp"

namespace linksim::detail {

bool network_legs_by_link_id(const Topology& topology) {
  const uint64_t per_host = topology.links_per_host();
  if (topology.host_count() < 2 || per_host == 0 || topology.devices_per_host() == 0) return false;
  const auto links = topology.links();
  const uint64_t blocks = per_host * uint64_t(topology.host_count());
  if (blocks > links.size()) return false;
  for (uint64_t i = 0; i < per_host; ++i) {
    if (links[i].family == LinkFamily::kNetwork) return false;
  }
  for (uint64_t i = blocks; i < links.size(); ++i) {
    if (links[i].family != LinkFamily::kNetwork) return false;
  }
  return true;
}

RouteCaps::RouteCaps(const Topology& topology, const ModelCalibration& calibration,
                     const GdrNics* gdr_nics, bool by_shape)
    : topology_(topology), calibration_(calibration), gdr_nics_(gdr_nics), by_shape_(by_shape) {
  if (by_shape_) {
    links_per_host_ = topology.links_per_host();
    devices_per_host_ = topology.devices_per_host();
    block_links_ = links_per_host_ * uint32_t(topology.host_count());
  }
}

size_t RouteCaps::KeyHash::operator()(const std::vector<uint32_t>& key) const {
  // boost::hash_combine's mixing step over the key's words.
  size_t h = key.size();
  for (uint32_t word : key) h ^= word + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

bool RouteCaps::shape_key(const Route& route, uint32_t* send_host, uint32_t* recv_host) {
  if (!by_shape_ || route.transport != Transport::kNet || route.paths.empty()) return false;
  const std::vector<LinkId>& links = route.paths.front().links;
  // network_legs_by_link_id: the send leg is the links before the first one beyond the server
  // blocks, the receive leg those after the last one.
  size_t send_end = 0;
  while (send_end < links.size() && links[send_end].value < block_links_) ++send_end;
  if (send_end == links.size()) return false;  // no network link: route_rate_cap's own case
  size_t recv_begin = links.size();
  while (links[recv_begin - 1].value < block_links_) --recv_begin;
  // Each leg inside one server block, named by its links' ids in host 0's block.
  const auto leg_host = [&](size_t begin, size_t end, uint32_t* host) {
    *host = begin < end ? links[begin].value / links_per_host_ : 0;
    for (size_t i = begin; i < end; ++i) {
      if (links[i].value / links_per_host_ != *host) return false;
    }
    return true;
  };
  if (!leg_host(0, send_end, send_host) || !leg_host(recv_begin, links.size(), recv_host)) {
    return false;
  }
  key_.clear();
  key_.push_back(uint32_t(send_end));
  for (size_t i = 0; i < send_end; ++i) key_.push_back(links[i].value - *send_host * links_per_host_);
  for (size_t i = recv_begin; i < links.size(); ++i) {
    key_.push_back(links[i].value - *recv_host * links_per_host_);
  }
  return true;
}

bool RouteCaps::in_gdr(uint32_t nic) const {
  return gdr_nics_ != nullptr && nic < gdr_nics_->size() && (*gdr_nics_)[nic];
}

size_t RouteCaps::gdr_case(const Shape& shape, uint32_t send_host, uint32_t recv_host) const {
  const bool send = shape.send_nic != kNoNic && in_gdr(shape.send_nic + send_host * devices_per_host_);
  const bool recv = shape.recv_nic != kNoNic && in_gdr(shape.recv_nic + recv_host * devices_per_host_);
  return (send ? 1 : 0) + (recv ? 2 : 0);
}

double RouteCaps::cap(const Route& route, Bottleneck* why) {
  uint32_t send_host = 0, recv_host = 0;
  if (!shape_key(route, &send_host, &recv_host)) {
    return route_rate_cap(topology_, route, calibration_, why, gdr_nics_);
  }
  auto found = shapes_.find(key_);
  if (found == shapes_.end()) {
    // A new shape: its NICs (the leg_nic of link_efficiency.cpp: where the send leg ends,
    // where the receive leg starts), as ids in host 0's block.
    Shape shape;
    const std::vector<LinkId>& links = route.paths.front().links;
    const size_t send_end = key_.front();
    const size_t recv_begin = send_end + links.size() - (key_.size() - 1);
    if (send_end > 0) {
      shape.send_nic = topology_.link(links[send_end - 1]).to.value - send_host * devices_per_host_;
    }
    if (recv_begin < links.size()) {
      shape.recv_nic = topology_.link(links[recv_begin]).from.value - recv_host * devices_per_host_;
    }
    found = shapes_.emplace(key_, shape).first;
  }
  Shape& shape = found->second;
  const size_t c = gdr_case(shape, send_host, recv_host);
  if (!shape.decided[c]) {
    Bottleneck written;
    shape.cap_Bps[c] = route_rate_cap(topology_, route, calibration_, &written, gdr_nics_);
    shape.staged[c] = written.kind == BottleneckKind::kHostStaging;
    shape.crosses_socket[c] = written.crosses_socket;
    shape.decided[c] = true;
  }
  if (why != nullptr && shape.staged[c]) {
    *why = host_staging_bottleneck(route, shape.crosses_socket[c]);
  }
  return shape.cap_Bps[c];
}

}  // namespace linksim::detail
