// SPDX-License-Identifier: Apache-2.0
// A topology's `nccl_env` (docs/topology-format.md#nccl-env): the variables a platform's NCCL
// network plugin sets, read into Topology::nccl_env, kept by derived topologies, and refused
// with one positioned message when unknown or out of NCCL's range.
#include <doctest/doctest.h>

#include <string>

#include "linksim/faults.hpp"
#include "linksim/topology_variants.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/test_topologies.hpp"

namespace linksim {
namespace {

constexpr const char* kServer = R"(
name: x
node:
  devices:
    - {name: gpu0, kind: gpu, model: h100-sxm}
)";

}  // namespace

TEST_SUITE("loader") {

TEST_CASE("nccl_env: absent, NCCL's defaults; present, each variable's bytes") {
  const Topology plain = parse_topology(kServer, "input");
  CHECK(plain.nccl_env() == NcclEnv{});
  const Topology set = parse_topology(std::string(kServer) + R"(nccl_env:
  NCCL_NVLS_CHUNKSIZE: 524288
  NCCL_NVLSTREE_MAX_CHUNKSIZE: 262144
  NCCL_BUFFSIZE: 8388608
)", "input");
  CHECK(set.nccl_env().nvls_chunk_bytes == 524288);
  CHECK(set.nccl_env().nvlstree_max_chunk_bytes == 262144);
  CHECK(set.nccl_env().buffsize_bytes == 8388608);
}

TEST_CASE("nccl_env: aws-p5-efa carries aws-ofi-nccl's 512 KiB chunks, a fault or a faster fabric keeps them") {
  const Topology p5 = testing::library_topology("aws-p5-efa.yaml");
  CHECK(p5.nccl_env().nvls_chunk_bytes == 524288);
  CHECK(p5.nccl_env().nvlstree_max_chunk_bytes == 524288);
  CHECK(p5.nccl_env().buffsize_bytes == 8388608);
  const Topology degraded = with_degraded(p5, "nic0:speed=200Gb/s");
  CHECK(with_faster_links(p5, LinkClass::kFabric, 2.0).nccl_env() == p5.nccl_env());
  CHECK(degraded.nccl_env() == p5.nccl_env());
  CHECK(testing::library_topology("dgx-h100-ib.yaml").nccl_env() == NcclEnv{});
}

TEST_CASE("nccl_env: unknown variables, values outside NCCL's range, a non-mapping") {
  const auto error_with = [](const char* section) {
    return testing::topology_parse_error((std::string(kServer) + section).c_str());
  };
  CHECK(error_with("nccl_env:\n  NCCL_NVLSTREE_CHUNKSIZE: 524288\n") ==
        "input:7:3: error: unknown key \"NCCL_NVLSTREE_CHUNKSIZE\"; expected one of "
        "NCCL_NVLS_CHUNKSIZE, NCCL_NVLSTREE_MAX_CHUNKSIZE, NCCL_BUFFSIZE");
  CHECK(error_with("nccl_env:\n  NCCL_NVLS_CHUNKSIZE: 0\n") ==
        "input:7:24: error: expected NCCL_NVLS_CHUNKSIZE between 16 and 1073741824, got 0");
  CHECK(error_with("nccl_env:\n  NCCL_NVLS_CHUNKSIZE: 512K\n") ==
        "input:7:24: error: expected an integer, got \"512K\"");
  CHECK(error_with("nccl_env: 524288\n") ==
        "input:6:11: error: expected a mapping, got \"524288\"");
}

}  // TEST_SUITE

}  // namespace linksim
