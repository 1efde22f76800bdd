// SPDX-License-Identifier: Apache-2.0
// Typed bottlenecks, per-link usage, and the one function that puts bottlenecks in words.
#include <doctest/doctest.h>

#include <string>

#include "linksim/collectives.hpp"
#include "linksim/report.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/test_topologies.hpp"

using namespace linksim;

namespace {

CollectiveResult ring_allreduce(const Communicator& comm, double bytes, SimMode mode) {
  CollectiveQuery q;
  q.size_bytes = bytes;
  q.algorithm = Algorithm::kRing;
  q.protocol = Protocol::kSimple;
  q.mode = mode;
  return comm.run(q);
}

}  // namespace

TEST_SUITE("collectives") {

TEST_CASE("link usage: a ring AllReduce loads every NVLink direction with 0.75 S, in both modes") {
  // Two rings, one each way round, each with half of the data: every directed NVLink link is
  // on one ring and carries half of each rank's 2(n-1)/n x S = 1.5 S, so 0.75 S. At 20.103 GB/s
  // effective (SM90's measured 361.86/450 of 25 GB/s) it is busy 0.75 S / 20.103e9 s. PCIe carries
  // nothing.
  const Topology t = testing::ring4();
  const Communicator comm(t, t.gpus());
  const double S = 1073741824.0;
  for (SimMode mode : {SimMode::kAnalytic, SimMode::kFlow}) {
    CAPTURE(to_string(mode));
    const CollectiveResult r = ring_allreduce(comm, S, mode);
    REQUIRE(r.link_usage.size() == 8);
    for (const LinkUsage& u : r.link_usage) {
      CHECK(t.link(u.link).family == LinkFamily::kNvlink);
      CHECK(u.bytes == doctest::Approx(0.75 * S).epsilon(1e-9));
      CHECK(u.busy_s == doctest::Approx(0.75 * S / (25e9 * 361.86 / 450.0)).epsilon(1e-6));
      CHECK(u.utilization == doctest::Approx(0.75 * S / (25e9 * r.time_s)).epsilon(1e-9));
      CHECK(u.utilization < 1.0);
    }
    CHECK(r.bottleneck.kind == BottleneckKind::kLink);
    CHECK(r.bottleneck.family == LinkFamily::kNvlink);
  }
}

TEST_CASE("link usage: a single rank carries none and has no bottleneck") {
  const Topology t = testing::ring4();
  const Communicator one(t, {t.gpus()[0]});
  const CollectiveResult r = ring_allreduce(one, 1e6, SimMode::kAnalytic);
  CHECK(r.link_usage.empty());
  CHECK(r.bottleneck == Bottleneck{});
  CHECK(describe_bottleneck(r, t) == "none (a single rank moves no data between GPUs)");
}

TEST_CASE("describe_bottleneck: each mechanism in the words reports have always used") {
  const Topology t = testing::ring4();
  Bottleneck link;
  link.kind = BottleneckKind::kLink;
  link.link = LinkId{0};
  link.family = LinkFamily::kPcie;
  CHECK(describe_bottleneck(link, t) == "gpu0->cpu0 (pcie5 x16) [pcie]");
  link.name_family = false;
  CHECK(describe_bottleneck(link, t) == "gpu0->cpu0 (pcie5 x16)");

  Bottleneck staged;
  staged.kind = BottleneckKind::kHostStaging;
  staged.from = t.gpus()[0];
  staged.to = t.gpus()[1];
  CHECK(describe_bottleneck(staged, t) == "host-staged copy gpu0->gpu1 (SHM, no P2P)");
  staged.crosses_socket = true;
  CHECK(describe_bottleneck(staged, t) ==
        "host-staged copy gpu0->gpu1 (SHM across the socket link, no P2P)");

  Bottleneck nvls;
  nvls.kind = BottleneckKind::kNvls;
  nvls.rate_Bps = 450e9;
  CHECK(describe_bottleneck(nvls, t) == "NVLink of each GPU into the NVSwitches (450 GB/s, NVLS)");

  Bottleneck nics;
  nics.kind = BottleneckKind::kServerNics;
  nics.rate_Bps = 384e9;
  CHECK(describe_bottleneck(nics, t) == "server NICs (384 GB/s per server)");
  nics.rate_Bps = 0;
  CHECK(describe_bottleneck(nics, t) == "server NICs (all-to-all across servers)");

  Bottleneck channels;
  channels.kind = BottleneckKind::kP2pChannels;
  channels.size_bytes = 1048576;
  CHECK(describe_bottleneck(channels, t) ==
        "channels of a 1 MiB send over NVLink (NCCL spreads small sends over few channels)");
}

}  // TEST_SUITE
