// SPDX-License-Identifier: Apache-2.0
// Regression: numbers that were silently wrong. A link's latency override was accepted and
// ignored; 1e300 GB/s became infinity and 1e-300 GB/s a 300-digit time; PCIe width 3 and
// 1000 NVLink lanes on an H100 were accepted; channels 0, -1 and 2^31-1 and 0 GPUs per thread
// reached the model; `nodes: 100000000` built servers until memory ran out; counts above 2^53
// printed as floats in JSON. Inputs under tests/data/regress/.
#include <doctest/doctest.h>

#include <string>

#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/input_file.hpp"
#include "linksim/topology_yaml.hpp"
#include "common/json_numbers.hpp"

using namespace linksim;

namespace {

std::string regress_file(const std::string& name) {
  return std::string(LINKSIM_SOURCE_DIR) + "/tests/data/regress/" + name;
}

// The one-line message load_topology gives for tests/data/regress/<file>.
std::string load_error(const std::string& file, const ParamOverrides& overrides = {}) {
  try {
    load_topology(regress_file(file), overrides);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "(no error)";
}

std::string comm_error(const Topology& t, CommOptions options) {
  try {
    Communicator comm(t, t.gpus(), options);
  } catch (const ConfigError& error) {
    return error.message();
  }
  return "(no error)";
}

double ring_allreduce_s(const Topology& t, double bytes) {
  const Communicator comm(t, t.gpus());
  CollectiveQuery q;
  q.size_bytes = bytes;
  q.algorithm = Algorithm::kRing;
  q.protocol = Protocol::kSimple;
  return comm.run(q).time_s;
}

}  // namespace

TEST_SUITE("regress") {

TEST_CASE("bounds: a latency override changes the prediction by its excess per ring step") {
  // latency_override.yaml: 1.1 us on the one NVLink hop, 1 us above nvlink4's catalog 100 ns.
  // A 2-rank ring AllReduce has 2(n-1) = 2 latency steps: 2 x 1 us = 2 us slower, at any
  // size (the override changes no bandwidth).
  const Topology slow = load_topology(regress_file("latency_override.yaml"));
  const Topology plain = parse_topology(R"(
name: latency-default
node:
  devices:
    - {name: "gpu[0-1]", kind: gpu, model: h100-sxm}
  links:
    - {from: gpu0, to: gpu1, type: nvlink4, lanes: 18}
)", "input");
  for (double bytes : {8.0, 1048576.0, 1073741824.0}) {
    CAPTURE(bytes);
    CHECK(ring_allreduce_s(slow, bytes) - ring_allreduce_s(plain, bytes) ==
          doctest::Approx(2e-6).epsilon(1e-6));
  }
}

TEST_CASE("bounds: bandwidths and latencies outside their physical range are positioned errors") {
  CHECK(load_error("huge_bandwidth.yaml") ==
        regress_file("huge_bandwidth.yaml") +
            ":6:67: error: expected bandwidth between 1 MB/s and 1 PB/s, got \"1e300 GB/s\"");
  CHECK(load_error("tiny_bandwidth.yaml") ==
        regress_file("tiny_bandwidth.yaml") +
            ":6:67: error: expected bandwidth between 1 MB/s and 1 PB/s, got \"1e-300 GB/s\"");
  CHECK(load_error("long_latency.yaml") ==
        regress_file("long_latency.yaml") +
            ":6:65: error: expected latency of at most 1 s, got \"1e300 s\"");
}

TEST_CASE("messages: a near-miss unit keeps bytes as bytes") {
  // "GBps" is gigabytes per second misspelt: "Gbps" would be 8x smaller.
  CHECK(load_error("gbps_bytes_unit.yaml") ==
        regress_file("gbps_bytes_unit.yaml") +
            ":6:67: error: expected a bandwidth such as \"450 GB/s\" or \"400 Gb/s\", got "
            "\"450 GBps\"; did you mean \"450 GB/s\"?");
}

TEST_CASE("bounds: a PCIe width is 1, 2, 4, 8 or 16") {
  CHECK(load_error("pcie_width_3.yaml") ==
        regress_file("pcie_width_3.yaml") +
            ":7:56: error: expected width 1, 2, 4, 8 or 16 (a PCIe link width), got 3");
}

TEST_CASE("bounds: a link bonds at most the GPU's NVLink count") {
  CHECK(load_error("nvlink_lanes_1000.yaml") ==
        regress_file("nvlink_lanes_1000.yaml") +
            ":6:52: error: expected lanes of at most 18 (the NVLink links of a h100-sxm), "
            "got 1000");
}

TEST_CASE("bounds: the server count is bounded before any server is built") {
  CHECK(load_error("nodes_100000000.yaml") ==
        regress_file("nodes_100000000.yaml") +
            ":2:8: error: expected nodes between 1 and 65536, got 100000000");
}

TEST_CASE("bounds: the fabric's size is checked before the servers are expanded") {
  // dgx-h100-ib at radix 8, 1:1: 4 NIC ports per leaf; 600 servers need ceil(600 / 4) = 150
  // leaves per rail. One plane of 8 x 150 leaves needs four tiers, so each rail gets its own
  // plane, and a plane of four tiers holds 8 x 4 x 4 = 128 leaves x 4 NICs = 512 NICs: 8 planes
  // hold 4096 NICs, fewer than the 4800 of 600 servers.
  const std::string topo = std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100-ib.yaml";
  try {
    load_topology(topo, {{"nodes", "600"}, {"radix", "8"}});
    FAIL("expected a fabric size error");
  } catch (const ConfigError& e) {
    CHECK(e.message() == "expected at most 4096 NICs for radix 8 with four tiers, got 4800");
  }
}

TEST_CASE("bounds: channels within NCCL's MAXCHANNELS, 0 as NCCL chooses") {
  const Topology t = load_topology(regress_file("latency_override.yaml"));
  for (int bad : {-1, 65, 2147483647}) {
    CommOptions options;
    options.channels = bad;
    CHECK(comm_error(t, options) ==
          "expected channels between 1 and 64 (NCCL's MAXCHANNELS), or 0 as NCCL chooses, got " +
              std::to_string(bad));
  }
  CommOptions chosen;
  chosen.channels = 0;
  CHECK(comm_error(t, chosen) == "(no error)");
}

TEST_CASE("bounds: gpus per thread within the communicator") {
  const Topology t = load_topology(regress_file("latency_override.yaml"));
  for (int bad : {0, 3}) {
    CommOptions options;
    options.gpus_per_thread = bad;
    CHECK(comm_error(t, options) ==
          "expected gpus per thread between 1 and 2 (the GPUs of the communicator), got " +
              std::to_string(bad));
  }
}

TEST_CASE("bounds: JSON counts above 2^53 stay integers") {
  // 2^60 is a whole double; it prints as the integer 1152921504606846976, not 1.15e18.
  CHECK(json_numbers::count_value(1152921504606846976.0).dump() == "1152921504606846976");
  CHECK(json_numbers::count_value(9007199254740994.0).dump() == "9007199254740994");
  CHECK(json_numbers::count_value(0.5).dump() == "0.5");
}

TEST_CASE("inputs: empty files, directories and devices are positioned errors") {
  CHECK(load_error("empty.yaml") ==
        regress_file("empty.yaml") +
            ":1:1: error: expected a mapping at the top level, got an empty file");
  const std::string dir = std::string(LINKSIM_SOURCE_DIR) + "/tests/data/regress";
  try {
    load_topology(dir);
    FAIL("expected a directory error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == dir + ": error: expected a regular file, got a directory");
  }
  try {
    read_input_file("/dev/zero");
    FAIL("expected a device error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "/dev/zero: error: expected a regular file, got a device");
  }
}

}  // TEST_SUITE
