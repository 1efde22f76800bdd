// SPDX-License-Identifier: Apache-2.0
// Regression: hostile inputs of the third round (docs/testing.md#hostile-inputs), by class:
// nesting without bounds, size without bounds, text that is not UTF-8, physics accepted
// silently, arithmetic, misleading suggestions. Inputs under tests/data/regress/; the ones
// too large to keep (100,000 nested elements, 10,000 included files) are written at run time.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/input_file.hpp"
#include "linksim/sysimport.hpp"
#include "linksim/topology_yaml.hpp"
#include "linksim/units.hpp"
#include "support/regress_inputs.hpp"
#include "support/test_topologies.hpp"
#include "support/scratch_path.hpp"

using namespace linksim;

using testing::config_error_text;
using testing::regress_path;

namespace {

std::string import_error(const std::string& name) {
  const std::string path = regress_path(name);
  return config_error_text([&] { import_nccl_xml(read_input_file(path), path, {}); });
}

std::string load_error(const std::string& name) {
  return config_error_text([&] { load_topology(regress_path(name)); });
}

// A directory of its own under the system's temporary directory, emptied first.
std::filesystem::path fresh_directory(const std::string& name) {
  const std::filesystem::path dir = linksim::testing::scratch_path(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_SUITE("regress") {

TEST_CASE("hostile nesting: NCCL XML is refused past 64 levels, in linear time") {
  CHECK(import_error("nccl_xml_pci_65_deep.xml") ==
        regress_path("nccl_xml_pci_65_deep.xml") +
            ":66:1: error: expected elements nested at most 64 deep, got <pci> at depth 65");
  // 100,000 nested <pci> (8 MB): the recursive reader ran out of stack at 20,000.
  std::string xml = "<system version=\"1\">\n<cpu numaid=\"0\">\n";
  constexpr int kDepth = 100000;
  for (int i = 0; i < kDepth; ++i) xml += "<pci busid=\"0:1\" class=\"0x060400\">\n";
  for (int i = 0; i < kDepth; ++i) xml += "</pci>\n";
  xml += "</cpu>\n</system>\n";
  CHECK(config_error_text([&] { import_nccl_xml(xml, "deep.xml", {}); }) ==
        "deep.xml:65:1: error: expected elements nested at most 64 deep, got <pci> at depth 65");
}

TEST_CASE("hostile nesting: YAML deeper than 64 levels names the limit and the place") {
  // 10,000 levels trip yaml-cpp's own guard, which said "invalid yaml: bad file".
  CHECK(load_error("yaml_nested_10000.yaml") ==
        regress_path("yaml_nested_10000.yaml") +
            ":3:20007: error: invalid yaml: expected mappings and sequences nested at most 64 "
            "deep, got deeper");
  // 65 levels parse; the 65th sequence is refused where it opens.
  const std::string text = "name: x\nnode: " + std::string(64, '[') + std::string(64, ']') + "\n";
  CHECK(config_error_text([&] { parse_topology(text, "t.yaml"); }) ==
        "t.yaml:2:70: error: invalid yaml: expected mappings and sequences nested at most 64 "
        "deep, got deeper");
}

TEST_CASE("hostile nesting: an include chain of 10,000 files stops at 16, before reading on") {
  const std::filesystem::path dir = fresh_directory("linksim_include_chain_test");
  constexpr int kFiles = 10000;
  for (int i = 0; i < kFiles; ++i) {
    std::ofstream(dir / ("f" + std::to_string(i) + ".yaml"))
        << (i + 1 < kFiles ? "include: f" + std::to_string(i + 1) + ".yaml\n" : "name: x\n");
  }
  const std::string error =
      config_error_text([&] { load_topology((dir / "f0.yaml").string()); });
  std::filesystem::remove_all(dir);
  CHECK(error == (dir / "f15.yaml").string() +
                     ":1:10: error: expected includes nested at most 16 files deep, got "
                     "\"f16.yaml\" at depth 17");
}

TEST_CASE("hostile sizes: servers, YAML and GPUs are bounded before anything is built") {
  CHECK(load_error("cpus_5000.yaml") ==
        regress_path("cpus_5000.yaml") +
            ":5:14: error: expected at most 4096 devices in a server, got 5000 with "
            "\"cpu[0-4999]\"");
  CHECK(load_error("gpus_2000_one_cpu.yaml") ==
        regress_path("gpus_2000_one_cpu.yaml") +
            ":7:14: error: expected at most 1024 gpus in a server, got 2000 with "
            "\"gpu[0-1999]\"");
  // 1.2 million devices listed one a line (50 MB) ran out of memory in the YAML parser; the
  // text is refused by its size first. 3 MiB here.
  std::string text = "name: many\nnode:\n  devices:\n";
  while (text.size() < 3 * 1024 * 1024) text += "    - {name: cpu, kind: cpu}\n";
  CHECK(config_error_text([&] { parse_topology(text, "many.yaml"); }) ==
        "many.yaml: error: expected YAML of at most 2 MiB, got 3.0 MiB");
}

TEST_CASE("hostile text: bytes that are not UTF-8 are refused at the reader, with position") {
  CHECK(load_error("utf8_device_name.yaml") ==
        regress_path("utf8_device_name.yaml") +
            ":7:18: error: expected UTF-8 text, got byte 0xff");
  CHECK(import_error("nccl_xml_invalid_utf8.xml") ==
        regress_path("nccl_xml_invalid_utf8.xml") +
            ":17:27: error: expected UTF-8 text in attribute 'name' of <net>, got byte 0xfe");
  // Overlong forms and surrogates are not UTF-8 either (RFC 3629).
  CHECK(config_error_text([] { parse_topology("name: \"\xc0\xaf\"\n", "t.yaml"); }) ==
        "t.yaml:1:8: error: expected UTF-8 text, got byte 0xc0");
  CHECK(config_error_text([] { parse_topology("name: \"\xed\xa0\x80\"\n", "t.yaml"); }) ==
        "t.yaml:1:8: error: expected UTF-8 text, got byte 0xed");
}

TEST_CASE("hostile physics: NVLink on a GPU without it, impossible NCCL XML links and NICs") {
  CHECK(load_error("nvlink_on_rtx4090.yaml") ==
        regress_path("nvlink_on_rtx4090.yaml") +
            ":10:7: error: expected a GPU model with NVLink at gpu0, got rtx4090 (no NVLink) on "
            "an nvlink4 link to gpu1");
  // --set gpu=rtx4090 on the DGX H100: its NVSwitch links were kept, 215 GB/s predicted.
  const std::string h100 = std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100.yaml";
  CHECK(config_error_text([&] { load_topology(h100, {{"gpu", "rtx4090"}}); }) ==
        h100 + ":50:7: error: expected a GPU model with NVLink at gpu0, got rtx4090 (no "
               "NVLink) on an nvlink4 link to nvswitch0");
  CHECK(import_error("nccl_xml_nvlink_count_negative.xml") ==
        regress_path("nccl_xml_nvlink_count_negative.xml") +
            ":7:11: error: expected an <nvlink> count >= 1 (the links bonded), got -5");
  CHECK(import_error("nccl_xml_nvlink_to_itself.xml") ==
        regress_path("nccl_xml_nvlink_to_itself.xml") +
            ":7:11: error: expected an <nvlink> target other than the GPU's own bus id, got "
            "0000:1e:00.0");
  CHECK(import_error("nccl_xml_net_speed_zero.xml") ==
        regress_path("nccl_xml_net_speed_zero.xml") +
            ":17:11: error: expected a <net> speed > 0 (Mb/s), got 0");
}

TEST_CASE("hostile physics: --channels bounds the ring, one channel carrying about 20 GB/s") {
  const Topology h100 = testing::library_topology("dgx-h100.yaml");
  const auto busbw = [&](int channels) {
    CommOptions options;
    options.channels = channels;
    const Communicator comm(h100, h100.gpus(), options);
    CollectiveQuery query;
    query.op = CollectiveOp::kAllReduce;
    query.algorithm = Algorithm::kRing;
    query.size_bytes = 8 * kGiB;  // latency is under 0.1 % of the time
    return comm.run(query).busbw_Bps;
  };
  // Hand-derived: a channel carries max(20 GB/s, T_ring / its own count); the ring's own
  // count on 8 H100 is 18 (T_ring = 18 NVLinks x 25 GB/s x SM90's measured 361.86/450 =
  // 361.86 GB/s), so 1 and 2 channels are bound by 20.103 and 40.207 GB/s; the default count
  // carries the whole ring.
  const double per_channel_Bps = 361.86e9 / 18;
  CHECK(busbw(1) == doctest::Approx(per_channel_Bps).epsilon(0.002));
  CHECK(busbw(2) == doctest::Approx(2 * per_channel_Bps).epsilon(0.002));
  CHECK(busbw(0) > 300e9);
  CHECK(busbw(64) == doctest::Approx(busbw(0)));
}

TEST_CASE("hostile arithmetic: sizes are exact integers or refused") {
  // 2^53 + 1 read as the double 2^53 and ran as 9007199254740992.
  const std::optional<double> over = parse_size_bytes("9007199254740993");
  REQUIRE(over);
  CHECK(*over > kMaxSizeBytes);
  CHECK(parse_size_bytes("9007199254740992") == kMaxSizeBytes);
  CHECK(parse_size_bytes("8192T") == kMaxSizeBytes);
  // From 2^52 a double holds no halves: a decimal form there is refused, not rounded.
  CHECK_FALSE(parse_size_bytes("4503599627370496.5"));
  CHECK(parse_size_bytes("1.5K") == 1536.0);
}

TEST_CASE("hostile suggestions: a suggestion is a valid value the user plausibly meant") {
  CHECK(load_error("bandwidth_plus_sign.yaml") ==
        regress_path("bandwidth_plus_sign.yaml") +
            ":9:66: error: expected a bandwidth such as \"450 GB/s\" or \"400 Gb/s\", got "
            "\"+450 GB/s\"; did you mean \"450 GB/s\"?");
  CHECK(load_error("latency_hours.yaml") ==
        regress_path("latency_hours.yaml") +
            ":10:64: error: expected a duration such as \"1.2 us\" or \"150 ns\", got \"2 h\"");
  const auto bandwidth_error = [](const std::string& value) {
    const std::string text =
        "name: s\nnode:\n  devices:\n    - {name: cpu0, kind: cpu}\n"
        "    - {name: \"gpu[0-1]\", kind: gpu, model: h100-sxm}\n  links:\n"
        "    - {from: \"gpu[0-1]\", to: cpu0, type: pcie5}\n"
        "    - {from: gpu0, to: gpu1, type: nvlink4, lanes: 2, bandwidth: \"" + value + "\"}\n";
    return config_error_text([&] { parse_topology(text, "t.yaml"); });
  };
  // Hexadecimal is no number the parser reads, and nothing near it is plausible.
  CHECK(bandwidth_error("0x10 GB/s") ==
        "t.yaml:8:66: error: expected a bandwidth such as \"450 GB/s\" or \"400 Gb/s\", got "
        "\"0x10 GB/s\"");
  // A near-miss unit still gets its suggestion, checked to parse.
  CHECK(bandwidth_error("450 GBps") ==
        "t.yaml:8:66: error: expected a bandwidth such as \"450 GB/s\" or \"400 Gb/s\", got "
        "\"450 GBps\"; did you mean \"450 GB/s\"?");
}

}  // TEST_SUITE
