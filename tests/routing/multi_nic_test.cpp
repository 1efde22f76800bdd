// SPDX-License-Identifier: Apache-2.0
// GPUs with several NICs of their own (OCI's dual-port cards, two ports per GPU): the router
// gives each GPU every port NCCL would spread its channels over, a route between servers
// one path per port, and a communicator counts every port (docs/routing.md#nics).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "collectives/comm_graph.hpp"
#include "linksim/routing.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/test_topologies.hpp"

namespace linksim {
namespace {

// Two GPUs and `ports` RoCE 100 GbE ports (12.5 GB/s each) under one PCIe Gen4 switch, on two
// servers joined by one switch.
Topology ports_under_one_switch(int ports) {
  return parse_topology(R"(
name: ports
params: {last: 3}
node:
  devices:
    - {name: cpu0, kind: cpu}
    - {name: sw0, kind: pcie_switch}
    - {name: "gpu[0-1]", kind: gpu, model: a100-sxm-40g}
    - {name: "nic[0-${last}]", kind: nic, type: roce_100, port: "mlx5_[0-${last}]"}
  links:
    - {from: sw0, to: cpu0, type: pcie4}
    - {from: "gpu[0-1]", to: sw0, type: pcie4}
    - {from: "nic[0-${last}]", to: sw0, type: pcie4, width: 8}
nodes: 2
fabric: {kind: single_switch}
)",
                        "input", {{"last", std::to_string(ports - 1)}});
}

// The port names of server 0's NICs a GPU sends through.
std::vector<std::string> port_names(const Router& router, DeviceId gpu) {
  std::vector<std::string> names;
  for (DeviceId nic : router.nics(gpu)) names.push_back(router.topology().details(nic).port_name);
  return names;
}

// The NIC a path leaves its source server through.
std::string exit_port(const Topology& t, const Path& path) {
  for (LinkId id : path.links) {
    const Device& to = t.device(t.link(id).to);
    if (to.kind == DeviceKind::kNic) return t.details(to).port_name;
  }
  return "none";
}

// Every field of two routes is the same (the paths link by link, the shares exactly).
void check_same_route(const Route& got, const Route& want) {
  CHECK(got.src == want.src);
  CHECK(got.dst == want.dst);
  CHECK(got.cls == want.cls);
  CHECK(got.nvlinks == want.nvlinks);
  CHECK(got.transport == want.transport);
  CHECK(got.bw_Bps == want.bw_Bps);
  CHECK(got.latency_s == want.latency_s);
  CHECK(got.bottleneck == want.bottleneck);
  CHECK(got.proxy == want.proxy);
  REQUIRE(got.paths.size() == want.paths.size());
  for (size_t p = 0; p < got.paths.size(); ++p) {
    CHECK(got.paths[p].share == want.paths[p].share);
    CHECK(got.paths[p].links == want.paths[p].links);
  }
}

}  // namespace

TEST_SUITE("routing") {

TEST_CASE("multi-port nics: two GPUs and four ports under a switch take two ports each") {
  const Topology t = ports_under_one_switch(4);
  const Router router(t);
  const std::vector<DeviceId> gpus = t.gpus();  // server 0: gpu0, gpu1; server 1: gpu0, gpu1
  // GPU k of the two sharing the set drives ports k and k + 2 (NCCL's channels in turn).
  CHECK(port_names(router, gpus[0]) == std::vector<std::string>{"mlx5_0", "mlx5_2"});
  CHECK(port_names(router, gpus[1]) == std::vector<std::string>{"mlx5_1", "mlx5_3"});
  CHECK(t.details(*router.nearest_nic(gpus[0])).port_name == "mlx5_0");
  // Across servers: one path per port, half the bytes each; each path's bottleneck is its
  // 12.5 GB/s port, so the route carries 12.5 / 0.5 = 25 GB/s.
  const Route r = router.route(gpus[0], gpus[2]);
  REQUIRE(r.paths.size() == 2);
  CHECK(exit_port(t, r.paths[0]) == "mlx5_0");
  CHECK(exit_port(t, r.paths[1]) == "mlx5_2");
  CHECK(r.paths[0].share == doctest::Approx(0.5));
  CHECK(r.paths[1].share == doctest::Approx(0.5));
  CHECK(r.bw_Bps == doctest::Approx(25e9));
  CHECK(r.transport == Transport::kNet);
}

TEST_CASE("multi-port nics: fewer than two ports a GPU keep one NIC each, in turn") {
  const Topology t = ports_under_one_switch(3);
  const Router router(t);
  const std::vector<DeviceId> gpus = t.gpus();
  CHECK(port_names(router, gpus[0]) == std::vector<std::string>{"mlx5_0"});
  CHECK(port_names(router, gpus[1]) == std::vector<std::string>{"mlx5_1"});
  const Route r = router.route(gpus[1], gpus[3]);
  REQUIRE(r.paths.size() == 1);
  CHECK(r.bw_Bps == doctest::Approx(12.5e9));
}

TEST_CASE("multi-port nics: an OCI BM.GPU4.8 server sends through all sixteen ports") {
  // 8 A100s, 16 RoCE 100 GbE ports, 4 PCIe switches of 2 GPUs and 4 ports each.
  const Topology t = testing::library_topology("oci-a100-roce.yaml");
  const Router router(t);
  CHECK(router.nics(t.gpus()[0]).size() == 2);
  const detail::CommGraph g(t, t.gpus(), CommOptions{});
  CHECK(g.node_nic_count() == 16);
  // Each 100 Gb/s port at the network efficiency of 0.96 (docs/model.md): 16 x 12 GB/s.
  CHECK(g.node_network_Bps() == doctest::Approx(16 * 12.5e9 * 0.96));
}

TEST_CASE("multi-port nics: a DGX H100 keeps one NIC per GPU") {
  const Topology t = testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
  const Router router(t);
  for (DeviceId gpu : t.gpus()) CHECK(router.nics(gpu).size() == 1);
}

TEST_CASE("router: a route written into a reused route equals the route by value") {
  // One Route filled in turn with routes of two paths (four ports, two a GPU), of one path
  // (two ports, one a GPU) and inside a server, each the same as route_paths by value: a
  // longer route before leaves nothing behind.
  const Topology four = ports_under_one_switch(4);
  const Topology two = ports_under_one_switch(2);
  const Router wide(four);
  const Router narrow(two);
  Route reused;
  const std::vector<DeviceId> g4 = four.gpus();
  const std::vector<DeviceId> g2 = two.gpus();
  wide.route_paths(g4[1], g4[2], &reused);
  REQUIRE(reused.paths.size() == 2);
  check_same_route(reused, wide.route_paths(g4[1], g4[2]));
  narrow.route_paths(g2[0], g2[3], &reused);
  REQUIRE(reused.paths.size() == 1);
  check_same_route(reused, narrow.route_paths(g2[0], g2[3]));
  CHECK(reused.bw_Bps == 0);  // between servers: no summary
  narrow.route_paths(g2[2], g2[3], &reused);
  check_same_route(reused, narrow.route(g2[2], g2[3]));
  wide.route_paths(g4[3], g4[0], &reused);
  check_same_route(reused, wide.route_paths(g4[3], g4[0]));
}

}  // TEST_SUITE

}  // namespace linksim
