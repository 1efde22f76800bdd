// SPDX-License-Identifier: Apache-2.0
#include "collectives/route_shapes.hpp"

#include <algorithm>

#include "collectives/comm_graph.hpp"
#include "linksim/error.hpp"

namespace linksim::detail {

RouteShapes::RouteShapes(const CommGraph& graph) : graph_(graph) {
  const Topology& t = graph.topology();
  enabled_ = graph.network_legs_by_link_id();
  if (!enabled_) return;
  devices_per_host_ = t.devices_per_host();
  links_per_host_ = t.links_per_host();
  block_devices_ = devices_per_host_ * uint32_t(t.host_count());
  block_links_ = links_per_host_ * uint32_t(t.host_count());
}

bool RouteShapes::route(int from, int to, RouteCaps& caps, TransferPaths* out,
                        double* cap_Bps) {
  return answer(from, to, caps, out, cap_Bps) != nullptr;
}

bool RouteShapes::route(int from, int to, RouteCaps& caps, Route* out, double* cap_Bps) {
  const Shape* shape = answer(from, to, caps, &paths_scratch_, cap_Bps);
  if (shape == nullptr) return false;
  const DeviceId src = graph_.ranks()[size_t(from)];
  const DeviceId dst = graph_.ranks()[size_t(to)];
  write_route(*shape, src, dst, src.value / devices_per_host_, paths_scratch_, out);
  return true;
}

const RouteShapes::Shape* RouteShapes::answer(int from, int to, RouteCaps& caps,
                                              TransferPaths* out, double* cap_Bps) {
  if (!enabled_) return nullptr;
  const DeviceId src = graph_.ranks()[size_t(from)];
  const DeviceId dst = graph_.ranks()[size_t(to)];
  if (src.value >= block_devices_ || dst.value >= block_devices_) return nullptr;
  const uint32_t src_host = src.value / devices_per_host_;
  const uint32_t dst_host = dst.value / devices_per_host_;
  if (src_host == dst_host) return nullptr;
  const uint32_t src_local = src.value - src_host * devices_per_host_;
  const uint32_t dst_local = dst.value - dst_host * devices_per_host_;
  if (shape_of_.empty()) shape_of_.resize(devices_per_host_);
  std::vector<std::pair<uint32_t, uint32_t>>& built = shape_of_[src_local];
  auto found = std::find_if(built.begin(), built.end(),
                            [&](const auto& entry) { return entry.first == dst_local; });
  if (found == built.end()) {
    shapes_.push_back(build(from, to, src_host, dst_host));
    built.emplace_back(dst_local, uint32_t(shapes_.size() - 1));
    found = built.end() - 1;
  }
  Shape& shape = shapes_[found->second];
  if (shape.state == Shape::State::kUnusable) return nullptr;
  if (!generate(shape, src_host, dst_host, out)) return nullptr;
  // RouteCaps::gdr_case's two flags: each leg's NIC in the GPUDirect set, at its server.
  const std::vector<bool>& gdr = graph_.gdr_nics();
  const auto in_gdr = [&](uint32_t nic, uint32_t host) {
    if (nic == kNone) return false;
    const uint64_t id = nic + uint64_t(host) * devices_per_host_;
    return id < gdr.size() && gdr[id];
  };
  const size_t c = (in_gdr(shape.send_gdr_nic, src_host) ? 1 : 0) +
                   (in_gdr(shape.recv_gdr_nic, dst_host) ? 2 : 0);
  if (shape.state == Shape::State::kUnchecked || !shape.decided[c]) {
    write_route(shape, src, dst, src_host, *out, &generated_);
  }
  if (shape.state == Shape::State::kUnchecked) {
    // The first pair the shape answers: the router's own route must be the same.
    const Route& routed = graph_.route_paths(from, to, &check_);
    if (!same_paths(generated_, routed)) {
      shape.state = Shape::State::kUnusable;
      return nullptr;
    }
    shape.state = Shape::State::kChecked;
  }
  if (!shape.decided[c]) {
    shape.cap_Bps[c] = caps.cap(generated_);
    shape.decided[c] = true;
  }
  *cap_Bps = shape.cap_Bps[c];
  return &shape;
}

RouteShapes::Shape RouteShapes::build(int from, int to, uint32_t src_host, uint32_t dst_host) {
  Shape shape;
  const Router& router = graph_.router();
  const DeviceId src = graph_.ranks()[size_t(from)];
  const DeviceId dst = graph_.ranks()[size_t(to)];
  // The PXN choice is the communicator's (CommGraph::pxn_choice): read off its route.
  const Route& routed = graph_.route_paths(from, to, &check_);
  if (routed.transport != Transport::kNet) {
    shape.state = Shape::State::kUnusable;
    return shape;
  }
  const uint32_t src_offset = src_host * devices_per_host_;
  const uint32_t dst_offset = dst_host * devices_per_host_;
  const DeviceId sender = routed.proxy.value_or(src);
  // The hand-over's paths (one empty path when the source sends itself), host-0 links.
  static const std::vector<Path> kNoHandOver{Path{{}, 1.0}};
  const std::vector<Path>* hand_over = &kNoHandOver;
  if (routed.proxy) {
    const std::optional<Router::HostRoute> hand = router.host_route(src, sender);
    if (!hand) {
      shape.state = Shape::State::kUnusable;
      return shape;
    }
    shape.proxy = sender.value - src_offset;
    hand_over = &hand->local->paths;
  }
  // Router::route_paths between servers: one path per NIC of the end that drives more, the
  // NICs taken in turn, each an equal share.
  const std::vector<DeviceId> send_nics = router.nics(sender);
  const std::vector<DeviceId> recv_nics = router.nics(dst);
  if (send_nics.empty() || recv_nics.empty()) {
    shape.state = Shape::State::kUnusable;
    return shape;
  }
  const size_t count = std::max(send_nics.size(), recv_nics.size());
  shape.first_pair = uint32_t(pairs_.size());
  shape.pair_count = uint32_t(count);
  // A leg inside one server: all its host-0 route's paths' links, in order (the router's
  // network_path appends them so).
  const auto append_leg = [&](DeviceId a, DeviceId b) {
    const std::optional<Router::HostRoute> leg = router.host_route(a, b);
    for (const Path& p : leg->local->paths) links_.insert(links_.end(), p.links.begin(), p.links.end());
  };
  const auto own_only_nic = [&](DeviceId nic) {
    const std::vector<DeviceId> own = router.nics(nic);
    return own.size() == 1 && own.front() == nic;
  };
  std::vector<std::pair<uint32_t, uint32_t>> send_legs(count), recv_legs(count);
  shape.own_nics = true;
  for (size_t i = 0; i < count; ++i) {
    const DeviceId send_nic = send_nics[i % send_nics.size()];
    const DeviceId recv_nic = recv_nics[i % recv_nics.size()];
    shape.own_nics = shape.own_nics && own_only_nic(send_nic) && own_only_nic(recv_nic);
    pairs_.push_back({send_nic.value - src_offset, recv_nic.value - dst_offset});
    send_legs[i].first = uint32_t(links_.size());
    append_leg(sender, send_nic);
    send_legs[i].second = uint32_t(links_.size());
    recv_legs[i].first = uint32_t(links_.size());
    append_leg(recv_nic, dst);
    recv_legs[i].second = uint32_t(links_.size());
  }
  // CommGraph::join_hand_over: every hand-over path continued by every network path, shares
  // multiplied; a direct route's shares are the network paths' own.
  shape.first_path = uint32_t(paths_.size());
  const double network_share = 1.0 / double(count);
  for (const Path& hand : *hand_over) {
    for (size_t i = 0; i < count; ++i) {
      ShapePath path;
      path.send_begin = uint32_t(links_.size());
      links_.insert(links_.end(), hand.links.begin(), hand.links.end());
      for (uint32_t j = send_legs[i].first; j < send_legs[i].second; ++j) {
        const LinkId id = links_[j];  // copied first: push_back may move links_
        links_.push_back(id);
      }
      path.send_end = uint32_t(links_.size());
      path.recv_begin = recv_legs[i].first;
      path.recv_end = recv_legs[i].second;
      path.pair = shape.first_pair + uint32_t(i);
      path.share = routed.proxy ? hand.share * network_share : network_share;
      paths_.push_back(path);
    }
  }
  shape.path_count = uint32_t(paths_.size()) - shape.first_path;
  // RouteCaps's leg NICs: where the first path's send leg ends and its receive leg starts.
  const Topology& t = graph_.topology();
  const ShapePath& first = paths_[shape.first_path];
  if (first.send_end > first.send_begin) shape.send_gdr_nic = t.link(links_[first.send_end - 1]).to.value;
  if (first.recv_end > first.recv_begin) shape.recv_gdr_nic = t.link(links_[first.recv_begin]).from.value;
  return shape;
}

bool RouteShapes::generate(const Shape& shape, uint32_t src_host, uint32_t dst_host,
                           TransferPaths* out) {
  const Router& router = graph_.router();
  const uint32_t src_devices = src_host * devices_per_host_;
  const uint32_t dst_devices = dst_host * devices_per_host_;
  // Each NIC pair's fabric leg: the router's route between the two NICs, which is the fabric
  // alone when the fabric joins them (its first link the sending NIC's, beyond the server
  // blocks); otherwise the router's rail fallback moved the sending NIC and the pair is not
  // the shape's.
  fabric_.clear();
  fabric_ends_.clear();
  for (uint32_t k = 0; k < shape.pair_count; ++k) {
    const NicPair& pair = pairs_[shape.first_pair + k];
    if (shape.own_nics) {
      // The route between two such NICs is one path, the fabric's leg alone when the fabric
      // joins them (Router::fabric_leg); any other answer is not the shape's.
      const size_t begin = fabric_.size();
      if (!router.fabric_leg(DeviceId{pair.send_nic + src_devices},
                             DeviceId{pair.recv_nic + dst_devices}, &fabric_) ||
          fabric_[begin].value < block_links_) {
        return false;
      }
      fabric_ends_.push_back(uint32_t(fabric_.size()));
      continue;
    }
    try {
      router.route_paths(DeviceId{pair.send_nic + src_devices}, DeviceId{pair.recv_nic + dst_devices},
                         &leg_);
    } catch (const ConfigError&) {
      return false;  // the caller's routing reports the pair's own error
    }
    if (leg_.paths.size() != 1) return false;
    const std::vector<LinkId>& links = leg_.paths.front().links;
    if (links.empty() || links.front().value < block_links_) return false;
    fabric_.insert(fabric_.end(), links.begin(), links.end());
    fabric_ends_.push_back(uint32_t(fabric_.size()));
  }
  const uint32_t src_links = src_host * links_per_host_;
  const uint32_t dst_links = dst_host * links_per_host_;
  const auto fabric_begin = [&](uint32_t k) { return k == 0 ? 0 : fabric_ends_[k - 1]; };
  // Sized first: the paths' spans point into the resources.
  size_t total = 0;
  for (uint32_t p = 0; p < shape.path_count; ++p) {
    const ShapePath& sp = paths_[shape.first_path + p];
    const uint32_t k = sp.pair - shape.first_pair;
    total += (sp.send_end - sp.send_begin) + (fabric_ends_[k] - fabric_begin(k)) +
             (sp.recv_end - sp.recv_begin);
  }
  out->resources.resize(total);
  out->paths.resize(shape.path_count);
  ResourceId* const first = out->resources.data();
  ResourceId* at = first;
  for (uint32_t p = 0; p < shape.path_count; ++p) {
    const ShapePath& sp = paths_[shape.first_path + p];
    const uint32_t k = sp.pair - shape.first_pair;
    ResourceId* const path_begin = at;
    for (uint32_t i = sp.send_begin; i < sp.send_end; ++i) *at++ = {links_[i].value + src_links};
    for (uint32_t i = fabric_begin(k); i < fabric_ends_[k]; ++i) *at++ = {fabric_[i].value};
    for (uint32_t i = sp.recv_begin; i < sp.recv_end; ++i) *at++ = {links_[i].value + dst_links};
    out->paths[p] = {std::span<const ResourceId>(path_begin, size_t(at - path_begin)), sp.share};
  }
  return true;
}

void RouteShapes::write_route(const Shape& shape, DeviceId src, DeviceId dst, uint32_t src_host,
                              const TransferPaths& paths, Route* out) const {
  Route& r = *out;
  r.begin_network(src, dst);
  if (shape.proxy != kNone) r.proxy = DeviceId{shape.proxy + src_host * devices_per_host_};
  r.paths.resize(paths.paths.size());
  for (size_t p = 0; p < paths.paths.size(); ++p) {
    Path& path = r.paths[p];
    path.share = paths.paths[p].share;
    path.links.clear();
    for (ResourceId resource : paths.paths[p].resources) path.links.push_back(LinkId{resource.value});
  }
}

bool RouteShapes::same_paths(const Route& a, const Route& b) {
  if (a.src != b.src || a.dst != b.dst || a.cls != b.cls || a.transport != b.transport ||
      a.proxy != b.proxy || a.paths.size() != b.paths.size()) {
    return false;
  }
  for (size_t p = 0; p < a.paths.size(); ++p) {
    if (a.paths[p].share != b.paths[p].share || a.paths[p].links != b.paths[p].links) return false;
  }
  return true;
}

}  // namespace linksim::detail
