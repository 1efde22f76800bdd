// SPDX-License-Identifier: Apache-2.0
// topo import / export: imported YAML loads and reproduces the matrix it came from.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "linksim/routing.hpp"
#include "linksim/sysimport.hpp"
#include "linksim/topology_yaml.hpp"
#include "sysimport/nccl_xml.hpp"
#include "support/test_topologies.hpp"
#include "support/validation_data.hpp"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Loads imported YAML and compares the matrix it implies with `real`.
linksim::VerifyReport round_trip(const std::string& yaml, const linksim::SmiMatrix& real) {
  const linksim::Topology t = linksim::parse_topology(yaml, "imported.yaml");
  const linksim::Router router(t);
  return linksim::compare_matrices(linksim::implied_matrix(router, 0), real);
}

}  // namespace

TEST_SUITE("sysimport") {

TEST_CASE("import nvidia-smi: every calibration capture round-trips through a topology") {
  int imported = 0;
  for (const std::string& path : linksim::testing::validation_files("topo-m")) {
    const std::string name = std::filesystem::path(path).filename().string();
    if (name.find("nccl-topo-xml") != std::string::npos) continue;
    CAPTURE(name);
    ++imported;
    const linksim::SmiMatrix real = linksim::read_nvidia_smi_topo(path);
    for (const std::string& gpu : {std::string(), std::string("a100-sxm-80g")}) {
      CAPTURE(gpu);
      const std::string yaml = linksim::import_nvidia_smi(real, {gpu, ""});
      CAPTURE(yaml);
      const linksim::VerifyReport report = round_trip(yaml, real);
      CHECK_MESSAGE(report.match(), report.text());
    }
  }
  CHECK(imported == 5);  // 04, 06, 07, 13 and 14: the five topo -m captures
}

TEST_CASE("import nvidia-smi: a PXB tree, NODE bridges and SYS sockets are reproduced") {
  // GPU0/GPU1 PIX (one leaf), GPU2 PXB to both (another leaf under the same top switch),
  // NIC0 NODE to them (same socket, another host bridge), GPU3 SYS to all (other socket).
  const auto real = linksim::parse_nvidia_smi_topo(
      "  GPU0 GPU1 GPU2 GPU3 NIC0\n"
      "GPU0  X   PIX  PXB  SYS  NODE\n"
      "GPU1 PIX   X   PXB  SYS  NODE\n"
      "GPU2 PXB  PXB   X   SYS  NODE\n"
      "GPU3 SYS  SYS  SYS   X   SYS\n"
      "NIC0 NODE NODE NODE SYS   X\n",
      "mixed.txt");
  const std::string yaml = linksim::import_nvidia_smi(real, {});
  CHECK(yaml.find("name: \"mixed\"") != std::string::npos);
  CHECK(yaml.find("# No GPU model named (--gpu): generic defaults") != std::string::npos);
  CHECK(round_trip(yaml, real).match());
}

TEST_CASE("import nvidia-smi: unknown GPU model and contradictory matrices are input errors") {
  const auto m = linksim::parse_nvidia_smi_topo("  GPU0 GPU1\nGPU0  X  PIX\nGPU1 PIX  X\n", "m");
  CHECK_THROWS_WITH_AS(linksim::import_nvidia_smi(m, {"h100-sxn", ""}),
                       "linksim: error: unknown GPU model 'h100-sxn'", linksim::ConfigError);
  const auto bad = linksim::parse_nvidia_smi_topo(
      "  GPU0 GPU1 GPU2\nGPU0  X  PIX SYS\nGPU1 PIX  X  PIX\nGPU2 SYS PIX  X\n", "bad.txt");
  CHECK_THROWS_WITH_AS(linksim::import_nvidia_smi(bad, {}),
                       "bad.txt: error: cannot import a contradictory matrix: GPU0 and GPU2 are "
                       "SYS, yet PCIe cells put them under one CPU",
                       linksim::ConfigError);
}

TEST_CASE("import nccl-xml: the OCI H100 dump becomes 8 GPUs, 4 NVSwitches, 16 NIC ports") {
  const std::string path =
      linksim::testing::validation_file("topo-m/01-oci-bm-gpu-h100-8-nccl-topo-xml.txt");
  const std::string yaml = linksim::import_nccl_xml(slurp(path), path, {});
  CAPTURE(yaml);
  const linksim::Topology t = linksim::parse_topology(yaml, "oci.yaml");
  const linksim::Router router(t);
  const linksim::SmiMatrix m = linksim::implied_matrix(router, 0);
  CHECK(m.count(linksim::DeviceKind::kGpu) == 8);
  CHECK(m.count(linksim::DeviceKind::kNic) == 16);  // dual-port ConnectX-7: one NIC per port
  CHECK(t.devices_of(0, linksim::DeviceKind::kNvswitch).size() == 4);
  // Each GPU: 5+5+4+4 = 18 NVLinks over the 4 switches -> NV18 to every other GPU.
  CHECK(m.cells[0][1].label() == "NV18");
  // GPU0 and NIC0/NIC1 (mlx5_18/19) share one switch chip (bridges 08, 0d, 0a merged): PIX.
  CHECK(m.cells[0][8].label() == "PIX");
  CHECK(m.devices[8].port_name == "mlx5_18");
  // GPU0 (numa 0) and GPU4 (numa 1) have their NICs on different sockets.
  CHECK(m.cells[0][16].label() == "SYS");
  // <cpu vendor="GenuineIntel" familyid="6" modelid="143">: model 0x8F, Sapphire Rapids.
  const auto cpus = t.devices_of(0, linksim::DeviceKind::kCpu);
  REQUIRE(cpus.size() == 2);
  CHECK(t.host_platform(cpus[0]).key == "intel-sapphire-rapids");
}

TEST_CASE("import nccl-xml: the host platform survives an export and import") {
  // dgx-a100 is AMD EPYC Rome: exported as AuthenticAMD family 0x17 (23), read back amd-zen2;
  // a CPU whose attributes name no generation stays generic.
  const linksim::Topology a100 = linksim::testing::library_topology("dgx-a100.yaml");
  const std::string xml = linksim::export_nccl_xml(linksim::Router(a100), 0);
  CHECK(xml.find("vendor=\"AuthenticAMD\" familyid=\"23\"") != std::string::npos);
  const linksim::Topology back =
      linksim::parse_topology(linksim::import_nccl_xml(xml, "a100.xml", {}), "a100.yaml");
  CHECK(back.host_platform(back.devices_of(0, linksim::DeviceKind::kCpu).front()).key ==
        "amd-zen2");
  const linksim::Topology a40 = linksim::testing::library_topology("a40-8gpu-nvlink-pairs.yaml");
  const std::string generic = linksim::export_nccl_xml(linksim::Router(a40), 0);
  CHECK(generic.find("familyid") == std::string::npos);
  CHECK(linksim::import_nccl_xml(generic, "a40.xml", {}).find("platform") == std::string::npos);
}

TEST_CASE("import nccl-xml: malformed XML fails at its position") {
  CHECK_THROWS_WITH_AS(linksim::import_nccl_xml("no xml here", "x.xml", {}),
                       "x.xml:1:1: error: expected an NCCL topology (<system ...>), found none",
                       linksim::ConfigError);
  CHECK_THROWS_WITH_AS(
      linksim::import_nccl_xml("<system version=\"1\">\n  <cpu numaid=\"0\">\n  </gpu>\n", "x.xml",
                               {}),
      "x.xml:3:3: error: expected </cpu>, got </gpu>", linksim::ConfigError);
  CHECK_THROWS_WITH_AS(
      linksim::import_nccl_xml("<system version=\"1\">\n<cpu numaid=0>", "x.xml", {}),
      "x.xml:2:13: error: expected an attribute as name=\"value\" (a quoted attribute value), "
      "got '0'",
      linksim::ConfigError);
  CHECK_THROWS_WITH_AS(
      linksim::import_nccl_xml("<system>\n<cpu>\n<pci busid=\"0:1\" link_speed=\"8 GT/s\"/>\n"
                               "</cpu></system>",
                               "x.xml", {}),
      "x.xml:3:1: error: expected attribute 'class' on <pci>", linksim::ConfigError);
  CHECK_THROWS_WITH_AS(
      linksim::import_nccl_xml("<system>\n<cpu>\n<pci busid=\"0:1\"/>\n", "x.xml", {}),
      "x.xml:4:1: error: expected </cpu>, got end of input", linksim::ConfigError);
  CHECK_THROWS_WITH_AS(
      linksim::import_nccl_xml("<system>\n<cpu>\n<pci busid=\"0:1", "x.xml", {}),
      "x.xml:3:12: error: unterminated attribute value", linksim::ConfigError);
  CHECK_THROWS_WITH_AS(linksim::import_nccl_xml("<systems>\n</systems>", "x.xml", {}),
                       "x.xml:1:1: error: expected an NCCL topology (<system ...>), got <systems>",
                       linksim::ConfigError);
  // Bytes that are not UTF-8 (here in a <net> name) are refused where they are.
  CHECK_THROWS_WITH_AS(
      linksim::import_nccl_xml("<system>\n<cpu>\n<net name=\"mlx\xff\"/></cpu></system>", "x.xml",
                               {}),
      "x.xml:3:15: error: expected UTF-8 text in attribute 'name' of <net>, got byte 0xff",
      linksim::ConfigError);
}

TEST_CASE("export nccl-xml: pugixml writes a document the reader reads back") {
  const linksim::Topology h100 =
      linksim::testing::library_topology("dgx-h100.yaml");
  const std::string xml = linksim::export_nccl_xml(linksim::Router(h100), 0);
  CHECK(xml.rfind("<system version=\"1\">\n  <cpu numaid=\"0\" affinity=", 0) == 0);
  CHECK(xml.find("<nvlink target=\"0000:1a:00.0\" count=\"5\" tclass=\"0x068000\" />") !=
        std::string::npos);
  const linksim::sysimport::XmlElement system = linksim::sysimport::parse_nccl_xml(xml, "h.xml");
  CHECK(system.name == "system");
  CHECK(system.children.size() == 2);  // two sockets
  CHECK(system.children[0].where.line == 2);
  CHECK(system.children[0].where.column == 3);
}

TEST_CASE("nccl-xml: PCIe speeds and CPU masks convert both ways") {
  using namespace linksim::sysimport;
  CHECK(pcie_gen_from_link_speed("32.0 GT/s PCIe") == 5);
  CHECK(pcie_gen_from_link_speed("8 GT/s") == 3);
  CHECK_FALSE(pcie_gen_from_link_speed("fast").has_value());
  CHECK(link_speed_for_pcie_gen(4) == "16.0 GT/s PCIe");
  // 0x00ff00ff: cores 0-7 and 16-23; a second group's bit 0 is core 32.
  CHECK(cores_from_affinity_mask("00ff00ff") == "0-7,16-23");
  CHECK(cores_from_affinity_mask("00000001,00000000") == "32");
  CHECK(affinity_mask_from_cores("0-7,16-23") == "00ff00ff");
  CHECK(affinity_mask_from_cores("32") == "00000001,00000000");
}

TEST_CASE("export nccl-xml: re-importing an export reproduces the matrix") {
  for (const std::string name : {"dgx-h100.yaml", "dgx1-v100.yaml", "pcie-8gpu.yaml"}) {
    CAPTURE(name);
    const linksim::Topology t = linksim::load_topology(LINKSIM_SOURCE_DIR "/topologies/" + name);
    const linksim::Router router(t);
    const std::string xml = linksim::export_nccl_xml(router, 0);
    CAPTURE(xml);
    const std::string yaml = linksim::import_nccl_xml(xml, "export.xml", {});
    const linksim::VerifyReport report = round_trip(yaml, linksim::implied_matrix(router, 0));
    CHECK_MESSAGE(report.match(), report.text());
  }
}

}  // TEST_SUITE
