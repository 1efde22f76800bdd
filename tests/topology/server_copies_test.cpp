// SPDX-License-Identifier: Apache-2.0
// Topology's storage of server blocks: host 0's block stored once and every server that
// repeats it derived on read (add_server_copies, set_host_layout), a server that differs kept
// as a block of its own, the adjacency split into block and outside parts, and the views that
// read devices and links as values. Each test compares the reads against the devices and
// links as they were added.
#include <doctest/doctest.h>

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "linksim/catalog.hpp"
#include "linksim/faults.hpp"
#include "linksim/topology.hpp"
#include "linksim/topology_yaml.hpp"

using linksim::Catalog;
using linksim::Device;
using linksim::DeviceId;
using linksim::DeviceKind;
using linksim::Link;
using linksim::LinkId;
using linksim::Topology;

namespace {

std::string topology_file(const std::string& name) {
  return std::string(LINKSIM_SOURCE_DIR) + "/topologies/" + name;
}

Device make_device(std::string name, DeviceKind kind, std::optional<int> host, int index) {
  Device d;
  d.name = std::move(name);
  d.kind = kind;
  d.host = host;
  d.index = index;
  if (kind == DeviceKind::kGpu) d.model = "h100-sxm";
  return d;
}

// Invariants of out_links over the whole topology: each device's list is ascending, holds
// only links that leave it, and the lists together hold every link exactly once.
void check_adjacency(const Topology& t) {
  std::vector<int> listed(t.links().size(), 0);
  for (uint32_t d = 0; d < t.devices().size(); ++d) {
    const linksim::OutLinks out = t.out_links(DeviceId{d});
    CHECK(std::is_sorted(out.begin(), out.end()));
    for (const LinkId id : out) {
      REQUIRE(id.value < listed.size());
      CHECK(t.link(id).from == DeviceId{d});
      ++listed[id.value];
    }
  }
  CHECK(std::all_of(listed.begin(), listed.end(), [](int n) { return n == 1; }));
}

// What the test added, in order: the oracle the reads are compared with.
struct Added {
  std::vector<Device> devices;
  std::vector<Link> links;  // both directions, as add_link makes them
};

void add_link(Topology& t, Added& added, DeviceId from, DeviceId to, const char* type,
              int lanes, double bw_Bps) {
  const linksim::LinkType& link_type = *t.catalog().find_link_type(type);
  t.add_link(from, to, link_type, lanes, bw_Bps, 1e-7);
  Link forward;
  forward.from = from;
  forward.to = to;
  forward.bw_Bps = bw_Bps;
  forward.latency_s = 1e-7;
  forward.family = link_type.family;
  forward.lanes = int16_t(lanes);
  Link backward = forward;
  std::swap(backward.from, backward.to);
  added.links.push_back(forward);
  added.links.push_back(backward);
}

// Three servers, each gpu0, gpu1, nic0 with an NVLink gpu0-gpu1 and PCIe gpu0-nic0, and a
// leaf switch joining the NICs. Server 1's NVLink runs at 100 GB/s instead of 450 and
// server 2's gpu1 at half clock: those two blocks differ from host 0's.
//   ids: server h = 3h gpu0, 3h+1 gpu1, 3h+2 nic0; 9 leaf0
//   links: server h = 4h..4h+3; fabric = 12..17
Topology three_servers(Added& added) {
  Topology t(Catalog::builtin());
  std::vector<DeviceId> nics;
  for (int h = 0; h < 3; ++h) {
    Device gpu0 = make_device("gpu0", DeviceKind::kGpu, h, 0);
    Device gpu1 = make_device("gpu1", DeviceKind::kGpu, h, 1);
    if (h == 2) gpu1.clock_fraction = 0.5;
    const Device nic = make_device("nic0", DeviceKind::kNic, h, 0);
    for (const Device& d : {gpu0, gpu1, nic}) added.devices.push_back(d);
    const DeviceId g0 = t.add_device(gpu0);
    const DeviceId g1 = t.add_device(gpu1);
    const DeviceId n = t.add_device(nic);
    add_link(t, added, g0, g1, "nvlink4", 18, h == 1 ? 100e9 : 450e9);
    add_link(t, added, g0, n, "pcie5", 16, 63e9);
    nics.push_back(n);
  }
  t.set_host_layout(3, 3, 4);
  const Device leaf = make_device("leaf0", DeviceKind::kNetSwitch, std::nullopt, 0);
  added.devices.push_back(leaf);
  const DeviceId leaf_id = t.add_device(leaf);
  for (const DeviceId nic : nics) add_link(t, added, nic, leaf_id, "ib_ndr", 1, 50e9);
  t.finalize();
  return t;
}

}  // namespace

TEST_SUITE("topology") {

TEST_CASE("server copies: a loaded cluster reads every server as host 0's block, shifted") {
  const Topology t = linksim::load_topology(topology_file("dgx-h100-ib.yaml"), {{"nodes", "3"}});
  REQUIRE(t.host_count() == 3);
  const uint32_t per_host = t.devices_per_host();
  const uint32_t links_per_host = t.links_per_host();
  REQUIRE(per_host == 30);  // 8 GPUs, 8 NICs, 8 PCIe switches, 4 NVSwitches, 2 CPUs
  REQUIRE(links_per_host == 114);
  for (int h = 0; h < 3; ++h) {
    for (uint32_t i = 0; i < per_host; ++i) {
      Device expected = t.device(DeviceId{i});
      expected.host = h;
      CHECK(t.device(DeviceId{t.host_device_offset(h) + i}) == expected);
      CHECK(&t.details(DeviceId{t.host_device_offset(h) + i}) == &t.details(DeviceId{i}));
    }
    for (uint32_t k = 0; k < links_per_host; ++k) {
      const LinkId id{t.host_link_offset(h) + k};
      Link expected = t.link(LinkId{k});
      expected.from.value += t.host_device_offset(h);
      expected.to.value += t.host_device_offset(h);
      CHECK(t.link(id) == expected);
      CHECK(t.link_type(id) == t.link_type(LinkId{k}));
      CHECK(t.link_where(id).line == t.link_where(LinkId{k}).line);
      CHECK(t.link_where(id).line > 0);
    }
  }
  // A NIC's out-links: its server's (host 0's, shifted), then its cable to a leaf.
  const DeviceId nic0_host2 = *t.find("host2:nic0");
  const linksim::OutLinks out = t.out_links(nic0_host2);
  const linksim::OutLinks host0 = t.out_links(*t.find("nic0"));
  REQUIRE(out.size() == host0.size());
  REQUIRE(out.size() == 2);
  CHECK(out[0].value == host0[0].value + t.host_link_offset(2));
  CHECK(out[1].value >= t.host_link_offset(3));
  CHECK(t.device(t.link(out[1]).to).kind == DeviceKind::kNetSwitch);
  check_adjacency(t);
}

TEST_CASE("server copies: a server whose block differs keeps a block of its own") {
  Added added;
  const Topology t = three_servers(added);
  REQUIRE(t.devices().size() == added.devices.size());
  REQUIRE(t.links().size() == added.links.size());
  for (uint32_t i = 0; i < added.devices.size(); ++i) {
    CHECK(t.device(DeviceId{i}) == added.devices[i]);
  }
  for (uint32_t i = 0; i < added.links.size(); ++i) {
    const Link read = t.link(LinkId{i});
    const Link& expected = added.links[i];
    CHECK(read.from == expected.from);
    CHECK(read.to == expected.to);
    CHECK(read.bw_Bps == expected.bw_Bps);
    CHECK(read.lanes == expected.lanes);
    CHECK(read.family == expected.family);
  }
  CHECK(t.link(LinkId{4}).bw_Bps == 100e9);  // server 1's NVLink, its own
  CHECK(t.link(LinkId{8}).bw_Bps == 450e9);  // server 2's NVLink, host 0's
  CHECK(t.device(DeviceId{7}).clock_fraction == 0.5);  // server 2's gpu1
  CHECK(t.device(DeviceId{4}).clock_fraction == 1.0);  // server 1's gpu1
  CHECK(t.gpus() == std::vector<DeviceId>{DeviceId{0}, DeviceId{1}, DeviceId{3}, DeviceId{4},
                                          DeviceId{6}, DeviceId{7}});
  CHECK(t.devices_of(2, DeviceKind::kGpu) == std::vector<DeviceId>{DeviceId{6}, DeviceId{7}});
  CHECK(t.find("host1:nic0") == DeviceId{5});
  CHECK(t.find("leaf0") == DeviceId{9});
  CHECK(t.display_name(DeviceId{7}) == "host2:gpu1");
  // nic0 of server 1 (id 5): back to its gpu0 (link 7), then to the leaf (link 14).
  const linksim::OutLinks nic = t.out_links(DeviceId{5});
  CHECK(std::vector<LinkId>(nic.begin(), nic.end()) == std::vector<LinkId>{LinkId{7}, LinkId{14}});
  check_adjacency(t);
}

TEST_CASE("server copies: blocks whose links leave them, and a second layout, are refused") {
  Topology t(Catalog::builtin());
  const linksim::LinkType& pcie = *Catalog::builtin().find_link_type("pcie5");
  const DeviceId a = t.add_device(make_device("gpu0", DeviceKind::kGpu, 0, 0));
  const DeviceId b = t.add_device(make_device("gpu0", DeviceKind::kGpu, 1, 0));
  t.add_link(a, b, pcie, 16, 63e9, 1e-7);  // server 0's link reaching into server 1
  CHECK_THROWS_AS(t.set_host_layout(2, 1, 2), std::invalid_argument);

  Topology loose(Catalog::builtin());
  const DeviceId only = loose.add_device(make_device("gpu0", DeviceKind::kGpu, 0, 0));
  loose.add_link(only, DeviceId{5}, pcie, 16, 63e9, 1e-7);  // to a device not in the block
  CHECK_THROWS_AS(loose.add_server_copies(2), std::invalid_argument);

  Topology one(Catalog::builtin());
  one.add_device(make_device("gpu0", DeviceKind::kGpu, 0, 0));
  one.add_server_copies(4);
  CHECK_THROWS_AS(one.add_server_copies(4), std::invalid_argument);
  CHECK_THROWS_AS(one.set_host_layout(4, 1, 0), std::invalid_argument);
  one.finalize();
  CHECK(one.devices().size() == 4);
  CHECK(one.device(DeviceId{3}).host == 3);
  CHECK(one.gpus().size() == 4);
}

TEST_CASE("server copies: a fault on a loaded cluster changes every server's copy") {
  const Topology t = linksim::load_topology(topology_file("dgx-h100-ib.yaml"), {{"nodes", "3"}});
  const Topology d = linksim::with_degraded(t, "gpu0~pciesw0:width=8");
  REQUIRE(d.links().size() == t.links().size());
  for (int h = 0; h < 3; ++h) {
    const DeviceId gpu = *d.find(fmt::format("host{}:gpu0", h));
    const DeviceId sw = *d.find(fmt::format("host{}:pciesw0", h));
    int seen = 0;
    for (const LinkId id : d.out_links(gpu)) {
      const Link link = d.link(id);
      if (link.to != sw) continue;
      ++seen;
      CHECK(link.lanes == 8);
      CHECK(link.bw_Bps == doctest::Approx(t.link(id).bw_Bps / 2));
      CHECK(d.link(Topology::reverse(id)).lanes == 8);
    }
    CHECK(seen == 1);
  }
  // Every other link reads as before, and every link keeps its declaration.
  int changed = 0;
  for (uint32_t i = 0; i < t.links().size(); ++i) {
    changed += t.link(LinkId{i}) == d.link(LinkId{i}) ? 0 : 1;
    CHECK(d.link_where(LinkId{i}).line == t.link_where(LinkId{i}).line);
    CHECK(d.link_where(LinkId{i}).column == t.link_where(LinkId{i}).column);
  }
  CHECK(changed == 2 * 3);
  check_adjacency(d);
}

TEST_CASE("server copies: device and link views are random-access ranges of values") {
  Added added;
  const Topology t = three_servers(added);
  const linksim::LinkView links = t.links();
  CHECK(links.end() - links.begin() == 18);
  CHECK((links.begin() + 4)[0].bw_Bps == 100e9);
  CHECK(links.subspan(12).size() == 6);
  CHECK(links.subspan(12).front().from == DeviceId{2});
  CHECK(links.back().from == DeviceId{9});
  CHECK(std::count_if(links.begin(), links.end(),
                      [](const Link& l) { return l.family == linksim::LinkFamily::kNetwork; }) == 6);
  const linksim::DeviceView devices = t.devices();
  CHECK(devices[7].host == 2);
  CHECK(std::find_if(devices.begin(), devices.end(), [](const Device& d) {
          return d.kind == DeviceKind::kNetSwitch;
        }) - devices.begin() == 9);
  // An out-links iterator keeps its list: it outlives the temporary it came from.
  const auto first = t.out_links(DeviceId{5}).begin();
  CHECK(*first == LinkId{7});
}

}  // TEST_SUITE
