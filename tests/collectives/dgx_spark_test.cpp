// SPDX-License-Identifier: Apache-2.0
// Two DGX Sparks (topologies/dgx-spark.yaml): each QSFP port is two RDMA devices on two PCIe
// Gen5 x4 links, so NCCL reaches the port's 200 Gb/s only with both in NCCL_IB_HCA. Published
// measurements: all_gather at 16 GiB 23.74 GB/s busbw with both (dgx-spark-playbooks#103,
// NCCL 2.28.9, MTU 9000); 98 Gb/s with one device (tonyd2wild/...-2x-DGX-Spark#35).
#include <doctest/doctest.h>

#include "linksim/collectives.hpp"
#include "support/test_topologies.hpp"

using namespace linksim;
using linksim::testing::library_topology;

namespace {

constexpr double kBytes = 17179869184.0;  // 16 GiB, the published row

CollectiveResult allgather(const Topology& t, const CommOptions& options) {
  const Communicator comm(t, t.gpus(), options);
  CollectiveQuery q;
  q.op = CollectiveOp::kAllGather;
  q.size_bytes = kBytes;
  return comm.run(q);
}

}  // namespace

TEST_SUITE("collectives") {
  TEST_CASE("dgx spark: both RDMA devices of a port carry 2 x 0.8 x 15.75 GB/s, one half") {
    const Topology t = library_topology("dgx-spark.yaml");
    REQUIRE(t.gpus().size() == 2);
    CommOptions both;
    both.nccl_version = NcclVersion{2, 28};
    const CollectiveResult r = allgather(t, both);
    // Two ranks: busbw = algbw / 2, the bytes each rank sends over the network per second.
    // Each device's PCIe Gen5 x4 link, 15.75 GB/s at PCIe's 0.8 (docs/model.md#links), binds
    // below its 200 Gb/s port: 2 x 12.6 = 25.2 GB/s, 6 % above the measured 23.74.
    CHECK(r.busbw_Bps == doctest::Approx(25.2e9).epsilon(2e-3));
    CHECK(r.busbw_Bps == doctest::Approx(23.74e9).epsilon(0.08));
    CHECK(r.bottleneck.family == LinkFamily::kPcie);
    // NCCL_IB_HCA naming one device: half, 12.6 GB/s against 98 Gb/s = 12.25 GB/s measured.
    CommOptions one = both;
    one.ib_hca = parse_ib_hca("rocep1s0f0");
    const CollectiveResult half = allgather(t, one);
    CHECK(half.busbw_Bps == doctest::Approx(12.6e9).epsilon(2e-3));
    CHECK(half.busbw_Bps == doctest::Approx(98e9 / 8).epsilon(0.05));
  }
}
