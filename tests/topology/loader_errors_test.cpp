// SPDX-License-Identifier: Apache-2.0
// The topology loader on bad input: one file per message under tests/data/errors/, each
// pinned to its exact text and position, plus inline cases for the rarer messages.
#include <doctest/doctest.h>

#include <string>

#include "linksim/topology_yaml.hpp"
#include "support/test_topologies.hpp"

namespace linksim {
namespace {

std::string error_file(const std::string& file) {
  return std::string(LINKSIM_SOURCE_DIR) + "/tests/data/errors/" + file;
}

// The one-line message load_topology gives for tests/data/errors/<file>.
std::string load_error(const std::string& file, const ParamOverrides& overrides = {}) {
  try {
    load_topology(error_file(file), overrides);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "(no error)";
}

std::vector<std::string> load_notes(const std::string& file) {
  try {
    load_topology(error_file(file));
  } catch (const ConfigError& error) {
    return error.notes();
  }
  return {};
}

}  // namespace

TEST_SUITE("loader") {

TEST_CASE("loader errors: every file in tests/data/errors gives its exact message") {
  // {file, "line:col: error: message"}; the file's absolute path is the prefix.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"malformed.yaml", "4:1: error: invalid yaml: end of sequence flow not found"},
      {"flow_range.yaml", "4:17: error: invalid yaml: end of map flow not found"},
      {"not_a_mapping.yaml", "1:1: error: expected a mapping at the top level, got a sequence"},
      {"unknown_key.yaml", "3:3: error: unknown key \"devcies\"; did you mean \"devices\"?"},
      {"missing_required_key.yaml", "6:7: error: missing required key \"type\""},
      {"wrong_type.yaml", "6:52: error: expected an integer, got \"eighteen\""},
      {"unknown_platform.yaml",
       "4:41: error: unknown host platform \"sapphire-rapid\"; did you mean "
       "\"sapphire-rapids\"?"},
      {"bare_number_host_staging.yaml",
       "4:48: error: expected a bandwidth such as \"450 GB/s\" or \"400 Gb/s\", got \"6\""},
      {"bare_number_bandwidth.yaml",
       "6:56: error: expected a bandwidth such as \"450 GB/s\" or \"400 Gb/s\", got \"450\""},
      {"gbps_typo.yaml",
       "6:56: error: expected a bandwidth such as \"450 GB/s\" or \"400 Gb/s\", got \"450 GBs\"; "
       "did you mean \"450 GB/s\"?"},
      {"bad_unit.yaml",
       "6:54: error: expected a duration such as \"1.2 us\" or \"150 ns\", got \"2 fortnights\""},
      {"unknown_link_type.yaml",
       "6:36: error: unknown link type \"nvlnk4\"; did you mean \"nvlink4\"?"},
      {"unknown_gpu.yaml", "4:38: error: unknown gpu model \"h100-sxx\"; did you mean \"h100-sxm\"?"},
      {"unknown_fabric_kind.yaml",
       "11:16: error: unknown fabric kind \"fat-tree\"; did you mean \"fat_tree\"?"},
      {"bad_range.yaml", "4:14: error: bad range \"gpu[7-0]\": expected low <= high, got 7-0"},
      {"open_range.yaml",
       "4:14: error: bad range \"gpu[0-]\": expected a number after \"-\", got \"\""},
      {"unknown_param.yaml", "5:38: error: unknown parameter \"gpuu\"; did you mean \"gpu\"?"},
      {"missing_include.yaml", "2:11: error: include file \"no_such_base.yaml\" not found"},
      {"include_cycle_a.yaml",
       "2:10: error: include cycle: include_cycle_a.yaml -> include_cycle_b.yaml -> "
       "include_cycle_a.yaml"},
      {"duplicate_device.yaml", "5:14: error: duplicate device name \"gpu2\""},
      {"dangling_endpoint.yaml",
       "7:30: error: unknown device \"nvsw0\"; known devices: gpu0, gpu1, nvswitch0, nvswitch1"},
      {"bad_pairing.yaml",
       "7:7: error: cannot pair 3 \"from\" devices with 2 \"to\" devices; expected equal "
       "counts, a single device on one side, or a multiple"},
      {"duplicate_link.yaml",
       "7:7: error: duplicate link between gpu1 and gpu0; bond links with \"lanes\""},
      {"self_link.yaml", "6:7: error: expected a link between two devices, got gpu0 to itself"},
      {"wrong_lanes_key.yaml", "7:48: error: expected \"width\" for a pcie5 link, got \"lanes\""},
      {"zero_bandwidth.yaml", "6:56: error: expected bandwidth > 0, got \"0 GB/s\""},
      {"negative_latency.yaml", "6:54: error: expected latency >= 0, got \"-1 us\""},
      {"unreachable_gpu.yaml", "4:14: error: gpu2 has no path to gpu0 within the server"},
      {"zero_nodes.yaml", "5:8: error: expected nodes between 1 and 65536, got 0"},
      {"no_fabric.yaml", "5:8: error: expected a fabric to join 4 servers, got none"},
      {"unknown_nccl_env.yaml",
       "6:3: error: unknown key \"NCCL_NVLS_CHUNKSIZ\"; did you mean \"NCCL_NVLS_CHUNKSIZE\"?"},
  };
  for (const auto& entry : cases) {
    const auto& file = entry.first;  // clang 14: CAPTURE cannot take a structured binding
    const auto& expected = entry.second;
    CAPTURE(file);
    CHECK_THROWS_WITH_AS(load_topology(error_file(file)),
                         (error_file(file) + ":" + expected).c_str(), ConfigError);
  }
}

TEST_CASE("loader errors: --set of an undeclared parameter names the declared ones") {
  CHECK(load_error("unknown_set.yaml", {{"nodez", "2"}}) ==
        error_file("unknown_set.yaml") +
            ":2:1: error: --set of unknown parameter \"nodez\"; did you mean \"nodes\"?");
  CHECK(load_error("unknown_set.yaml", {{"zzz", "2"}}) ==
        error_file("unknown_set.yaml") +
            ":2:1: error: --set of unknown parameter \"zzz\"; declared: gpu, nodes");
  CHECK(load_error("unknown_set.yaml") == "(no error)");
}

TEST_CASE("loader errors: notes give the YAML path, the first declaration, the include chain") {
  CHECK(load_notes("duplicate_device.yaml") ==
        std::vector<std::string>{"in node.devices[1].name",
                                 "first declared at " + error_file("duplicate_device.yaml") +
                                     ":4:14"});
  CHECK(load_notes("wrong_type.yaml") == std::vector<std::string>{"in node.links[0].lanes"});
  CHECK(load_notes("include_cycle_b.yaml") == std::vector<std::string>{"in include"});
  CHECK(load_notes("flow_range.yaml") ==
        std::vector<std::string>{"inside { } or [ ], quote names with ranges or parameters: "
                                 "{name: \"gpu[0-7]\", model: \"${gpu}\"}"});
  CHECK(load_notes("malformed.yaml").empty());
}

TEST_CASE("loader errors: an error in an included file points there, with the chain") {
  std::string outer = std::string(LINKSIM_SOURCE_DIR) + "/tests/data/loader/broken_outer.yaml";
  std::string base = std::string(LINKSIM_SOURCE_DIR) + "/tests/data/loader/broken_base.yaml";
  try {
    load_topology(outer);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& error) {
    CHECK(std::string(error.what()) ==
          base + ":10:18: error: expected a bandwidth such as \"450 GB/s\" or \"400 Gb/s\", "
                 "got \"900\"");
    CHECK(error.notes() == std::vector<std::string>{"in node.links[0].bandwidth",
                                                    "included from " + outer + ":3:10"});
  }
}

TEST_CASE("loader errors: a missing file names it, without a position") {
  CHECK(load_error("no_such_file.yaml") ==
        error_file("no_such_file.yaml") + ": error: cannot read file: No such file or directory");
}

TEST_CASE("loader errors: inline cases for the rarer messages") {
  // Each text has its error on line 4 or 5 (line 1 is the empty line after R"().
  CHECK(testing::topology_parse_error(R"(
name: x
name: y
)") == "input:3:1: error: duplicate key \"name\"");
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices:
    - {name: cpu0, kind: cpu, model: a40}
)") == "input:5:31: error: unknown key \"model\"; expected one of name, kind, numa, cores, "
        "platform, host_staging_bw, host_staging_cross_socket_bw");
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices:
    - {name: "nic[0-3]", kind: nic, type: ib_ndr, port: "mlx5_[0-1]"}
)") == "input:5:57: error: expected 4 port names to match \"nic[0-3]\", got 2");
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices:
    - {name: nic0, kind: nic, type: pcie4}
)") == "input:5:37: error: expected a network link type for a nic (ib_ndr, roce_400, ...), "
       "got \"pcie4\"");
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices:
    - {name: gpu0, kind: gpus, model: a40}
)") == "input:5:26: error: unknown device kind \"gpus\"; did you mean \"gpu\"?");
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices: []
)") == "input:4:12: error: expected at least one device, got none");
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices:
    - {name: "gpu[0-1]", kind: gpu, model: a40}
    - {name: sw0, kind: pcie_switch}
  links:
    - {from: "gpu[0-1]", to: sw0, type: pcie4, host_bridge: 0}
)") == "input:8:48: error: expected host_bridge only on a PCIe link into a cpu, got gpu0 to sw0");
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices:
    - {name: gpu0, kind: gpu, model: a40, p2p: yes}
)") == "input:5:48: error: expected true or false, got \"yes\"");
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices:
    - {name: gpu0, kind: gpu, model: a40}
fabric: {kind: single_switch}
)") == "input:6:1: error: expected a nic in the server to attach the fabric to, got none");
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices:
    - {name: gpu0, kind: gpu, model: a40}
    - {name: nic0, kind: nic, type: ib_ndr}
    - {name: cpu0, kind: cpu}
  links:
    - {from: gpu0, to: cpu0, type: pcie5, width: 16}
    - {from: nic0, to: cpu0, type: pcie5, width: 16}
nodes: 2
fabric: {kind: fat_tree, planes: per_rail}
)") == "input:12:34: error: expected planes only on a rail_optimized fabric, got \"per_rail\" on "
       "another kind");
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices:
    - {name: gpu0, kind: gpu, model: a40}
    - {name: nic0, kind: nic, type: ib_ndr}
    - {name: cpu0, kind: cpu}
  links:
    - {from: gpu0, to: cpu0, type: pcie5, width: 16}
    - {from: nic0, to: cpu0, type: pcie5, width: 16}
nodes: 2
fabric: {kind: rail_optimized, planes: two}
)") == "input:12:40: error: expected planes auto, single or per_rail, got \"two\"");
  CHECK(testing::topology_parse_error(R"(
name: x
node:
  devices:
    - {name: "host0:gpu0", kind: gpu, model: a40}
)") == "input:5:14: error: expected a device name without spaces or \":\", got \"host0:gpu0\"");
  CHECK(testing::topology_parse_error(R"(
name: x
params: {gpu: a40}
node:
  devices:
    - {name: gpu0, kind: gpu, model: "${gpu"}
)") == "input:6:38: error: expected \"}\" after \"${\" in \"${gpu\"");
  CHECK(testing::topology_parse_error(R"(
node:
  devices:
    - {name: gpu0, kind: gpu, model: a40}
)") == "input:2:1: error: missing required key \"name\"");
}

}  // TEST_SUITE
}  // namespace linksim
