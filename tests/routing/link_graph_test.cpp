// SPDX-License-Identifier: Apache-2.0
// Boost.Graph views: max-flow (bisection).
#include <doctest/doctest.h>

#include "support/mini_topologies.hpp"
#include "topology/link_graph.hpp"

namespace linksim {

TEST_SUITE("routing") {

TEST_CASE("link graph: max flow between GPU halves of the nvswitch box") {
  // Sources gpu0, gpu1; sinks gpu2, gpu3. NVLink: each source sends 5 x 25 = 125 GB/s into
  // the switches and each sink takes 125 GB/s out: 250 GB/s. PCIe adds one more way,
  // psw0 > cpu0 > cpu1 > psw1, limited by psw0 -> cpu0 (x16, 32 GB/s). Min cut: the sources'
  // NVLinks plus psw0 -> cpu0 = 250 + 32 = 282 GB/s.
  const Topology t = testing::make_nvswitch_box();
  const auto& g = t.gpus();
  CHECK(detail::max_flow_Bps(t, {g[0], g[1]}, {g[2], g[3]}) == doctest::Approx(282e9));
}

}  // TEST_SUITE

}  // namespace linksim
