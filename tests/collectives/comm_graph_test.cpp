// SPDX-License-Identifier: Apache-2.0
// CommGraph: routes visited without being kept, and the per-communicator values the
// estimates read instead of recomputing (docs/flowsim.md#measured, the analytic engine).
#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "collectives/comm_graph.hpp"
#include "collectives/nccl_tuner_model.hpp"
#include "linksim/gpu_selection.hpp"
#include "support/test_topologies.hpp"

namespace linksim {
namespace {

std::vector<uint32_t> link_ids(const Route& r) {
  std::vector<uint32_t> out;
  for (const Path& p : r.paths) {
    for (LinkId id : p.links) out.push_back(id.value);
  }
  return out;
}

}  // namespace

TEST_SUITE("collectives") {

TEST_CASE("comm graph: with_route visits the route route() returns, cached or not") {
  const Topology t = testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "4"}});
  const detail::CommGraph g(t, t.gpus(), CommOptions{});
  // Across servers (PXN: gpu1 of server 0 hands over to gpu2, whose NIC sends), inside one,
  // and a pair the rings cross.
  for (const auto& [a, b] : std::vector<std::pair<int, int>>{{1, 10}, {3, 5}, {7, 8}, {31, 0}}) {
    std::vector<uint32_t> visited;
    double visited_bw = 0;
    g.with_route(a, b, [&](const Route& r) {
      visited = link_ids(r);
      visited_bw = r.bw_Bps;
    });
    const Route& kept = g.route(a, b);  // computes and keeps it
    CHECK(visited == link_ids(kept));
    CHECK(visited_bw == kept.bw_Bps);
    bool visited_kept = false;
    g.with_route(a, b, [&](const Route& r) { visited_kept = &r == &kept; });
    CHECK(visited_kept);  // now the cached one itself
  }
}

TEST_CASE("comm graph: route_paths into one scratch route gives route()'s paths for every pair") {
  // Every pair of two servers (PXN hand-overs by NVLink, pairs on one rail, pairs in one
  // server) written in turn into one scratch route, against routes computed afresh: a second
  // graph whose cache route() fills.
  const Topology t = testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
  const detail::CommGraph g(t, t.gpus(), CommOptions{});
  const detail::CommGraph kept(t, t.gpus(), CommOptions{});
  Route scratch;
  int handed_over = 0;
  for (int a = 0; a < 16; ++a) {
    for (int b = 0; b < 16; ++b) {
      if (a == b) continue;
      const Route& r = g.route_paths(a, b, &scratch);
      CHECK(&r == &scratch);  // nothing cached in g
      const Route& want = kept.route(a, b);
      CHECK(r.src == want.src);
      CHECK(r.dst == want.dst);
      CHECK(r.cls == want.cls);
      CHECK(r.transport == want.transport);
      CHECK(r.proxy == want.proxy);
      REQUIRE(r.paths.size() == want.paths.size());
      for (size_t i = 0; i < r.paths.size(); ++i) {
        CHECK(r.paths[i].share == want.paths[i].share);
        CHECK(r.paths[i].links == want.paths[i].links);
      }
      handed_over += r.proxy.has_value() ? 1 : 0;
    }
  }
  // A GPU's peers on the other server: 7 of 8 on another rail, so 2 x 8 x 7 hand-overs.
  CHECK(handed_over == 2 * 8 * 7);
}

TEST_CASE("comm graph: the emptiest server and NCCL's ring graph are kept") {
  const Topology t = testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "3"}});
  // 8 GPUs of server 0, 8 of server 1 and 3 of server 2.
  std::vector<DeviceId> ranks(t.gpus().begin(), t.gpus().begin() + 19);
  const detail::CommGraph g(t, ranks, CommOptions{});
  CHECK(g.node_count() == 3);
  CHECK(g.max_ranks_per_node() == 8);
  CHECK(g.min_ranks_per_node() == 3);
  const detail::SearchedGraph searched = detail::search_nccl_ring_graph(g);
  CHECK(g.nccl_ring_graph().channels == searched.channels);
  CHECK(g.nccl_ring_graph().speed_GBps == searched.speed_GBps);
  CHECK(g.nccl_ring_graph().channels > 0);
}

TEST_CASE("comm graph: a sibling shares the topology's tables and answers as a fresh one") {
  const Topology t = testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "4"}});
  const std::vector<DeviceId> all = t.gpus();
  const detail::CommGraph first(t, std::vector<DeviceId>(all.begin(), all.begin() + 8), CommOptions{});
  // One GPU per server (a data-parallel group) and two whole servers.
  std::vector<DeviceId> rail;
  for (size_t i = 0; i < all.size(); i += 8) rail.push_back(all[i]);
  const std::vector<DeviceId> two(all.begin() + 8, all.begin() + 24);
  for (const auto& ranks : {rail, two}) {
    const detail::CommGraph sibling(t, ranks, CommOptions{}, first);
    CHECK(&sibling.capacities() == &first.capacities());
    const detail::CommGraph fresh(t, ranks, CommOptions{});
    CHECK(sibling.capacities() == fresh.capacities());
    CHECK(sibling.ring().throughput_Bps == fresh.ring().throughput_Bps);
    CHECK(link_ids(sibling.route(0, 1)) == link_ids(fresh.route(0, 1)));
  }
  // Through the public API: the same results, analytic and flow.
  const Communicator base(t, std::vector<DeviceId>(all.begin(), all.begin() + 8));
  const Communicator shared(base, rail, CommOptions{});
  const Communicator alone(t, rail);
  for (const SimMode mode : {SimMode::kAnalytic, SimMode::kFlow}) {
    for (const CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kAllToAll}) {
      CollectiveQuery q;
      q.op = op;
      q.size_bytes = 64.0 * 1048576;
      q.mode = mode;
      const CollectiveResult a = shared.run(q);
      const CollectiveResult b = alone.run(q);
      CHECK(a.time_s == b.time_s);
      CHECK(a.algorithm == b.algorithm);
      CHECK(a.link_usage.size() == b.link_usage.size());
    }
  }
}

TEST_CASE("comm graph: the rings' link loads, computed on first use, bound the ring plan's rate") {
  // The plan's throughput is the largest rate the loaded links allow (StreamSet::limit): the
  // smallest capacity / load over the loads computed later, at the plan's bottleneck link.
  for (const auto& machine : std::vector<std::pair<std::string, std::string>>{
           {"dgx-h100.yaml", "1"}, {"dgx-h100-ib.yaml", "2"}, {"dgx-h100-ib.yaml", "4"}}) {
    // Named copies, not structured bindings: CAPTURE's lambda cannot name those under clang.
    const std::string& file = machine.first;
    const std::string& nodes = machine.second;
    CAPTURE(file);
    CAPTURE(nodes);
    const Topology t = file == "dgx-h100.yaml"
                           ? testing::library_topology(file)
                           : testing::library_topology(file, {{"nodes", nodes}});
    const detail::CommGraph g(t, t.gpus(), CommOptions{});
    const auto& loads = g.ring_link_loads();
    CHECK(&g.ring_link_loads() == &loads);  // kept
    REQUIRE_FALSE(loads.empty());
    double rate_Bps = std::numeric_limits<double>::infinity();
    LinkId bottleneck;
    for (const auto& [link, load] : loads) {
      CHECK(load > 0);
      if (g.capacities()[link.value] / load < rate_Bps) {
        rate_Bps = g.capacities()[link.value] / load;
        bottleneck = link;
      }
    }
    REQUIRE(g.ring().bottleneck.kind == BottleneckKind::kLink);
    CHECK(rate_Bps == g.ring().throughput_Bps);
    CHECK(bottleneck == g.ring().bottleneck.link);
  }
  // A single rank crosses no link.
  const Topology one = testing::library_topology("dgx-h100.yaml");
  const detail::CommGraph alone(one, {one.gpus()[0]}, CommOptions{});
  CHECK(alone.ring_link_loads().empty());
}

}  // TEST_SUITE

}  // namespace linksim
