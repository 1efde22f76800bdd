// SPDX-License-Identifier: Apache-2.0
// topo dot: small machines device by device, servers as clusters, big machines collapsed.
#include <doctest/doctest.h>

#include <string>

#include "linksim/charts.hpp"
#include "support/mini_topologies.hpp"

namespace linksim {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

detail::FabricSpec fat_tree(int radix) {
  detail::FabricSpec spec;
  spec.kind = detail::FabricKind::kFatTree;
  spec.radix = radix;
  return spec;
}

}  // namespace

TEST_SUITE("report") {

TEST_CASE("topo dot: a small machine, every device and link, bandwidth on the edges") {
  const Topology t = testing::make_dual_socket(false);  // cpu0 cpu1 gpu0 gpu1
  const std::string dot = render_topology_dot(t);
  CHECK(dot.rfind("graph G {\n", 0) == 0);
  CHECK(dot.find("subgraph") == std::string::npos);  // one server: no cluster
  CHECK(dot.find("  d2 [label=\"gpu0\", shape=box];\n") != std::string::npos);
  // upi: 40 GB/s -> pen width 1 + 1.5 log10(40) = 3.4
  CHECK(dot.find("  d0 -- d1 [label=\"upi x1\\n40 GB/s\", color=\"#ff7f0e\", penwidth=3.4, "
                 "tooltip=\"cpu0 \u2013 cpu1: 40 GB/s per direction\"];\n") != std::string::npos);
  CHECK(count(dot, " -- ") == t.links().size() / 2);
  CHECK(dot == render_topology_dot(t));
}

TEST_CASE("topo dot: servers are clusters") {
  const Topology t = testing::make_cluster(2, fat_tree(4));
  const std::string dot = render_topology_dot(t);
  CHECK(count(dot, "subgraph cluster_host") == 2);
  CHECK(dot.find("subgraph cluster_host1 {\n    label=\"host1\";") != std::string::npos);
  CHECK(count(dot, " -- ") == t.links().size() / 2);
}

TEST_CASE("topo dot: a big machine collapses to one server in detail and fabric tiers") {
  // 16 servers of 5 devices (cpu0 sw0 gpu0 gpu1 nic0) on a radix-4 fat tree.
  const Topology t = testing::make_cluster(16, fat_tree(4));
  DotOptions options;
  options.collapse_above_devices = 50;
  options.summary_hosts = 2;
  const std::string dot = render_topology_dot(t, options);
  CHECK(count(dot, "subgraph cluster_host") == 3);  // host0 in detail, host1 and host2
  CHECK(dot.find("  host1 [label=\"2 gpu, 1 nic, 1 cpu, 1 pcie_switch\", shape=box3d];") !=
        std::string::npos);
  CHECK(dot.find("more_hosts [label=\"13 more servers\\nhost3..host15\", shape=box3d];") !=
        std::string::npos);
  // Radix 4: 16 NICs need 8 leaves (2 down, 2 up each), and 16 uplinks need spines.
  CHECK(dot.find("tier1 [label=\"leaf \u00d78\", shape=octagon];") != std::string::npos);
  CHECK(dot.find("tier2 [label=\"spine") != std::string::npos);
  // The 13 summarised servers' NIC links merge into one edge with their count and bandwidth.
  CHECK(dot.find("more_hosts -- tier1 [label=\"13 \u00d7 ib_hdr x1\\n325 GB/s\"") !=
        std::string::npos);
  CHECK(dot.find("tooltip=\"host1 \u2013 leaf \u00d78: 25 GB/s per direction\"") !=
        std::string::npos);
  // Without collapsing: every device.
  CHECK(count(render_topology_dot(t), " -- ") == t.links().size() / 2);
}

}  // TEST_SUITE

}  // namespace linksim
