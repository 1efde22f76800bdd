// SPDX-License-Identifier: Apache-2.0
// NCCL_ALGO and NCCL_PROTO lists (linksim/nccl_lists.hpp): NCCL's own parseList examples
// (src/graph/tuning.cc, the comment above parseList), the tuner choosing within them, and a
// table's environment read by `coll compare` (docs/model.md#tuner-lists).
#include <doctest/doctest.h>

#include <string>

#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/measured.hpp"
#include "linksim/nccl_lists.hpp"
#include "linksim/nccl_tests_output.hpp"
#include "support/test_topologies.hpp"

namespace {

using linksim::Algorithm;
using linksim::CollectiveOp;
using linksim::NcclLists;
using linksim::Protocol;

std::string algo_error(const std::string& text) {
  try {
    NcclLists().apply_algo(text);
  } catch (const linksim::ConfigError& e) {
    return e.message();
  }
  return "";
}

linksim::CollectiveResult all_reduce(const linksim::Topology& t, const NcclLists& lists,
                                     double bytes) {
  linksim::CommOptions options;
  options.nccl_lists = lists;
  const linksim::Communicator c(t, linksim::select_gpus(t, {}), options);
  linksim::CollectiveQuery q;
  q.op = CollectiveOp::kAllReduce;
  q.size_bytes = bytes;
  return c.run(q);
}

}  // namespace

TEST_SUITE("nccl lists") {
  TEST_CASE("by default every algorithm and protocol is left to the tuner") {
    const NcclLists lists;
    CHECK(lists.allows(CollectiveOp::kAllReduce, Algorithm::kNvlsTree));
    CHECK(lists.allows(CollectiveOp::kBroadcast, Protocol::kLL128));
    CHECK(lists.restriction(CollectiveOp::kAllReduce).empty());
  }

  TEST_CASE("^LL128 leaves LL and Simple to the five collectives; AllToAll has no choice") {
    NcclLists lists;
    lists.apply_proto("^LL128");
    for (CollectiveOp op : {CollectiveOp::kBroadcast, CollectiveOp::kReduce,
                            CollectiveOp::kAllGather, CollectiveOp::kReduceScatter,
                            CollectiveOp::kAllReduce}) {
      CHECK_FALSE(lists.allows(op, Protocol::kLL128));
      CHECK(lists.allows(op, Protocol::kLL));
      CHECK(lists.allows(op, Protocol::kSimple));
    }
    CHECK(lists.allows(CollectiveOp::kAllToAll, Protocol::kLL128));
    CHECK(lists.restriction(CollectiveOp::kAllReduce) == "NCCL_PROTO=^LL128");
    CHECK(lists.restriction(CollectiveOp::kAllToAll).empty());
  }

  TEST_CASE("NCCL's examples: a prefixed entry replaces its collective's list") {
    NcclLists a;  // "Enable LL and Simple for all functions, but everything except LL for
                  // allreduce"
    a.apply_proto("LL,Simple;allreduce:^LL");
    CHECK(a.allows(CollectiveOp::kAllGather, Protocol::kLL));
    CHECK_FALSE(a.allows(CollectiveOp::kAllGather, Protocol::kLL128));
    CHECK_FALSE(a.allows(CollectiveOp::kAllReduce, Protocol::kLL));
    CHECK(a.allows(CollectiveOp::kAllReduce, Protocol::kLL128));
    CHECK(a.allows(CollectiveOp::kAllReduce, Protocol::kSimple));

    NcclLists b;  // "Enable everything but LL128, but only LL128 for allreduce"
    b.apply_proto("^LL128;allreduce:LL128");
    CHECK(b.allows(CollectiveOp::kReduceScatter, Protocol::kSimple));
    CHECK_FALSE(b.allows(CollectiveOp::kReduceScatter, Protocol::kLL128));
    CHECK(b.allows(CollectiveOp::kAllReduce, Protocol::kLL128));
    CHECK_FALSE(b.allows(CollectiveOp::kAllReduce, Protocol::kSimple));

    NcclLists c;  // ring and collnetdirect for all, tree and collnetdirect for allreduce, ...
    c.apply_algo("ring,collnetdirect;allreduce:tree,collnetdirect;broadcast:ring");
    CHECK(c.allows(CollectiveOp::kAllGather, Algorithm::kRing));
    CHECK_FALSE(c.allows(CollectiveOp::kAllGather, Algorithm::kNvls));
    CHECK(c.allows(CollectiveOp::kAllReduce, Algorithm::kTree));
    CHECK_FALSE(c.allows(CollectiveOp::kAllReduce, Algorithm::kRing));
    CHECK(c.allows(CollectiveOp::kBroadcast, Algorithm::kRing));
    CHECK(c.allows(CollectiveOp::kSendRecv, Algorithm::kDirect));
  }

  TEST_CASE("names are NCCL's, matched without regard to case") {
    NcclLists lists;
    lists.apply_algo("nvlstree,RING");
    CHECK(lists.allows(CollectiveOp::kAllReduce, Algorithm::kNvlsTree));
    CHECK(lists.allows(CollectiveOp::kAllReduce, Algorithm::kRing));
    CHECK_FALSE(lists.allows(CollectiveOp::kAllReduce, Algorithm::kNvls));
    CHECK_FALSE(lists.allows(CollectiveOp::kAllReduce, Algorithm::kTree));
  }

  TEST_CASE("a malformed list names what NCCL would refuse") {
    CHECK(algo_error("Ring,Star") ==
          "expected algorithms of Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT "
          "(NCCL's names), got 'Star' in \"Ring,Star\"");
    CHECK(algo_error("ring;tree") ==
          "expected a 'collective:' prefix on every entry after the first, got 'tree' in "
          "\"ring;tree\"");
    CHECK(algo_error("sendrecv:ring") ==
          "expected a collective prefix of Broadcast, Reduce, AllGather, ReduceScatter, "
          "AllReduce (NCCL's names), got 'sendrecv' in \"sendrecv:ring\"");
  }

  TEST_CASE("a front end's value: one name forces it, a list goes to the communicator") {
    NcclLists lists;
    CHECK(linksim::algorithm_or_list("tree", lists) == Algorithm::kTree);
    CHECK(lists.restriction(CollectiveOp::kAllReduce).empty());
    CHECK(linksim::protocol_or_list("^ll128", lists) == Protocol::kAuto);
    CHECK_FALSE(lists.allows(CollectiveOp::kAllReduce, Protocol::kLL128));
    CHECK_THROWS_WITH_AS(linksim::protocol_or_list("fast", lists),
                         "linksim: error: expected one of auto, ll, ll128, simple, or an "
                         "NCCL_PROTO list (^ll128 | ll,simple), got \"fast\"",
                         linksim::ConfigError);
  }

  TEST_CASE("the tuner chooses within the lists: two H100 servers at 512 KiB") {
    const linksim::Topology t = linksim::testing::library_topology("dgx-h100-ib.yaml",
                                                                   {{"nodes", "2"}});
    const double bytes = 524288;
    // NCCL's own choice here is tree LL128 (docs/validation.md, calibration 106's row).
    const linksim::CollectiveResult free = all_reduce(t, {}, bytes);
    CHECK(free.algorithm == Algorithm::kTree);
    CHECK(free.protocol == Protocol::kLL128);
    NcclLists no_ll128;
    no_ll128.apply_proto("^LL128");
    const linksim::CollectiveResult without = all_reduce(t, no_ll128, bytes);
    CHECK(without.protocol != Protocol::kLL128);
    NcclLists ring_only;
    ring_only.apply_algo("allgather:nvls;allreduce:ring");
    const linksim::CollectiveResult ring = all_reduce(t, ring_only, bytes);
    CHECK(ring.algorithm == Algorithm::kRing);
    NcclLists collnet;
    collnet.apply_algo("CollNetDirect");
    CHECK_THROWS_WITH_AS(all_reduce(t, collnet, bytes),
                         "linksim: error: NCCL_ALGO=CollNetDirect left allreduce no algorithm "
                         "and protocol linksim can run on these 16 GPUs (NCCL: \"no "
                         "algorithm/protocol available\")",
                         linksim::ConfigError);
  }

  TEST_CASE("compare reads NCCL_ALGO and NCCL_PROTO from a table's environment") {
    const std::string header =
        "# gpus_per_node: 8\n# nodes: 2\n# collective: all_reduce\n# env: NCCL_PROTO=^LL128 "
        "NCCL_ALGO=Ring,Tree\n# ----\n"
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "   1048576 262144 float sum -1 100.0 10.49 19.66 0 100.0 10.49 19.66 0\n";
    const linksim::MeasuredSetup s =
        linksim::measured_setup(linksim::parse_nccl_tests_output(header, "run.txt"));
    CHECK_FALSE(s.options.nccl_lists.allows(CollectiveOp::kAllReduce, Protocol::kLL128));
    CHECK_FALSE(s.options.nccl_lists.allows(CollectiveOp::kAllReduce, Algorithm::kNvlsTree));
    CHECK(s.options.nccl_lists.allows(CollectiveOp::kAllReduce, Algorithm::kTree));
    const std::string bad = "# gpus_per_node: 8\n# nodes: 1\n# collective: all_reduce\n"
                            "# env: NCCL_PROTO=^LL64\n# ----\n" +
                            header.substr(header.find("#  size"));
    CHECK_THROWS_WITH_AS(
        linksim::measured_setup(linksim::parse_nccl_tests_output(bad, "run.txt")),
        "run.txt:1:1: error: NCCL_PROTO=^LL64: expected protocols of LL, LL128, Simple "
        "(NCCL's names), got 'LL64' in \"^LL64\"",
        linksim::ConfigError);
  }
}
