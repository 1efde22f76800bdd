// SPDX-License-Identifier: Apache-2.0
// NCCL's default LL128 enablement across servers by the class of its GPU-NIC legs
// (docs/model.md#ll128-net; src/graph/tuning.cc ncclTopoTuneModel, src/graph/paths.cc): within
// PXB always; on SM90+ through a PXN proxy (2.17 on) or from the GPU's own CPU over NVLink-C2C
// (PATH_P2C, 2.27 on). A GB200 GPU reaches its NIC through its Grace CPU: PHB under 2.26 (no
// PXN peer is nearer), P2C from 2.27.
#include <doctest/doctest.h>

#include <string>

#include "collectives/analytic.hpp"
#include "collectives/comm_graph.hpp"
#include "linksim/collectives.hpp"
#include "linksim/gpu_selection.hpp"
#include "support/test_topologies.hpp"

namespace {

namespace detail = linksim::detail;
using linksim::Algorithm;
using linksim::CollectiveOp;
using linksim::CommOptions;
using linksim::NcclVersion;
using linksim::Protocol;
using linksim::Topology;

detail::CostModel ll128(const Topology& t, Algorithm a, NcclVersion v) {
  CommOptions o;
  o.nccl_version = v;
  o.nvls_enable = false;
  const detail::CommGraph g(t, linksim::select_gpus(t, linksim::GpuSelection{}), o);
  return detail::cost_model(g, CollectiveOp::kAllReduce, a, Protocol::kLL128, 1 << 20);
}

}  // namespace

TEST_SUITE("ll128_network") {
  TEST_CASE("ll128 across racks: GB200 under NCCL 2.26 reaches its NIC through the CPU, off") {
    const Topology t = linksim::testing::library_topology("gb200-nvl72.yaml", {{"racks", "2"}});
    for (const Algorithm a : {Algorithm::kTree, Algorithm::kRing}) {
      const auto m = ll128(t, a, NcclVersion{2, 26});
      CHECK_FALSE(m.eligible);
      CHECK(m.why_not ==
            "LL128 across servers needs each GPU within PXB of its NIC, or on SM90+ a PXN proxy "
            "or (NCCL 2.27+) its CPU's NIC over NVLink-C2C (NCCL enables it only there)");
      // From 2.27 the leg is PATH_P2C, which NCCL_LL128_C2C (default 1) admits.
      CHECK(ll128(t, a, NcclVersion{2, 27}).eligible);
      CHECK(ll128(t, a, NcclVersion{2, 29}).eligible);
    }
  }

  TEST_CASE("ll128 across servers: DGX H100 and A100, each GPU within PXB of its NIC, on") {
    for (const char* file : {"dgx-h100-ib.yaml", "dgx-a100-ib.yaml"}) {
      const Topology t = linksim::testing::library_topology(file, {{"nodes", "2"}});
      CHECK(ll128(t, Algorithm::kTree, NcclVersion{2, 26}).eligible);
      CHECK(ll128(t, Algorithm::kRing, NcclVersion{2, 16}).eligible);
    }
  }

  TEST_CASE("ll128 on one GB200 rack: no network leg, on") {
    const Topology t = linksim::testing::library_topology("gb200-nvl72.yaml", {{"racks", "1"}});
    CHECK(ll128(t, Algorithm::kRing, NcclVersion{2, 26}).eligible);
  }
}
