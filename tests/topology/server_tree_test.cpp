// SPDX-License-Identifier: Apache-2.0
// The server tree (topology/server_tree.hpp): parents, depths, children, home CPUs, NVLink
// components and the reachability rule, derived by hand on the machines of
// tests/support/mini_topologies.hpp.
#include <doctest/doctest.h>

#include "support/mini_topologies.hpp"
#include "topology/server_tree.hpp"

namespace linksim {
namespace {

DeviceId id(const Topology& topology, const char* name) { return testing::named(topology, name); }

std::vector<std::string> names(const Topology& t, const std::vector<DeviceId>& ids) {
  std::vector<std::string> out;
  for (DeviceId d : ids) out.push_back(t.device(d).name);
  return out;
}

}  // namespace

TEST_SUITE("topology") {

TEST_CASE("server tree: depth, parent link, children and home CPU of a PCIe tree") {
  // cpu0 <- top <- {psw0 <- gpu0, gpu1, nic0; psw1 <- gpu2}; gpu3 and gpu4 hang from cpu0.
  const Topology t = testing::make_pcie_tree();
  const detail::ServerTree tree = detail::build_server_tree(t, 0);
  const auto depth = [&](const char* name) { return tree.depth[id(t, name).value]; };
  CHECK(depth("cpu0") == 0);
  CHECK(depth("top") == 1);
  CHECK(depth("psw0") == 2);
  CHECK(depth("psw1") == 2);
  CHECK(depth("gpu0") == 3);
  CHECK(depth("nic0") == 3);
  CHECK(depth("gpu2") == 3);
  CHECK(depth("gpu3") == 1);
  CHECK(depth("gpu4") == 1);
  CHECK(names(t, tree.children[id(t, "cpu0").value]) ==
        std::vector<std::string>{"top", "gpu3", "gpu4"});
  CHECK(names(t, tree.children[id(t, "top").value]) == std::vector<std::string>{"psw0", "psw1"});
  CHECK(names(t, tree.children[id(t, "psw0").value]) ==
        std::vector<std::string>{"gpu0", "gpu1", "nic0"});
  CHECK(tree.children[id(t, "gpu0").value].empty());
  const Link& down = t.link(*tree.down_link[id(t, "gpu2").value]);
  CHECK(down.from == id(t, "psw1"));
  CHECK(down.to == id(t, "gpu2"));
  CHECK_FALSE(tree.down_link[id(t, "cpu0").value].has_value());
  CHECK(tree.home_cpu(id(t, "gpu0")) == id(t, "cpu0"));
  CHECK(names(t, tree.chains[id(t, "gpu1").value].hops) ==
        std::vector<std::string>{"psw0", "top", "cpu0"});
}

TEST_CASE("server tree: NVLink components and bonds through NVSwitch planes") {
  const Topology box = testing::make_nvswitch_box();
  const detail::ServerTree tree = detail::build_server_tree(box, 0);
  const int component = tree.nvlink_component[id(box, "gpu0").value];
  for (const char* gpu : {"gpu1", "gpu2", "gpu3", "nvs0", "nvs1"}) {
    CHECK(tree.nvlink_component[id(box, gpu).value] == component);
  }
  CHECK(tree.nvlink_component[id(box, "nic0").value] != component);
  // Two planes: 3 lanes into nvs0, 2 into nvs1, each a two-link way.
  const auto bonds = detail::nvlink_bonds(box, id(box, "gpu0"), id(box, "gpu3"));
  REQUIRE(bonds.size() == 2);
  CHECK(bonds[0].lanes == 3);
  CHECK(bonds[0].links.size() == 2);
  CHECK(box.link(bonds[0].links[0]).to == id(box, "nvs0"));
  CHECK(bonds[1].lanes == 2);
  const Topology pcie = testing::make_pcie_tree();
  const detail::ServerTree plain = detail::build_server_tree(pcie, 0);
  CHECK(plain.nvlink_component[id(pcie, "gpu0").value] !=
        plain.nvlink_component[id(pcie, "gpu1").value]);
  CHECK(detail::nvlink_bonds(pcie, id(pcie, "gpu0"), id(pcie, "gpu1")).empty());
}

TEST_CASE("server tree: the reachability rule: NVLink, peer to peer below a CPU, host staging") {
  const Topology pcie = testing::make_pcie_tree();
  const detail::ServerTree tree = detail::build_server_tree(pcie, 0);
  const auto reaches = [&](const Topology& t, const detail::ServerTree& tr, const char* a,
                           const char* b) {
    const DeviceId da = id(t, a), db = id(t, b);
    return detail::reaches(t, da, tr.chains[da.value], db, tr.chains[db.value]);
  };
  CHECK(reaches(pcie, tree, "gpu0", "gpu1"));  // meet at psw0
  CHECK(reaches(pcie, tree, "gpu0", "gpu3"));  // staged through cpu0
  CHECK(reaches(pcie, tree, "gpu2", "nic0"));  // meet at top
  // Two sockets, no P2P: only host staging over the socket link joins the GPUs.
  const Topology dual = testing::make_dual_socket(false);
  const detail::ServerTree dual_tree = detail::build_server_tree(dual, 0);
  CHECK(reaches(dual, dual_tree, "gpu0", "gpu1"));
  CHECK(detail::smp_path(dual, id(dual, "cpu0"), id(dual, "cpu1"))->size() == 1);
  const detail::ChainMeeting apart =
      detail::chains_meet(dual_tree.chains[id(dual, "gpu0").value],
                          dual_tree.chains[id(dual, "gpu1").value]);
  CHECK_FALSE(apart.a_hop.has_value());
}

}  // TEST_SUITE

}  // namespace linksim
