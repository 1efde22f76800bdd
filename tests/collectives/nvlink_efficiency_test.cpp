// SPDX-License-Identifier: Apache-2.0
// Measured NVLink efficiency per GPU generation (docs/model.md#link-efficiency): the fractions
// are the published busbw over raw NVLink, and a ring on NVSwitch sustains exactly that rate.
#include <doctest/doctest.h>

#include "collectives/model_params.hpp"
#include "linksim/collectives.hpp"
#include "support/test_topologies.hpp"

using namespace linksim;

TEST_SUITE("collectives") {
  TEST_CASE("nvlink efficiency: measured fractions per generation, NCCL's constant elsewhere") {
    // Lowest large-message busbw of each generation's tables over raw NVLink per GPU.
    CHECK(detail::measured_nvlink_efficiency(90) == doctest::Approx(361.86 / 450.0));
    CHECK(detail::measured_nvlink_efficiency(80) == doctest::Approx(234.72 / 300.0));
    CHECK(detail::measured_nvlink_efficiency(70) == doctest::Approx(42.36 / 50.0));
    // The realized fraction is the measured one whatever the lane rate (a what-if link keeps it).
    CHECK(detail::nvlink_efficiency(90, 25e9) == doctest::Approx(0.80413).epsilon(1e-4));
    CHECK(detail::nvlink_efficiency(90, 50e9) == doctest::Approx(0.80413).epsilon(1e-4));
    // No shipped table: NCCL topo.h's constant over the lane rate (B200: 40.1 of 50 GB/s).
    CHECK(detail::measured_nvlink_efficiency(100) == 0.0);
    CHECK(detail::nvlink_efficiency(100, 50e9) == doctest::Approx(40.1 / 50.0));
    CHECK(detail::measured_nvlink_efficiency(86) == 0.0);  // one table (A40 pair): NCCL's 12
    CHECK(detail::nvlink_efficiency(86, 14.0625e9) == doctest::Approx(12.0 / 14.0625));
    CHECK(detail::measured_nvlink_efficiency(60) == 0.0);
    CHECK(detail::nvlink_efficiency(60, 20e9) == doctest::Approx(18.0 / 20.0));
    // NCCL's own constant, which the tuner counts, does not move.
    CHECK(detail::nccl_nvlink_bw_Bps(90) == doctest::Approx(20.6e9));
    CHECK(detail::nccl_nvlink_bw_Bps(80) == doctest::Approx(20.0e9));
  }

  TEST_CASE("nvlink efficiency: 8 A100 ring AllReduce tends to 0.782 x 300 GB/s busbw") {
    // DGX A100: 12 NVLink3 lanes of 25 GB/s per GPU into the NVSwitches, raw 300 GB/s. Ring
    // Simple: time = alpha + 1.75 S / B with B = 300 x 234.72 / 300 = 234.72 GB/s; at 16 GiB
    // alpha (tens of us) is below 0.1 % of the 128 ms transfer, so busbw = 234.72 GB/s.
    Topology t = testing::library_topology("dgx-a100.yaml");
    Communicator comm(t, t.gpus());
    CollectiveQuery q;
    q.op = CollectiveOp::kAllReduce;
    q.size_bytes = 16.0 * 1073741824.0;
    q.algorithm = Algorithm::kRing;
    q.protocol = Protocol::kSimple;
    const CollectiveResult r = comm.run(q);
    CHECK(r.busbw_Bps == doctest::Approx(234.72e9).epsilon(1e-3));
    CHECK(r.busbw_Bps < 234.72e9);
  }
}
