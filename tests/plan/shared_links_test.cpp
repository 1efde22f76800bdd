// SPDX-License-Identifier: Apache-2.0
// Concurrent groups of one kind that load the same link (docs/planner.md#shared-links): two DP
// groups through one NIC per server take twice the bandwidth-bound time of one alone, in both
// simulation modes; DGX H100 servers, one rail NIC per GPU, share nothing.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "linksim/model.hpp"
#include "linksim/plan.hpp"
#include "linksim/plan_report.hpp"
#include "linksim/topology_yaml.hpp"
#include "plan/comm_timer.hpp"
#include "support/mini_topologies.hpp"

namespace linksim {
namespace {

// Two tiny-pair servers (gpu0, gpu1 and one ib_hdr NIC each under one PCIe switch) on one
// switch: the DP group of gpu0 and that of gpu1 both leave through nic0.
Topology two_servers_one_nic() {
  detail::FabricSpec spec;
  spec.kind = detail::FabricKind::kSingleSwitch;
  return testing::make_cluster(2, spec);
}

struct TwoGroups {
  std::vector<DeviceId> a, b;
};

TwoGroups dp_groups(const Topology& t) {
  return {{testing::named(t, "host0:gpu0"), testing::named(t, "host1:gpu0")},
          {testing::named(t, "host0:gpu1"), testing::named(t, "host1:gpu1")}};
}

// Hand derivation: a ring AllReduce of S bytes takes alpha + S / B. Two such groups on one
// NIC give it 2 S to carry, so each takes alpha + 2 S / B = alone(S) + (alone(2 S) - alone(S)):
// the latency once, the bandwidth-bound part twice.
void check_shared_nic(SimMode mode, double tolerance) {
  const Topology t = two_servers_one_nic();
  const TwoGroups g = dp_groups(t);
  const double size = 256.0 * 1024 * 1024;
  plan_detail::CommTimer timer(t, CommOptions{}, mode);
  const plan_detail::TimedCollective alone = timer.time(g.a, CollectiveOp::kAllReduce, size);
  const plan_detail::TimedCollective alone_twice =
      timer.time(g.a, CollectiveOp::kAllReduce, 2 * size);
  REQUIRE(alone.algorithm == Algorithm::kRing);
  REQUIRE(alone_twice.algorithm == Algorithm::kRing);
  REQUIRE(alone.bottleneck.kind == BottleneckKind::kLink);
  CHECK(alone.bottleneck.family == LinkFamily::kNetwork);
  const double bandwidth_s = alone_twice.time_s - alone.time_s;
  CHECK(bandwidth_s > 0.5 * alone.time_s);  // 256 MiB: bandwidth-bound

  using Groups = std::vector<std::vector<DeviceId>>;
  const plan_detail::TimedCollective shared =
      timer.time_concurrent(g.a, [&] { return Groups{g.a, g.b}; }, CollectiveOp::kAllReduce, size);
  CHECK(shared.alone_s == doctest::Approx(alone.time_s));
  CHECK(shared.time_s == doctest::Approx(alone.time_s + bandwidth_s).epsilon(tolerance));
  CHECK(shared.shared_slowdown == doctest::Approx(shared.time_s / alone.time_s));
  CHECK(shared.shared_groups == 2);
  REQUIRE(shared.shared_link.has_value());
  const Link& link = t.link(*shared.shared_link);
  const bool nic_link = t.device(link.from).kind == DeviceKind::kNic ||
                        t.device(link.to).kind == DeviceKind::kNic;
  CHECK(nic_link);

  // One group alone, listed as the only group of its kind: unchanged.
  const plan_detail::TimedCollective single =
      timer.time_concurrent(g.b, [&] { return Groups{g.b}; }, CollectiveOp::kAllReduce, size);
  CHECK(single.time_s == doctest::Approx(timer.time(g.b, CollectiveOp::kAllReduce, size).time_s));
  CHECK(single.shared_slowdown == 1);
  CHECK_FALSE(single.shared_link.has_value());
}

PlanRequest train_8b() {
  PlanRequest r;
  r.model = ModelCatalog::builtin().get("llama3.1-8b");
  r.mode = PlanMode::kTrain;
  r.compute_baseline = false;
  r.zero = 0;
  return r;
}

const PlanComm* dp_comm(const PlanResult& p) {
  for (const PlanComm& c : p.comms) {
    if (c.kind == "dp" && c.collective == CollectiveOp::kAllReduce) return &c;
  }
  return nullptr;
}

}  // namespace

TEST_SUITE("plan") {

TEST_CASE("shared links: two DP groups through one NIC take twice the bandwidth time, analytic") {
  check_shared_nic(SimMode::kAnalytic, 1e-9);
}

TEST_CASE("shared links: two DP groups through one NIC take twice the bandwidth time, flow") {
  // Each group's time is its own flow simulation; the sharing is counted on its link usage.
  check_shared_nic(SimMode::kFlow, 0.02);
}

TEST_CASE("shared links: the plan's DP row reports the NIC its two groups share") {
  const Topology t = two_servers_one_nic();
  PlanRequest r = train_8b();
  r.tp = 2;
  r.dp = 2;
  const PlanResult p = plan(t, r);
  const PlanComm* dp = dp_comm(p);
  REQUIRE(dp != nullptr);
  CHECK(dp->group_size == 2);
  CHECK(dp->shared_groups == 2);
  CHECK(dp->shared_slowdown > 1.5);
  CHECK(dp->shared_slowdown < 2.0);  // the latency terms are not doubled
  CHECK(dp->shared_link.find("nic0") != std::string::npos);
  // The TP pair stays on its NVLink inside the server: nothing shared.
  for (const PlanComm& c : p.comms) {
    if (c.kind == "tp") CHECK(c.shared_slowdown == 1);
  }
  const std::string text = render_plan_text(p);
  CHECK(text.find("  shared: dp step allreduce ") != std::string::npos);
  CHECK(text.find(" x its time alone, 2 groups at once on " + dp->shared_link) != std::string::npos);
  const std::string json = render_plan_json(p);
  CHECK(json.find("\"shared_groups\": 2") != std::string::npos);
  CHECK(json.find("\"shared_link\": \"" + dp->shared_link + "\"") != std::string::npos);
  CHECK(json.find("\"shared_link\": null") != std::string::npos);  // the TP rows
}

TEST_CASE("shared links: DGX H100 DP groups, each on its own rail NIC, are not slowed") {
  const Topology t = load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100-ib.yaml",
                                   {{"nodes", "2"}});
  PlanRequest r = train_8b();
  r.tp = 8;
  r.dp = 2;
  const PlanResult p = plan(t, r);
  const PlanComm* dp = dp_comm(p);
  REQUIRE(dp != nullptr);
  CHECK(dp->group_size == 2);
  for (const PlanComm& c : p.comms) {
    CHECK(c.shared_slowdown == 1);
    CHECK(c.shared_link.empty());
    CHECK(c.shared_groups == 0);
  }
}

}  // TEST_SUITE

}  // namespace linksim
