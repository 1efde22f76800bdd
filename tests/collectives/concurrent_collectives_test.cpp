// SPDX-License-Identifier: Apache-2.0
// run_concurrent: several communicators' calls in ONE flow simulation (docs/flowsim.md#joint).
// Two 2-rank rings through one NIC per server share it: each carries its bytes at half the
// rate, so its bandwidth-bound time doubles and the latency stays; groups that cross no common
// link finish as they do alone; two PCIe pairs whose rings both cross a switch's uplink halve.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/concurrent_collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/mini_topologies.hpp"
#include "support/test_topologies.hpp"

namespace linksim {
namespace {

constexpr double kSize = 256.0 * 1024 * 1024;

CollectiveQuery flow_query(double bytes) {
  CollectiveQuery q;
  q.op = CollectiveOp::kAllReduce;
  q.size_bytes = bytes;
  q.mode = SimMode::kFlow;
  return q;
}

// One ring alone of `bytes`, checked to be the ring with Simple so that its time is
// alpha + F S / B, and the times of S and 2 S share alpha.
double alone_s(const Communicator& c, double bytes) {
  const CollectiveResult r = c.run(flow_query(bytes));
  REQUIRE(r.algorithm == Algorithm::kRing);
  REQUIRE(r.protocol == Protocol::kSimple);
  return r.time_s;
}


bool touches(const Topology& t, LinkId link, const char* device) {
  const Link& l = t.link(link);
  const DeviceId d = testing::named(t, device);
  return l.from == d || l.to == d;
}

}  // namespace

TEST_SUITE("collectives") {

TEST_CASE("run_concurrent: two rings through one NIC each take the bandwidth time twice") {
  detail::FabricSpec spec;
  spec.kind = detail::FabricKind::kSingleSwitch;
  const Topology t = testing::make_cluster(2, spec);
  const Communicator a(t, {testing::named(t, "host0:gpu0"), testing::named(t, "host1:gpu0")});
  const Communicator b(a, {testing::named(t, "host0:gpu1"), testing::named(t, "host1:gpu1")}, {});
  // alone(S) = alpha + F S / B. Both rings cross nic0 of each server, which gets 2 F S to
  // carry: each finishes at alpha + 2 F S / B = alone(2 S).
  const double one_s = alone_s(a, kSize);
  const double twice_s = alone_s(a, 2 * kSize);
  CHECK(twice_s - one_s > 0.9 * one_s);  // 256 MiB: bandwidth-bound
  const Communicator* both[] = {&a, &b};
  const std::vector<ConcurrentCall> calls = run_concurrent(both, flow_query(kSize));
  REQUIRE(calls.size() == 2);
  for (const ConcurrentCall& call : calls) {
    CHECK(call.algorithm == Algorithm::kRing);
    CHECK(call.protocol == Protocol::kSimple);
    CHECK(call.time_s == doctest::Approx(twice_s).epsilon(1e-9));
    REQUIRE(call.shared_link.has_value());
    // A link of one of the two servers' NICs (nic0 -> switch, or switch -> nic0).
    const bool host0 = touches(t, *call.shared_link, "host0:nic0");
    CHECK(host0 != touches(t, *call.shared_link, "host1:nic0"));
    CHECK(call.shared_link_busy_s > 0);
  }
  CHECK(calls[0].shared_with == std::vector<int>{1});
  CHECK(calls[1].shared_with == std::vector<int>{0});
  CHECK(calls[0].shared_link_with == std::vector<int>{1});
  // The same call listed once: the time alone, nothing shared.
  const Communicator* one[] = {&a};
  const ConcurrentCall single = run_concurrent(one, flow_query(kSize)).front();
  CHECK(single.time_s == doctest::Approx(one_s).epsilon(1e-12));
  CHECK(single.shared_with.empty());
  CHECK_FALSE(single.shared_link.has_value());
}

TEST_CASE("run_concurrent: groups that cross no common link finish as they do alone") {
  // Two tiny-pair servers on their own (no fabric): the NVLink pair of each.
  detail::FabricSpec spec;
  spec.kind = detail::FabricKind::kSingleSwitch;
  const Topology t = testing::make_cluster(2, spec);
  const Communicator a(t, {testing::named(t, "host0:gpu0"), testing::named(t, "host0:gpu1")});
  const Communicator b(a, {testing::named(t, "host1:gpu0"), testing::named(t, "host1:gpu1")}, {});
  const Communicator* both[] = {&a, &b};
  const std::vector<ConcurrentCall> calls = run_concurrent(both, flow_query(kSize));
  CHECK(calls[0].time_s == doctest::Approx(alone_s(a, kSize)).epsilon(1e-12));
  CHECK(calls[1].time_s == doctest::Approx(alone_s(b, kSize)).epsilon(1e-12));
  for (const ConcurrentCall& call : calls) {
    CHECK(call.shared_with.empty());
    CHECK_FALSE(call.shared_link.has_value());
  }
}

TEST_CASE("run_concurrent: two PCIe pairs across one switch uplink halve their rate") {
  const Topology t = testing::shared_uplink_server();
  const Communicator a(t, {testing::named(t, "gpu0"), testing::named(t, "gpu1")});
  const Communicator b(a, {testing::named(t, "gpu2"), testing::named(t, "gpu3")}, {});
  // Every link on the way is the same Gen4 x16: each ring alone runs at its rate B; the two
  // share pciesw0 -> top (and the three other links between the switches), B / 2 each.
  const double one_s = alone_s(a, kSize);
  const double twice_s = alone_s(a, 2 * kSize);
  CHECK(alone_s(b, kSize) == doctest::Approx(one_s).epsilon(1e-12));
  const Communicator* both[] = {&a, &b};
  const std::vector<ConcurrentCall> calls = run_concurrent(both, flow_query(kSize));
  for (const ConcurrentCall& call : calls) {
    CHECK(call.time_s == doctest::Approx(twice_s).epsilon(1e-9));
    REQUIRE(call.shared_link.has_value());
    CHECK(touches(t, *call.shared_link, "top"));
  }
  CHECK(calls[0].shared_link_with == std::vector<int>{1});
}

TEST_CASE("run_concurrent: bad queries and mixed topologies are refused as run() refuses them") {
  detail::FabricSpec spec;
  spec.kind = detail::FabricKind::kSingleSwitch;
  const Topology t = testing::make_cluster(2, spec);
  const Topology other = testing::make_cluster(2, spec);
  const Communicator a(t, {testing::named(t, "host0:gpu0"), testing::named(t, "host1:gpu0")});
  const Communicator b(other, {testing::named(other, "host0:gpu1"),
                               testing::named(other, "host1:gpu1")});
  const Communicator* mixed[] = {&a, &b};
  CHECK_THROWS_WITH_AS(run_concurrent(mixed, flow_query(kSize)),
                       "linksim: error: run_concurrent: expected communicators of one topology",
                       ConfigError);
  const Communicator* one[] = {&a};
  CHECK_THROWS_AS(run_concurrent(one, flow_query(-1)), ConfigError);
  CollectiveQuery broadcast = flow_query(kSize);
  broadcast.op = CollectiveOp::kBroadcast;
  broadcast.root = 2;
  CHECK_THROWS_WITH_AS(run_concurrent(one, broadcast),
                       "linksim: error: root rank 2 does not exist; expected 0..1", ConfigError);
}

}  // TEST_SUITE

}  // namespace linksim
