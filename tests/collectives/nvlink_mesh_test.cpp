// SPDX-License-Identifier: Apache-2.0
// NVLink meshes without an NVSwitch: several channels at one lower speed where full-speed rings
// cannot use every lane (docs/model.md#rings).
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "collectives/comm_graph.hpp"
#include "collectives/ring_search.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim {
namespace {

// The complete directed graph on n positions, each hop its own link carrying `capacity`
// channels.
detail::ChannelLedger complete_ledger(int n, double capacity) {
  detail::ChannelLedger ledger;
  ledger.n = n;
  ledger.hop_loads.resize(size_t(n * n));
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      ledger.hop_loads[size_t(a * n + b)] = {{static_cast<int>(ledger.free_channels.size()), 1.0}};
      ledger.free_channels.push_back(capacity);
    }
  }
  return ledger;
}

// How often each directed hop (a, b) is used by the cycles.
std::map<std::pair<int, int>, int> hop_uses(const std::vector<std::vector<int>>& cycles) {
  std::map<std::pair<int, int>, int> uses;
  for (const auto& c : cycles) {
    for (size_t i = 0; i < c.size(); ++i) ++uses[{c[i], c[(i + 1) % c.size()]}];
  }
  return uses;
}

bool is_hamiltonian(const std::vector<int>& cycle, int n) {
  std::vector<bool> seen(size_t(n), false);
  for (int p : cycle) {
    if (p < 0 || p >= n || seen[size_t(p)]) return false;
    seen[size_t(p)] = true;
  }
  return static_cast<int>(cycle.size()) == n;
}

// `n` H100s, every pair joined by `lanes` NVLink 4 lanes, no NVSwitch (the HGX 4-GPU board's
// full mesh when n = 4).
Topology mesh(int n, int lanes) {
  std::string links;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      links += "    - {from: gpu" + std::to_string(a) + ", to: gpu" + std::to_string(b) +
               ", type: nvlink4, lanes: " + std::to_string(lanes) + "}\n";
    }
  }
  return parse_topology("name: mesh\nnode:\n  devices:\n    - {name: cpu0, kind: cpu}\n"
                        "    - {name: \"gpu[0-" + std::to_string(n - 1) +
                            "]\", kind: gpu, model: h100-sxm}\n  links:\n"
                            "    - {from: \"gpu[0-" + std::to_string(n - 1) +
                            "]\", to: cpu0, type: pcie5, width: 16}\n" + links,
                        "input");
}

// The effective capacity of the NVLink from gpu0 to gpu1, bytes/s.
double pair_capacity_Bps(const Topology& t, const detail::CommGraph& g) {
  for (LinkId id : t.out_links(t.gpus()[0])) {
    if (t.link(id).to == t.gpus()[1]) return g.capacities()[id.value];
  }
  FAIL("no gpu0->gpu1 link");
  return 0;
}

}  // namespace

TEST_SUITE("collectives") {

TEST_CASE("nvlink mesh: channels are searched across one another, as Tillson's theorem bounds") {
  // K4 with one channel per hop: its 12 hops are not 3 disjoint Hamiltonian cycles (the
  // complete symmetric digraph on 4 vertices has no such decomposition; Tillson 1980), so 2.
  const auto one = detail::pack_equal_channels(16, 1L << 16, complete_ledger(4, 1.0));
  CHECK(one.size() == 2);
  // With two channels per hop, 6 cycles use each of the 12 hops exactly twice (24 = 6 x 4).
  const auto two = detail::pack_equal_channels(16, 1L << 16, complete_ledger(4, 2.0));
  REQUIRE(two.size() == 6);
  for (const auto& c : two) CHECK(is_hamiltonian(c, 4));
  for (const auto& [hop, uses] : hop_uses(two)) CHECK(uses == 2);
  // K5 decomposes: 20 hops into 4 Hamiltonian cycles, each hop once.
  const auto five = detail::pack_equal_channels(16, 1L << 16, complete_ledger(5, 1.0));
  REQUIRE(five.size() == 4);
  for (const auto& [hop, uses] : hop_uses(five)) CHECK(uses == 1);
  CHECK(hop_uses(five).size() == 20);
  // The caller's limit holds.
  CHECK(detail::pack_equal_channels(3, 1L << 16, complete_ledger(4, 2.0)).size() == 3);
}

TEST_CASE("nvlink mesh: a 4-GPU full mesh sends on all three of each GPU's NVLinks") {
  // Full-speed rings use 8 of the 12 directed links (0123 and its reverse); six rings at half
  // speed use each directed link twice, so each GPU sends on its three links: 3 x one link's
  // effective rate instead of 2 x.
  const Topology t = mesh(4, 6);
  const detail::CommGraph g(t, t.gpus(), CommOptions{});
  const double link_Bps = pair_capacity_Bps(t, g);
  CHECK(g.ring().throughput_Bps == doctest::Approx(3 * link_Bps).epsilon(1e-9));
  REQUIRE(g.ring().rings.size() == 6);
  std::map<std::pair<int, int>, int> uses = hop_uses(g.ring().rings);
  CHECK(uses.size() == 12);
  for (const auto& [hop, count] : uses) CHECK(count == 2);
  for (double w : g.ring().weights) CHECK(w == doctest::Approx(1.0 / 6));
  CHECK(g.ring().bottleneck.kind == BottleneckKind::kLink);
}

TEST_CASE("nvlink mesh: where full-speed rings already use every link, they stay") {
  // Three GPUs: the ring 012 and its reverse use all 6 directed links at full speed.
  const Topology t = mesh(3, 6);
  const detail::CommGraph g(t, t.gpus(), CommOptions{});
  CHECK(g.ring().throughput_Bps == doctest::Approx(2 * pair_capacity_Bps(t, g)).epsilon(1e-9));
  CHECK(g.ring().rings.size() == 2);
}

}  // TEST_SUITE

}  // namespace linksim
