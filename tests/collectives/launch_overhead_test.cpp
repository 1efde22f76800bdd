// SPDX-License-Identifier: Apache-2.0
// One thread launching several GPUs (nccl-tests -g N; docs/model.md#launch-overhead): from NCCL
// 2.9 its launches overlap the GPUs' run of the previous call, t = max(N x 4.8 us, device);
// before, in GROUP launch mode, they add to it. Expected values from the rule by hand, against
// the same communicator with one GPU a thread (the device's time alone).
#include <doctest/doctest.h>

#include <string>

#include "linksim/collectives.hpp"
#include "linksim/explain.hpp"
#include "linksim/gpu_selection.hpp"
#include "support/test_topologies.hpp"

namespace {

using linksim::CollectiveOp;
using linksim::NcclVersion;

constexpr double kLaunches8_s = 8 * 4.8e-6;  // 8 GPUs x t_launch

double all_reduce_s(const linksim::Topology& t, int gpus_per_thread, NcclVersion version,
                    double bytes, linksim::SimMode mode = linksim::SimMode::kAnalytic) {
  linksim::CommOptions options;
  options.gpus_per_thread = gpus_per_thread;
  options.nccl_version = version;
  const linksim::Communicator c(t, linksim::select_gpus(t, {}), options);
  linksim::CollectiveQuery q;
  q.op = CollectiveOp::kAllReduce;
  q.size_bytes = bytes;
  q.mode = mode;
  return c.run(q).time_s;
}

}  // namespace

TEST_SUITE("launch overhead") {
  TEST_CASE("from NCCL 2.9 the launches bound small calls and hide under large ones") {
    const linksim::Topology dgx = linksim::testing::library_topology("dgx-h100.yaml");
    const NcclVersion v229{2, 29};
    const double device_8B = all_reduce_s(dgx, 1, v229, 8);
    REQUIRE(device_8B < kLaunches8_s);  // NCCL's ring LL latency on 8 GPUs, 15 us
    CHECK(all_reduce_s(dgx, 8, v229, 8) == doctest::Approx(kLaunches8_s).epsilon(1e-12));
    const double device_1G = all_reduce_s(dgx, 1, v229, 1073741824.0);
    CHECK(all_reduce_s(dgx, 8, v229, 1073741824.0) == doctest::Approx(device_1G).epsilon(1e-12));
    // The flow simulation takes the same floor.
    CHECK(all_reduce_s(dgx, 8, v229, 8, linksim::SimMode::kFlow) ==
          doctest::Approx(kLaunches8_s).epsilon(1e-12));
  }

  TEST_CASE("before NCCL 2.9 (GROUP launch mode) the launches add to the GPUs' time") {
    const linksim::Topology dgx = linksim::testing::library_topology("dgx-h100.yaml");
    const NcclVersion v28{2, 8};
    for (double bytes : {8.0, 1073741824.0}) {
      CAPTURE(bytes);
      CHECK(all_reduce_s(dgx, 8, v28, bytes) ==
            doctest::Approx(kLaunches8_s + all_reduce_s(dgx, 1, v28, bytes)).epsilon(1e-12));
    }
  }

  TEST_CASE("explain shows the launches as the closed form's t_host") {
    const linksim::Topology dgx = linksim::testing::library_topology("dgx-h100.yaml");
    linksim::CommOptions options;
    options.gpus_per_thread = 8;
    const linksim::Communicator c(dgx, linksim::select_gpus(dgx, {}), options);
    linksim::CollectiveQuery q;
    q.size_bytes = 1024;
    const linksim::CollectiveExplanation e = linksim::explain_collective(c, q);
    bool found = false;
    for (const linksim::ExplainStep& s : e.steps) {
      if (s.title != "closed form") continue;
      found = true;
      CHECK(s.formula == "t = max(t_host, alpha + fill + w x S / B)");
      REQUIRE_FALSE(s.terms.empty());
      CHECK(s.terms.front().symbol == "t_host");
      CHECK(s.terms.front().value == doctest::Approx(kLaunches8_s));
      CHECK(s.result.value == doctest::Approx(kLaunches8_s));
    }
    CHECK(found);
  }
}
