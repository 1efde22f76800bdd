// SPDX-License-Identifier: Apache-2.0
// Tiny machines built in C++ for tests; the numbers are documented in mini_topologies.hpp.
#include "support/mini_topologies.hpp"

#include <doctest/doctest.h>

#include <fmt/core.h>

#include <string>

namespace linksim::testing {
namespace {

LinkType make_type(const char* key, LinkFamily family, double lane_bw_Bps, const char* lanes_key,
                   int default_lanes, double latency_s) {
  LinkType type;
  type.key = key;
  type.family = family;
  type.lane_bw_Bps = lane_bw_Bps;
  type.lanes_key = lanes_key;
  type.default_lanes = default_lanes;
  type.latency_s = latency_s;
  return type;
}

/// Adds the devices and links of one server block.
class HostBuilder {
 public:
  HostBuilder(Topology& topology, int host) : topology_(topology), host_(host) {}

  DeviceId add(const std::string& name, DeviceKind kind, int index,
               const std::string& model = "") {
    return topology_.add_device(make(name, kind, index, model));
  }
  DeviceId gpu(int index, const std::string& model, bool p2p = true) {
    Device device = make(fmt::format("gpu{}", index), DeviceKind::kGpu, index, model);
    device.p2p = p2p;
    return topology_.add_device(std::move(device));
  }
  DeviceId cpu(int index, const std::string& cores) {
    Device device = make(fmt::format("cpu{}", index), DeviceKind::kCpu, index, "");
    DeviceDetails details;
    details.numa = index;
    details.cpu_affinity = cores;
    return topology_.add_device(std::move(device), std::move(details));
  }
  DeviceId nic(int index, const std::string& type) {
    Device device = make(fmt::format("nic{}", index), DeviceKind::kNic, index, type);
    DeviceDetails details;
    details.port_name = fmt::format("mlx5_{}", index);
    return topology_.add_device(std::move(device), std::move(details));
  }
  void pcie(DeviceId from, DeviceId to, int host_bridge = -1) {
    const LinkType& type = mini_pcie();
    topology_.add_link(from, to, type, 16, 16 * type.lane_bw_Bps, type.latency_s, {}, host_bridge);
  }
  void nvlink(DeviceId from, DeviceId to, int lanes) {
    const LinkType& type = mini_nvlink();
    topology_.add_link(from, to, type, lanes, lanes * type.lane_bw_Bps, type.latency_s);
  }
  void upi(DeviceId from, DeviceId to) {
    const LinkType& type = mini_upi();
    topology_.add_link(from, to, type, 1, type.lane_bw_Bps, type.latency_s);
  }

 private:
  Device make(const std::string& name, DeviceKind kind, int index,
              const std::string& model) const {
    Device device;
    device.name = name;
    device.kind = kind;
    device.host = host_;
    device.index = index;
    device.model = model;
    return device;
  }

  Topology& topology_;
  int host_;
};

void build_tiny_pair(Topology& topology, int host, const char* nic_type, int nics) {
  HostBuilder b(topology, host);
  DeviceId cpu0 = b.cpu(0, "0-31");
  DeviceId sw0 = b.add("sw0", DeviceKind::kPcieSwitch, 0);
  DeviceId gpu0 = b.gpu(0, "a40");
  DeviceId gpu1 = b.gpu(1, "a40");
  b.pcie(sw0, cpu0);
  b.pcie(gpu0, sw0);
  b.pcie(gpu1, sw0);
  for (int n = 0; n < nics; ++n) b.pcie(b.nic(n, nic_type), sw0);
  b.nvlink(gpu0, gpu1, 4);
}

}  // namespace

const LinkType& mini_nvlink() {
  static const LinkType type =
      make_type("nvlink4", LinkFamily::kNvlink, 25e9, "lanes", 1, 0.5e-6);
  return type;
}
const LinkType& mini_pcie() {
  static const LinkType type = make_type("pcie4", LinkFamily::kPcie, 2e9, "width", 16, 1e-6);
  return type;
}
const LinkType& mini_upi() {
  static const LinkType type = make_type("upi", LinkFamily::kSmp, 40e9, "", 1, 0.2e-6);
  return type;
}

Topology make_nvswitch_box() {
  Topology topology(Catalog::builtin());
  topology.set_name("mini-nvswitch-box");
  HostBuilder b(topology, 0);
  DeviceId cpu0 = b.cpu(0, "0-15");
  DeviceId cpu1 = b.cpu(1, "16-31");
  DeviceId psw0 = b.add("psw0", DeviceKind::kPcieSwitch, 0);
  DeviceId psw1 = b.add("psw1", DeviceKind::kPcieSwitch, 1);
  DeviceId gpus[4];
  for (int i = 0; i < 4; ++i) gpus[i] = b.gpu(i, "h100-sxm");
  DeviceId nic0 = b.nic(0, "ib_ndr");
  DeviceId nic1 = b.nic(1, "ib_ndr");
  DeviceId nvs0 = b.add("nvs0", DeviceKind::kNvswitch, 0);
  DeviceId nvs1 = b.add("nvs1", DeviceKind::kNvswitch, 1);
  b.upi(cpu0, cpu1);
  b.pcie(psw0, cpu0, 0);
  b.pcie(psw1, cpu1, 0);
  b.pcie(gpus[0], psw0);
  b.pcie(gpus[1], psw0);
  b.pcie(nic0, psw0);
  b.pcie(gpus[2], psw1);
  b.pcie(gpus[3], psw1);
  b.pcie(nic1, psw1);
  for (DeviceId gpu : gpus) {
    b.nvlink(gpu, nvs0, 3);
    b.nvlink(gpu, nvs1, 2);
  }
  topology.finalize();
  return topology;
}

Topology make_pcie_tree() {
  Topology topology(Catalog::builtin());
  topology.set_name("mini-pcie-tree");
  HostBuilder b(topology, 0);
  DeviceId cpu0 = b.cpu(0, "0-7");
  DeviceId top = b.add("top", DeviceKind::kPcieSwitch, 0);
  DeviceId psw0 = b.add("psw0", DeviceKind::kPcieSwitch, 1);
  DeviceId psw1 = b.add("psw1", DeviceKind::kPcieSwitch, 2);
  DeviceId gpus[5];
  for (int i = 0; i < 5; ++i) gpus[i] = b.gpu(i, "a40");
  DeviceId nic0 = b.nic(0, "ib_hdr");
  b.pcie(top, cpu0, 0);
  b.pcie(psw0, top);
  b.pcie(psw1, top);
  b.pcie(gpus[0], psw0);
  b.pcie(gpus[1], psw0);
  b.pcie(nic0, psw0);
  b.pcie(gpus[2], psw1);
  b.pcie(gpus[3], cpu0, 0);
  b.pcie(gpus[4], cpu0, 1);
  topology.finalize();
  return topology;
}

Topology make_dual_socket(bool p2p) {
  Topology topology(Catalog::builtin());
  topology.set_name("mini-dual-socket");
  HostBuilder b(topology, 0);
  DeviceId cpu0 = b.cpu(0, "0-15");
  DeviceId cpu1 = b.cpu(1, "16-31");
  DeviceId gpu0 = b.gpu(0, "rtx4090", p2p);
  DeviceId gpu1 = b.gpu(1, "rtx4090", p2p);
  b.upi(cpu0, cpu1);
  b.pcie(gpu0, cpu0);
  b.pcie(gpu1, cpu1);
  topology.finalize();
  return topology;
}

Topology make_cluster(int hosts, const detail::FabricSpec& spec, const char* nic_type,
                      int nics_per_host) {
  Topology topology(Catalog::builtin());
  topology.set_name("mini-cluster");
  for (int h = 0; h < hosts; ++h) build_tiny_pair(topology, h, nic_type, nics_per_host);
  const uint32_t devices_per_host = uint32_t(topology.devices().size()) / uint32_t(hosts);
  const uint32_t links_per_host = uint32_t(topology.links().size()) / uint32_t(hosts);
  topology.set_host_layout(hosts, devices_per_host, links_per_host);
  detail::build_fabric(topology, spec, Catalog::builtin());
  topology.finalize();
  return topology;
}

std::string path_text(const Topology& topology, const Path& path) {
  std::string text = topology.display_name(topology.link(path.links.front()).from);
  for (LinkId link : path.links) text += ">" + topology.display_name(topology.link(link).to);
  return text;
}

DeviceId named(const Topology& topology, const char* name) {
  auto found = topology.find(name);
  REQUIRE_MESSAGE(found.has_value(), name);
  return *found;
}

}  // namespace linksim::testing
