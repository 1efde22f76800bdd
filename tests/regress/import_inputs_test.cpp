// SPDX-License-Identifier: Apache-2.0
// Regression: a real `nvidia-smi topo -m` capture with terminal escapes (ESC[4m around the
// header, as the driver writes to a terminal) was refused at 1:1; a non-hex NCCL XML affinity
// and a NUMA id above 2^31 escaped as internal errors (std::stoul, std::stoi) without a
// position; an NCCL XML without a GPU was imported as YAML that does not load. Inputs under
// tests/data/regress/.
#include <doctest/doctest.h>

#include <string>

#include "linksim/error.hpp"
#include "linksim/input_file.hpp"
#include "linksim/sysimport.hpp"
#include "support/validation_data.hpp"

#include "support/regress_inputs.hpp"

using namespace linksim;

using testing::config_error_text;
using testing::regress_path;

TEST_SUITE("regress") {

TEST_CASE("escapes: a capture with terminal escapes reads like the plain one") {
  // topo-m-ansi-escapes.txt is data/validation/topo-m/04-*.txt with ESC[4m ... ESC[0m around
  // the header row and ESC[1m ... ESC[0m around the first row label.
  const SmiMatrix escaped = read_nvidia_smi_topo(regress_path("topo-m-ansi-escapes.txt"));
  std::string plain_path;
  for (const std::string& path : linksim::testing::validation_files("topo-m")) {
    if (path.find("/04-") != std::string::npos) plain_path = path;
  }
  REQUIRE_FALSE(plain_path.empty());
  const SmiMatrix plain = read_nvidia_smi_topo(plain_path);
  REQUIRE(escaped.devices.size() == 8);
  CHECK(escaped.cells == plain.cells);
  for (size_t i = 0; i < plain.devices.size(); ++i) {
    CHECK(escaped.devices[i].label == plain.devices[i].label);
    CHECK(escaped.devices[i].cpu_affinity == plain.devices[i].cpu_affinity);
    CHECK(escaped.devices[i].numa_affinity == plain.devices[i].numa_affinity);
  }
  // Escapes become blanks of their own width: the header's GPU0 stays at its file column
  // (6 blanks and the 4 bytes of ESC[4m before it).
  CHECK(escaped.devices[0].where.column == plain.devices[0].where.column + 4);
}

TEST_CASE("checked parsing: a NUMA id above 2^31 is a positioned error") {
  const std::string capture =
      "        GPU0    GPU1    CPU Affinity    NUMA Affinity\n"
      "GPU0     X      NV18    0-23            4294967296\n"
      "GPU1    NV18     X      0-23            0\n";
  CHECK(config_error_text([&] { parse_nvidia_smi_topo(capture, "topo.txt"); }) ==
        "topo.txt:2:41: error: expected a NUMA node between 0 and 1023 or N/A, got '4294967296'");
}

TEST_CASE("checked parsing: a non-hex NCCL XML affinity is a positioned error") {
  const std::string path = regress_path("bad_affinity.xml");
  CHECK(config_error_text([&] { import_nccl_xml(read_input_file(path), path, {}); }) ==
        path + ":2:3: error: expected a hexadecimal affinity mask such as '00000000,ffffffff' "
               "(groups of 1 to 8 hex digits, at most 4096 CPUs), got 'zzzz,ffffffff'");
}

TEST_CASE("nccl-xml: a <system> without a GPU is refused at the <system>") {
  // nccl_xml_no_gpu.xml (found by tests/fuzz/nccl_xml_fuzz.cpp): a <system> whose only content
  // is text, so no <cpu> and no <gpu>. It was imported as YAML with no devices, which the
  // loader then refused inside the generated file.
  const std::string path = regress_path("nccl_xml_no_gpu.xml");
  const std::string expected =
      ":1:1: error: expected a <gpu> (inside a <cpu>'s <pci> tree) in <system>, got none";
  CHECK(config_error_text([&] { import_nccl_xml(read_input_file(path), path, {}); }) == path + expected);
  CHECK(config_error_text([] { import_nccl_xml("<system version=\"1\">\n</system>\n", "x.xml", {}); }) ==
        "x.xml" + expected);
  CHECK(config_error_text([] {
          import_nccl_xml("<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\"/>\n</system>",
                          "x.xml", {});
        }) == "x.xml" + expected);
}

}  // TEST_SUITE
