// SPDX-License-Identifier: Apache-2.0
// Concurrent groups of one kind that load the same link (docs/planner.md#shared-links): two DP
// groups through one NIC per server take twice the bandwidth-bound time of one alone, in both
// simulation modes (the flow mode simulating both groups at once), and the modes agree; two TP
// pairs of a PCIe server whose rings cross one switch uplink likewise; DGX H100 servers, one
// rail NIC per GPU, share nothing.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "linksim/model.hpp"
#include "linksim/plan.hpp"
#include "linksim/plan_explain.hpp"
#include "linksim/plan_report.hpp"
#include "linksim/topology_yaml.hpp"
#include "plan/comm_timer.hpp"
#include "support/mini_topologies.hpp"
#include "support/test_topologies.hpp"

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
// the latency once, the bandwidth-bound part twice. Returns the shared call's time.
double check_shared_nic(SimMode mode, double tolerance) {
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
  REQUIRE(shared.shared_with.size() == 1);  // by whom: the other DP group
  CHECK(shared.shared_with.front() == g.b);

  // One group alone, listed as the only group of its kind: unchanged.
  const plan_detail::TimedCollective single =
      timer.time_concurrent(g.b, [&] { return Groups{g.b}; }, CollectiveOp::kAllReduce, size);
  CHECK(single.time_s == doctest::Approx(timer.time(g.b, CollectiveOp::kAllReduce, size).time_s));
  CHECK(single.shared_slowdown == 1);
  CHECK_FALSE(single.shared_link.has_value());
  CHECK(single.shared_with.empty());
  return shared.time_s;
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
  // Both groups' rings in one flow simulation: each gets half the NIC, alone(2 S) exactly.
  check_shared_nic(SimMode::kFlow, 1e-9);
}

TEST_CASE("shared links: the flow and analytic modes agree on two DP groups through one NIC") {
  // The flow mode's rings run at the analytic rate uncontended (docs/model.md#flow-mode), so
  // the two modes' times alone agree, and so must their times shared.
  const double analytic_s = check_shared_nic(SimMode::kAnalytic, 1e-9);
  const double flow_s = check_shared_nic(SimMode::kFlow, 1e-9);
  CHECK(flow_s == doctest::Approx(analytic_s).epsilon(1e-6));
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
  CHECK(text.find(" x its time alone, 2 groups at once on " + dp->shared_link +
                  "; slowed by host0:gpu1, host1:gpu1\n") != std::string::npos);
  REQUIRE(dp->shared_with.size() == 1);
  CHECK(dp->shared_with.front() == "host0:gpu1, host1:gpu1");
  const std::string json = render_plan_json(p);
  CHECK(json.find("\"shared_groups\": 2") != std::string::npos);
  CHECK(json.find("\"shared_link\": \"" + dp->shared_link + "\"") != std::string::npos);
  CHECK(json.find("\"shared_link\": null") != std::string::npos);  // the TP rows
  CHECK(json.find("\"shared_with\": [\n        \"host0:gpu1, host1:gpu1\"\n      ]") !=
        std::string::npos);
  CHECK(json.find("\"shared_with\": []") != std::string::npos);  // the TP rows
}

TEST_CASE("shared links: the flow mode's plan reports the NIC, its slowdown and the other group") {
  const Topology t = two_servers_one_nic();
  PlanRequest r = train_8b();
  r.tp = 2;
  r.dp = 2;
  const PlanResult analytic = plan(t, r);
  r.sim_mode = SimMode::kFlow;
  const PlanResult flow = plan(t, r);
  const PlanComm* a = dp_comm(analytic);
  const PlanComm* f = dp_comm(flow);
  REQUIRE(a != nullptr);
  REQUIRE(f != nullptr);
  CHECK(f->shared_groups == 2);
  CHECK(f->shared_slowdown > 1.5);
  CHECK(f->shared_slowdown == doctest::Approx(a->shared_slowdown).epsilon(1e-3));
  CHECK(f->shared_link.find("nic0") != std::string::npos);
  CHECK(f->shared_with == std::vector<std::string>{"host0:gpu1, host1:gpu1"});
}

TEST_CASE("shared links: two TP pairs of a PCIe server across one switch uplink, both modes") {
  const Topology t = testing::shared_uplink_server();
  PlanRequest r = train_8b();
  r.tp = 2;
  r.dp = 2;
  for (SimMode mode : {SimMode::kAnalytic, SimMode::kFlow}) {
    CAPTURE(int(mode));
    r.sim_mode = mode;
    const PlanExplanation e = explain_plan(t, r);
    bool tp_seen = false;
    for (const PlanComm& c : e.plan.comms) {
      if (c.kind == "dp") {
        CHECK(c.shared_slowdown == 1);  // gpu0-gpu2 and gpu1-gpu3 each under their own switch
        continue;
      }
      if (c.kind != "tp" || c.bytes < 16e6) continue;
      tp_seen = true;
      // Every link on the rings' way is Gen4 x16: the uplink carries two rings' bytes.
      CHECK(c.shared_groups == 2);
      CHECK(c.shared_slowdown > 1.5);
      CHECK(c.shared_slowdown <= 2.0 + 1e-9);
      CHECK(c.shared_link.find("top") != std::string::npos);
      CHECK(c.shared_with == std::vector<std::string>{"gpu2, gpu3"});
    }
    CHECK(tp_seen);
    bool explained = false;
    for (const ExplainStep& s : e.steps) {
      for (const ExplainTerm& term : s.terms) {
        const bool names_them = term.source.find("slowed by gpu2, gpu3") != std::string::npos;
        if (term.symbol == "shared" && names_them) explained = true;
      }
    }
    CHECK(explained);
  }
}

TEST_CASE("shared links: DGX H100 DP groups, each on its own rail NIC, are not slowed") {
  const Topology t = load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100-ib.yaml",
                                   {{"nodes", "2"}});
  PlanRequest r = train_8b();
  r.tp = 8;
  r.dp = 2;
  for (SimMode mode : {SimMode::kAnalytic, SimMode::kFlow}) {
    CAPTURE(int(mode));
    r.sim_mode = mode;
    const PlanResult p = plan(t, r);
    const PlanComm* dp = dp_comm(p);
    REQUIRE(dp != nullptr);
    CHECK(dp->group_size == 2);
    for (const PlanComm& c : p.comms) {
      CHECK(c.shared_slowdown == 1);
      CHECK(c.shared_link.empty());
      CHECK(c.shared_groups == 0);
      CHECK(c.shared_with.empty());
    }
    // Unchanged: the DP call takes what the group takes alone.
    plan_detail::CommTimer timer(t, CommOptions{}, mode);
    CHECK(dp->time_s ==
          doctest::Approx(dp->count * timer.time(dp->group, dp->collective, dp->bytes).time_s)
              .epsilon(1e-12));
  }
}

}  // TEST_SUITE

}  // namespace linksim
