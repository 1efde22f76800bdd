// SPDX-License-Identifier: Apache-2.0
// Regression: a one-rank collective named its bottleneck from an unset link (a crash on a
// topology without links, "cpu0->cpu1 (upi)" on a DGX with -g 1) and reported algbw = size /
// launch latency. One rank moves no data between GPUs: its bottleneck is none, its busbw is
// nccl-tests' factor at n = 1 (0 for AllReduce, AllGather, ReduceScatter, AllToAll), and its
// time is the out-of-place copy in device memory (docs/model.md#one-rank).
#include <doctest/doctest.h>

#include <string>

#include "linksim/collectives.hpp"
#include "linksim/report.hpp"
#include "linksim/topology_yaml.hpp"

using namespace linksim;

namespace {

// One H100 and nothing else: no link at all.
const char* kSolo = R"(
name: solo
node:
  devices:
    - {name: gpu0, kind: gpu, model: h100-sxm}
)";

CollectiveResult run_one(const Topology& t, CollectiveOp op, double bytes) {
  const Communicator one(t, {t.gpus()[0]});
  CollectiveQuery q;
  q.op = op;
  q.size_bytes = bytes;
  q.algorithm = op == CollectiveOp::kAllToAll || op == CollectiveOp::kSendRecv
                    ? Algorithm::kDirect
                    : Algorithm::kRing;
  q.protocol = Protocol::kSimple;
  return one.run(q);
}

}  // namespace

TEST_SUITE("regress") {

TEST_CASE("one rank: alltoall on a topology without links has no bottleneck") {
  const Topology t = parse_topology(kSolo, "input");
  const CollectiveResult r = run_one(t, CollectiveOp::kAllToAll, 1048576);
  CHECK(r.bottleneck == Bottleneck{});
  CHECK(describe_bottleneck(r, t) == "none (a single rank moves no data between GPUs)");
  CHECK(r.busbw_Bps == 0);  // nccl-tests' alltoall factor (n - 1) / n at n = 1
}

TEST_CASE("one rank: every collective on a DGX H100 names no link") {
  const Topology t = load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100.yaml");
  for (const CollectiveName& name : collective_names()) {
    CAPTURE(name.name);
    const CollectiveResult r = run_one(t, name.op, 1048576);
    CHECK(r.bottleneck == Bottleneck{});
  }
}

TEST_CASE("one rank: allreduce time is the launch plus a device-memory copy") {
  // H100 SXM: 3350 GB/s of HBM at the 0.85 streaming fraction; the copy reads and writes
  // 1 GiB: 2 x 2^30 / (3350e9 x 0.85) = 0.754 ms, after NCCL's ring Simple base 8.4 us (a
  // one-rank ring has no steps). algbw = 2^30 / time; busbw = algbw x 2(1-1)/1 = 0.
  const Topology t = parse_topology(kSolo, "input");
  const double bytes = 1073741824.0;
  const CollectiveResult r = run_one(t, CollectiveOp::kAllReduce, bytes);
  const double time_s = 8.4e-6 + 2 * bytes / (3350e9 * 0.85);
  CHECK(r.time_s == doctest::Approx(time_s).epsilon(1e-9));
  CHECK(r.algbw_Bps == doctest::Approx(bytes / time_s).epsilon(1e-9));
  CHECK(r.busbw_Bps == 0);
  // Broadcast's factor is 1: busbw = algbw.
  const CollectiveResult b = run_one(t, CollectiveOp::kBroadcast, bytes);
  CHECK(b.busbw_Bps == doctest::Approx(b.algbw_Bps).epsilon(1e-12));
}

}  // TEST_SUITE
