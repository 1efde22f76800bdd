// SPDX-License-Identifier: Apache-2.0
// Flow and analytic modes agree on a non-blocking fabric at every tier count: DGX H100
// servers on the rail-optimized tree of dgx-h100-ib.yaml, with radix-16 switches standing in
// for radix-64 ones so that three and four tiers (and one plane per rail) appear at a few
// hundred servers. The analytic mode assumes the fabric carries the servers' NIC rate; the
// flow mode routes every transfer over it, so a routing or wiring error that makes flows
// share a link shows as a difference (docs/fabrics.md#dmodk). bench/fabric_agreement.sh runs
// the same check on radix 64 up to 16,384 servers.
#include <doctest/doctest.h>

#include <string>

#include "linksim/collectives.hpp"
#include "linksim/fabric_summary.hpp"
#include "support/test_topologies.hpp"

using namespace linksim;

namespace {

double allreduce_s(const Communicator& comm, SimMode mode) {
  CollectiveQuery q;
  q.op = CollectiveOp::kAllReduce;
  q.size_bytes = 1073741824.0;
  q.mode = mode;
  return comm.run(q).time_s;
}

}  // namespace

TEST_SUITE("collectives") {
  TEST_CASE("collectives: flow and analytic agree within 1% on fabrics of 1 to 4 tiers") {
    struct Case {
      const char* nodes;
      const char* planes;
      const char* fabric;  // what the generator chose
    };
    // radix 16, 1:1: 8 NIC ports per leaf, one leaf per rail per 8 servers; pods of 8 leaves.
    const Case cases[] = {
        {"2", "auto", "1 plane of 2 tiers: 8 leaves, 4 spines"},
        {"16", "auto", "1 plane of 2 tiers: 16 leaves, 8 spines"},
        // 16 leaves per rail x 8 = 128 leaves in 16 pods: three tiers, the most one plane
        // holds. Numbering destinations by device id put 1.47x the NIC load on a spine-to-core
        // link here before D-mod-k took one digit per tier.
        {"128", "auto", "1 plane of 3 tiers: 128 leaves, 128 spines, 64 cores"},
        {"256", "auto", "8 planes (one per rail) of 3 tiers: 256 leaves, 256 spines, 128 cores in all"},
        {"256", "single", "1 plane of 4 tiers: 256 leaves, 256 spines, 256 cores, 128 super-cores"},
    };
    for (const Case& c : cases) {
      const std::string nodes = c.nodes, planes = c.planes;
      CAPTURE(nodes);
      CAPTURE(planes);
      const Topology t = testing::library_topology(
          "dgx-h100-ib.yaml", {{"nodes", c.nodes}, {"radix", "16"}, {"planes", c.planes}});
      CHECK(describe_fabric(summarize_fabric(t)) == c.fabric);
      const Communicator comm(t, t.gpus());
      const double analytic = allreduce_s(comm, SimMode::kAnalytic);
      CHECK(allreduce_s(comm, SimMode::kFlow) == doctest::Approx(analytic).epsilon(0.01));
    }
  }
}
