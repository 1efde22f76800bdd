// SPDX-License-Identifier: Apache-2.0
// The Topology class itself: building, directed link pairs, CSR adjacency, names.
#include <doctest/doctest.h>

#include "linksim/catalog.hpp"
#include "linksim/topology.hpp"

using linksim::Catalog;
using linksim::Device;
using linksim::DeviceId;
using linksim::DeviceKind;
using linksim::LinkId;
using linksim::Topology;

namespace {

Device make_device(std::string name, DeviceKind kind, std::optional<int> host, int index,
                   std::string model = "") {
  Device d;
  d.name = std::move(name);
  d.kind = kind;
  d.host = host;
  d.index = index;
  d.model = std::move(model);
  return d;
}

// Two hosts, each: gpu1, gpu0 (added out of index order), one NVLink between them and a NIC;
// one fabric switch "leaf0" linked to both NICs.
//   ids: host0 = 0 gpu1, 1 gpu0, 2 nic0; host1 = 3 gpu1, 4 gpu0, 5 nic0; 6 leaf0
//   links: host0 = 0/1 gpu0-gpu1, 2/3 gpu0-nic0; host1 = 4..7; fabric = 8..11
Topology two_hosts(const Catalog& catalog) {
  Topology t(catalog);
  const linksim::LinkType& nvlink = *catalog.find_link_type("nvlink4");
  const linksim::LinkType& pcie = *catalog.find_link_type("pcie5");
  const linksim::LinkType& ndr = *catalog.find_link_type("ib_ndr");
  std::vector<DeviceId> nics;
  for (int h = 0; h < 2; ++h) {
    DeviceId g1 = t.add_device(make_device("gpu1", DeviceKind::kGpu, h, 1, "h100"));
    DeviceId g0 = t.add_device(make_device("gpu0", DeviceKind::kGpu, h, 0, "h100-sxm"));
    DeviceId nic = t.add_device(make_device("nic0", DeviceKind::kNic, h, 0, "ib_ndr"));
    t.add_link(g0, g1, nvlink, 18, 450e9, 1e-7);
    t.add_link(g0, nic, pcie, 16, 63e9, 1.15e-7, {"t.yaml", 9, 7}, 2);
    nics.push_back(nic);
  }
  t.set_host_layout(2, 3, 4);
  DeviceId leaf = t.add_device(make_device("leaf0", DeviceKind::kNetSwitch, std::nullopt, 0));
  for (DeviceId nic : nics) t.add_link(nic, leaf, ndr, 1, 50e9, 4e-7);
  t.finalize();
  return t;
}

}  // namespace

TEST_SUITE("topology") {

TEST_CASE("topology model: add_link makes two directed links 2k and 2k+1") {
  Topology t = two_hosts(Catalog::builtin());
  REQUIRE(t.links().size() == 12);
  const linksim::Link& forward = t.link(LinkId{2});
  const linksim::Link& backward = t.link(LinkId{3});
  CHECK(forward.from == DeviceId{1});
  CHECK(forward.to == DeviceId{2});
  CHECK(backward.from == DeviceId{2});
  CHECK(backward.to == DeviceId{1});
  CHECK(Topology::reverse(LinkId{2}) == LinkId{3});
  CHECK(Topology::reverse(LinkId{3}) == LinkId{2});
  CHECK(t.link_type(backward) == "pcie5");
  CHECK(backward.family == linksim::LinkFamily::kPcie);
  CHECK(backward.lanes == 16);
  CHECK(backward.bw_Bps == 63e9);
  CHECK(backward.latency_s == 1.15e-7);
  CHECK(backward.host_bridge == 2);
  CHECK(t.link_where(LinkId{3}).line == 9);
  CHECK(t.link_where(LinkId{3}).column == 7);
  // host 1's copy reports host 0's declaration; the others were declared nowhere (line 0).
  CHECK(t.link_where(LinkId{7}).line == 9);
  CHECK(t.link_where(LinkId{0}).line == 0);
  CHECK(t.link_where(LinkId{9}).line == 0);
  CHECK(t.link(LinkId{0}).host_bridge == -1);
}

TEST_CASE("topology model: out_links lists each device's outgoing links in added order") {
  Topology t = two_hosts(Catalog::builtin());
  // host0 gpu0 (id 1) leaves on 0 (to gpu1) and 2 (to nic0).
  auto out = t.out_links(DeviceId{1});
  REQUIRE(out.size() == 2);
  CHECK(out[0] == LinkId{0});
  CHECK(out[1] == LinkId{2});
  // host0 nic0 (id 2): 3 back to gpu0, then 8 to the leaf.
  auto nic_out = t.out_links(DeviceId{2});
  REQUIRE(nic_out.size() == 2);
  CHECK(nic_out[0] == LinkId{3});
  CHECK(nic_out[1] == LinkId{8});
  // The leaf (id 6) reaches both NICs: links 9 and 11 are the reverse directions.
  auto leaf_out = t.out_links(DeviceId{6});
  REQUIRE(leaf_out.size() == 2);
  CHECK(leaf_out[0] == LinkId{9});
  CHECK(leaf_out[1] == LinkId{11});
  for (LinkId id : leaf_out) CHECK(t.link(id).from == DeviceId{6});
}

TEST_CASE("topology model: gpus are host-major by index; devices_of sorts by index") {
  Topology t = two_hosts(Catalog::builtin());
  CHECK(t.gpus() == std::vector<DeviceId>{DeviceId{1}, DeviceId{0}, DeviceId{4}, DeviceId{3}});
  CHECK(t.devices_of(1, DeviceKind::kGpu) == std::vector<DeviceId>{DeviceId{4}, DeviceId{3}});
  CHECK(t.devices_of(0, DeviceKind::kNic) == std::vector<DeviceId>{DeviceId{2}});
  CHECK(t.devices_of(2, DeviceKind::kGpu).empty());
  CHECK(t.host_count() == 2);
  CHECK(t.host_device_offset(1) == 3);
  CHECK(t.host_link_offset(1) == 4);
}

TEST_CASE("topology model: display_name and find") {
  Topology t = two_hosts(Catalog::builtin());
  CHECK(t.display_name(DeviceId{4}) == "host1:gpu0");
  CHECK(t.display_name(DeviceId{0}) == "host0:gpu1");
  CHECK(t.display_name(DeviceId{6}) == "leaf0");
  CHECK(t.find("host1:gpu0") == DeviceId{4});
  CHECK(t.find("gpu0") == DeviceId{1});       // bare name = host 0
  CHECK(t.find("host0:nic0") == DeviceId{2});
  CHECK(t.find("leaf0") == DeviceId{6});
  CHECK_FALSE(t.find("host2:gpu0"));
  CHECK_FALSE(t.find("gpu7"));
  CHECK_FALSE(t.find("hostx:gpu0"));
  CHECK_FALSE(t.find("host1:leaf0"));  // a fabric device belongs to no host
  CHECK_FALSE(t.find("host-1:gpu0"));
  CHECK(to_string(DeviceKind::kPcieSwitch) == "pcie_switch");
  CHECK(to_string(DeviceKind::kNetSwitch) == "net_switch");
}

TEST_CASE("topology model: without a declared layout find and devices_of search every device") {
  Topology t(Catalog::builtin());
  t.add_device(make_device("leaf0", DeviceKind::kNetSwitch, std::nullopt, 0));
  t.add_device(make_device("gpu1", DeviceKind::kGpu, 1, 0, "h100"));
  t.add_device(make_device("gpu0", DeviceKind::kGpu, 0, 0, "h100"));
  t.finalize();
  CHECK(t.find("host1:gpu1") == DeviceId{1});
  CHECK(t.find("gpu0") == DeviceId{2});
  CHECK(t.find("leaf0") == DeviceId{0});
  CHECK_FALSE(t.find("gpu1"));  // bare = host 0, and gpu1 is host 1's
  CHECK(t.devices_of(1, DeviceKind::kGpu) == std::vector<DeviceId>{DeviceId{1}});
  CHECK(t.gpus() == std::vector<DeviceId>{DeviceId{2}, DeviceId{1}});  // sorted by host
}

TEST_CASE("topology model: single host names have no prefix; gpu_model resolves aliases") {
  const Catalog& catalog = Catalog::builtin();
  Topology t(catalog);
  DeviceId gpu = t.add_device(make_device("gpu0", DeviceKind::kGpu, 0, 0, "A100_SXM4_80GB"));
  DeviceId cpu = t.add_device(make_device("cpu0", DeviceKind::kCpu, 0, 0));
  t.add_link(gpu, cpu, *catalog.find_link_type("pcie4"), 16, 31.5e9, 1.05e-7);
  t.finalize();
  CHECK(t.display_name(gpu) == "gpu0");
  CHECK(t.gpu_model(gpu).key == "a100-sxm-80g");
  CHECK_THROWS_AS(t.gpu_model(cpu), linksim::ConfigError);
  CHECK(t.out_links(cpu).size() == 1);
  CHECK(t.out_links(DeviceId{99}).empty());
}

}  // TEST_SUITE
