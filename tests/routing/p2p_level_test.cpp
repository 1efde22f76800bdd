// SPDX-License-Identifier: Apache-2.0
// NCCL's P2P level (NCCL_P2P_DISABLE, NCCL_P2P_LEVEL and its CPU-dependent default) and
// NCCL_IB_HCA, as the router applies them (docs/routing.md#p2p-level, #ib-hca).
#include <doctest/doctest.h>

#include <string>

#include "linksim/catalog.hpp"
#include "linksim/error.hpp"
#include "linksim/routing.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/test_topologies.hpp"

using namespace linksim;

namespace {

// Two (or `gpus`) A100 PCIe cards on the root ports of a dual-socket host whose platform is
// the parameter, the first half on socket 0: pairs across the sockets are SYS, on one NODE.
Topology dual_socket(const std::string& platform, int gpus = 2) {
  const std::string last = std::to_string(gpus - 1);
  return parse_topology(R"(
name: dual-socket
params: {platform: generic, last: 1}
node:
  devices:
    - {name: "cpu[0-1]", kind: cpu, platform: "${platform}"}
    - {name: "gpu[0-${last}]", kind: gpu, model: a100-pcie}
  links:
    - {from: cpu0, to: cpu1, type: xgmi}
    - {from: "gpu[0-${last}]", to: "cpu[0-1]", type: pcie4}
)",
                        "input", {{"platform", platform}, {"last", last}});
}

DeviceId gpu(const Topology& t, int index) { return t.gpus()[static_cast<size_t>(index)]; }

const HostPlatform& platform(const char* key) {
  const HostPlatform* p = Catalog::builtin().find_platform(key);
  REQUIRE(p != nullptr);
  return *p;
}

// Two GPUs and two NICs (mlx5_0, mlx5_1) below one PCIe switch, on `nodes` servers.
Topology two_nic_servers(int nodes) {
  return parse_topology(R"(
name: two-nics
params: {nodes: 1}
node:
  devices:
    - {name: cpu0, kind: cpu}
    - {name: sw0, kind: pcie_switch}
    - {name: "gpu[0-1]", kind: gpu, model: h100-sxm}
    - {name: "nic[0-1]", kind: nic, type: ib_ndr, port: "mlx5_[0-1]"}
  links:
    - {from: sw0, to: cpu0, type: pcie5}
    - {from: "gpu[0-1]", to: sw0, type: pcie5}
    - {from: "nic[0-1]", to: sw0, type: pcie5}
nodes: ${nodes}
fabric: {kind: single_switch}
)",
                        "input", {{"nodes", std::to_string(nodes)}});
}

// RouterOptions with one switch set (designated initializers would leave the others to
// -Wmissing-field-initializers).
RouterOptions with_level(PathClass level) {
  RouterOptions o;
  o.p2p_level = level;
  return o;
}
RouterOptions with_hca(const char* hca) {
  RouterOptions o;
  o.ib_hca = parse_ib_hca(hca);
  return o;
}

std::string nic_of(const Router& router, DeviceId g) {
  const auto nic = router.nearest_nic(g);
  return nic ? router.topology().details(*nic).port_name : "none";
}

}  // namespace

TEST_SUITE("routing") {
  TEST_CASE("p2p level: NCCL_P2P_LEVEL names, NCCL's old numbers, and nothing else") {
    CHECK(parse_p2p_level("LOC") == PathClass::kSelf);
    CHECK(parse_p2p_level("nvl") == PathClass::kNvlink);
    CHECK(parse_p2p_level("PIX") == PathClass::kPix);
    CHECK(parse_p2p_level("Pxb") == PathClass::kPxb);
    CHECK(parse_p2p_level("PHB") == PathClass::kPhb);
    CHECK(parse_p2p_level("SYS") == PathClass::kSys);
    // paths.cc levelsOldToNew: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 SYS, 5 SYS; larger numbers SYS.
    CHECK(parse_p2p_level("0") == PathClass::kSelf);
    CHECK(parse_p2p_level("1") == PathClass::kPix);
    CHECK(parse_p2p_level("3") == PathClass::kPhb);
    CHECK(parse_p2p_level("5") == PathClass::kSys);
    CHECK(parse_p2p_level("9") == PathClass::kSys);
    CHECK_FALSE(parse_p2p_level("NODE").has_value());
    CHECK_FALSE(parse_p2p_level("-1").has_value());
    CHECK_FALSE(parse_p2p_level("2x").has_value());
    CHECK_FALSE(parse_p2p_level("").has_value());
    CHECK(p2p_level_name(PathClass::kSelf) == "LOC");
    CHECK(p2p_level_name(PathClass::kNode) == "PHB");
  }

  TEST_CASE("p2p level: NODE counts as PHB, LOC admits nothing") {
    CHECK(within_p2p_level(PathClass::kNode, PathClass::kPhb));
    CHECK_FALSE(within_p2p_level(PathClass::kNode, PathClass::kPxb));
    CHECK_FALSE(within_p2p_level(PathClass::kSys, PathClass::kPhb));
    CHECK(within_p2p_level(PathClass::kNvlink, PathClass::kNvlink));
    CHECK_FALSE(within_p2p_level(PathClass::kNvlink, PathClass::kSelf));
    CHECK_FALSE(within_p2p_level(PathClass::kPix, PathClass::kNvlink));
  }

  TEST_CASE("p2p level: NCCL's default follows the CPU, the GPU count and the release") {
    // NCCL 2.23+: PXB, SYS only on AMD x86 with at most two GPUs.
    CHECK(default_p2p_level(platform("amd-zen2"), 2) == PathClass::kSys);
    CHECK(default_p2p_level(platform("amd-zen2"), 3) == PathClass::kPxb);
    CHECK(default_p2p_level(platform("intel-sapphire-rapids"), 2) == PathClass::kPxb);
    CHECK(default_p2p_level(platform("generic"), 2) == PathClass::kPxb);
    // Before 2.23 (2.16.2 = 21602): SYS, but PXB on Intel, Arm and Zhaoxin.
    CHECK(default_p2p_level(platform("amd-zen2"), 8, 21602) == PathClass::kSys);
    CHECK(default_p2p_level(platform("generic"), 8, 21602) == PathClass::kSys);
    CHECK(default_p2p_level(platform("intel-skylake"), 8, 21602) == PathClass::kPxb);
    CHECK(default_p2p_level(platform("nvidia-grace"), 8, 21602) == PathClass::kPxb);
    CHECK(default_p2p_level(platform("zhaoxin"), 8, 21602) == PathClass::kPxb);
    CHECK(default_p2p_level(platform("amd-zen2"), 8, kNcclPxbDefaultVersion) == PathClass::kPxb);
  }

  TEST_CASE("p2p level: two GPUs on the two sockets of an AMD EPYC host use PCIe P2P") {
    const Topology amd = dual_socket("amd-zen2");
    const Router router(amd);
    CHECK(router.p2p_level() == PathClass::kSys);
    const Route r = router.route(gpu(amd, 0), gpu(amd, 1));
    CHECK(r.cls == PathClass::kSys);
    CHECK(r.transport == Transport::kP2p);
    // The same machine with an Intel CPU, or an explicit NCCL_P2P_LEVEL=PXB: through host memory.
    const Topology intel = dual_socket("intel-skylake");
    CHECK(Router(intel).route(gpu(intel, 0), gpu(intel, 1)).transport == Transport::kShm);
    CHECK(Router(amd, with_level(PathClass::kPxb)).route(gpu(amd, 0), gpu(amd, 1)).transport ==
          Transport::kShm);
  }

  TEST_CASE("p2p level: the AMD rule counts the communicator's GPUs in the server") {
    // Four GPUs (0, 1 on socket 0's root ports, NODE to each other; 2, 3 on socket 1): NCCL
    // sees 4 > 2, PXB; a communicator of two of them sees 2, SYS.
    const Topology amd = dual_socket("amd-zen2", 4);
    CHECK(Router(amd).p2p_level() == PathClass::kPxb);
    CHECK(Router(amd).route(gpu(amd, 0), gpu(amd, 1)).transport == Transport::kShm);
    RouterOptions two;
    two.gpus_per_server = 2;
    const Router pair(amd, two);
    CHECK(pair.p2p_level() == PathClass::kSys);
    CHECK(pair.route(gpu(amd, 0), gpu(amd, 1)).transport == Transport::kP2p);
    // NCCL 2.16: SYS on AMD whatever the count.
    RouterOptions old;
    old.nccl_version = 21602;
    CHECK(Router(amd, old).p2p_level() == PathClass::kSys);
  }

  TEST_CASE("p2p disable: an NVLink pair is diverted through the CPU (level LOC)") {
    // ring4: GPUs 0 and 1 share an NVLink; each sits on its own root port of cpu0 (NODE).
    const Topology t = testing::ring4();
    const Router on(t);
    CHECK(on.route(gpu(t, 0), gpu(t, 1)).transport == Transport::kP2p);
    CHECK(on.route(gpu(t, 0), gpu(t, 1)).cls == PathClass::kNvlink);
    RouterOptions disabled;
    disabled.p2p_disable = true;
    const Router off(t, disabled);
    CHECK(off.p2p_level() == PathClass::kSelf);
    const Route r = off.route(gpu(t, 0), gpu(t, 1));
    CHECK(r.transport == Transport::kShm);
    CHECK(r.cls == PathClass::kNode);  // NCCL: PHB, the path through the CPU
    CHECK(r.nvlinks == 0);
    REQUIRE(r.paths.size() == 1);
    REQUIRE(r.paths[0].links.size() == 2);  // gpu0 -> cpu0 -> gpu1
    CHECK(t.device(t.link(r.paths[0].links[0]).to).kind == DeviceKind::kCpu);
    CHECK(t.link(r.paths[0].links[1]).to == gpu(t, 1));
    // The nvidia-smi matrix is the machine's, whatever NCCL is told.
    CHECK(off.classify(gpu(t, 0), gpu(t, 1)) == PathClass::kNvlink);
    // NCCL_P2P_LEVEL=LOC is the same; NVL keeps NVLink.
    CHECK(Router(t, with_level(PathClass::kSelf)).route(gpu(t, 0), gpu(t, 1)).transport ==
          Transport::kShm);
    CHECK(Router(t, with_level(PathClass::kNvlink)).route(gpu(t, 0), gpu(t, 1)).transport ==
          Transport::kP2p);
  }

  TEST_CASE("p2p level: NVL stages PCIe pairs, SYS opens the socket link") {
    const Topology intel = dual_socket("intel-skylake");
    CHECK(Router(intel, with_level(PathClass::kNvlink)).route(gpu(intel, 0), gpu(intel, 1))
              .transport == Transport::kShm);
    CHECK(Router(intel, with_level(PathClass::kSys)).route(gpu(intel, 0), gpu(intel, 1))
              .transport == Transport::kP2p);
  }

  TEST_CASE("ib hca: NCCL_IB_HCA's syntax: prefixes, '=', '^', ports") {
    const IbHcaFilter prefix = parse_ib_hca("mlx5_1");
    CHECK(prefix.allows("mlx5_1"));
    CHECK(prefix.allows("mlx5_10"));  // a prefix, as NCCL's matchIfList
    CHECK_FALSE(prefix.allows("mlx5_0"));
    const IbHcaFilter exact = parse_ib_hca("=mlx5_1");
    CHECK(exact.allows("mlx5_1"));
    CHECK_FALSE(exact.allows("mlx5_10"));
    const IbHcaFilter excluded = parse_ib_hca("^=mlx5_1,mlx5_2");
    CHECK(excluded.exclude);
    CHECK_FALSE(excluded.allows("mlx5_1"));
    CHECK(excluded.allows("mlx5_0"));
    CHECK(excluded.allows("mlx5_10"));
    const IbHcaFilter ported = parse_ib_hca("mlx5_0:1,mlx5_1:2");
    CHECK(ported.allows("mlx5_0", 1));
    CHECK_FALSE(ported.allows("mlx5_1", 1));
    CHECK(ported.allows("mlx5_1", 2));
    CHECK(IbHcaFilter{}.allows("anything"));
    const std::string form = "linksim: error: expected NCCL_IB_HCA's form [^][=]name[:port][,name[:port]]... ";
    CHECK_THROWS_WITH_AS(parse_ib_hca("^"), (form + "(at least one NIC name), got \"^\"").c_str(),
                         ConfigError);
    CHECK_THROWS_WITH_AS(parse_ib_hca("mlx5_0,,mlx5_1"),
                         (form + "(a NIC name before every ',' and ':'), got \"mlx5_0,,mlx5_1\"")
                             .c_str(),
                         ConfigError);
    CHECK_THROWS_WITH_AS(parse_ib_hca("mlx5_0:x"),
                         (form + "(a port number >= 1 after ':'), got \"mlx5_0:x\"").c_str(),
                         ConfigError);
    CHECK_THROWS_WITH_AS(parse_ib_hca("mlx5_0:0"),
                         (form + "(a port number >= 1 after ':'), got \"mlx5_0:0\"").c_str(),
                         ConfigError);
  }

  TEST_CASE("ib hca: each GPU takes the nearest NIC the filter allows") {
    const Topology t = two_nic_servers(1);
    // Two GPUs and two equally near NICs: GPU k takes NIC k.
    const Router all(t);
    CHECK(nic_of(all, gpu(t, 0)) == "mlx5_0");
    CHECK(nic_of(all, gpu(t, 1)) == "mlx5_1");
    const Router only1(t, with_hca("mlx5_1"));
    CHECK(nic_of(only1, gpu(t, 0)) == "mlx5_1");
    CHECK(nic_of(only1, gpu(t, 1)) == "mlx5_1");
    const Router not1(t, with_hca("^mlx5_1"));
    CHECK(nic_of(not1, gpu(t, 0)) == "mlx5_0");
    CHECK(nic_of(not1, gpu(t, 1)) == "mlx5_0");
    const Router none(t, with_hca("=mlx5"));
    CHECK(nic_of(none, gpu(t, 0)) == "none");
  }

  TEST_CASE("ib hca: a server left without NICs cannot reach the others") {
    const Topology t = two_nic_servers(2);
    const Router none(t, with_hca("=mlx5"));
    CHECK_THROWS_WITH_AS(none.route(t.gpus()[0], t.gpus()[2]),
                         "linksim: error: no network path from host0:gpu0 to host1:gpu0 "
                         "(NCCL_IB_HCA leaves its server no NIC)",
                         ConfigError);
    const Router one(t, with_hca("mlx5_1"));
    const Route r = one.route(t.gpus()[0], t.gpus()[2]);
    CHECK(r.transport == Transport::kNet);
  }
}
