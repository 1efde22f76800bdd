// SPDX-License-Identifier: Apache-2.0
// Regression: inputs the fuzz targets of tests/fuzz/ found (docs/testing.md#fuzzing), each kept
// under tests/data/regress/ as found. They were accepted and failed later (a NIC with no link
// loaded, then routing failed without a position; an NCCL XML PCIe width of 15, and two GPUs
// of one dev, were written as YAML the loader refused) or gave an infinite number
// ("1e300TFLOPS").
#include <doctest/doctest.h>

#include <string>

#include "linksim/error.hpp"
#include "linksim/input_file.hpp"
#include "linksim/nccl_log.hpp"
#include "linksim/nccl_tests_output.hpp"
#include "linksim/routing.hpp"
#include "linksim/scenario.hpp"
#include "linksim/sysimport.hpp"
#include "linksim/topology_yaml.hpp"
#include "linksim/units.hpp"
#include "sysimport/topology_writer.hpp"

#include "support/regress_inputs.hpp"

using namespace linksim;

using testing::config_error_text;
using testing::regress_path;

TEST_SUITE("regress") {

TEST_CASE("fuzz findings: a NIC no GPU reaches is refused at its declaration") {
  // nic_without_links.yaml (topology_route target): oci-a100-roce.yaml with its NIC links
  // erased. It loaded, and routing gpu0 to nic0 failed with "no path ... in a server".
  const std::string path = regress_path("nic_without_links.yaml");
  CHECK(config_error_text([&] { load_topology(path); }) ==
        path + ":16:14: error: nic0 has no path to gpu0 within the server");
}

TEST_CASE("fuzz findings: a server loads only if it routes, as the router would route it") {
  // gpu_socket_link.yaml (topology_route target): a socket link from a GPU, and the sockets
  // left unlinked; it loaded and routing gpu0 to gpu4 failed with no position.
  const std::string socket = regress_path("gpu_socket_link.yaml");
  CHECK(config_error_text([&] { load_topology(socket); }) ==
        socket + ":11:7: error: expected a socket link (upi) between two cpus, got gpu0 to cpu1");
  // A NIC on a GPU's own link without a CPU above: the router goes up to a CPU.
  const std::string no_cpu = regress_path("gpu_nic_without_cpu.yaml");
  CHECK(config_error_text([&] { load_topology(no_cpu); }) ==
        no_cpu + ":7:14: error: nic0 has no path to gpu0 within the server");
  // A GPU reaching the CPU only through another GPU, which forwards nothing.
  const std::string through = regress_path("gpus_through_gpu.yaml");
  CHECK(config_error_text([&] { load_topology(through); }) ==
        through + ":8:14: error: gpu1 has no path to gpu0 within the server");
  // NVLink into an x86 CPU.
  const std::string nvlink = regress_path("nvlink_into_cpu.yaml");
  CHECK(config_error_text([&] { load_topology(nvlink); }) ==
        nvlink + ":10:7: error: expected an NVLink (nvlink3) between gpus and nvswitches, got "
                 "gpu0 to cpu0");
}

TEST_CASE("fuzz findings: every GPU pair of a partly filled radix-6 fabric has a route") {
  // small_radix_four_servers.yaml (topology_route target): 4 DGX H100 servers, radix-6 switches.
  // Routing host0:gpu0 to host3:gpu7 failed with "no network path"; each route between servers
  // now leaves through a NIC, crosses the fabric and ends at the destination GPU.
  const Topology t = load_topology(regress_path("small_radix_four_servers.yaml"));
  const Router router(t);
  const std::vector<DeviceId> gpus = t.gpus();
  REQUIRE(gpus.size() == 32);
  int routed_between_servers = 0;
  for (DeviceId a : gpus) {
    for (DeviceId b : gpus) {
      if (a == b || t.device(a).host == t.device(b).host) continue;
      const Route route = router.route(a, b);
      REQUIRE(!route.paths.empty());
      CHECK(t.link(route.paths.front().links.front()).from == a);
      CHECK(t.link(route.paths.front().links.back()).to == b);
      ++routed_between_servers;
    }
  }
  CHECK(routed_between_servers == 32 * 24);
}

TEST_CASE("fuzz findings: an NCCL XML PCIe link width outside the standard set is refused") {
  // nccl_xml_link_width_15.xml (nccl_xml target): a bridge with link_width="15".
  const std::string path = regress_path("nccl_xml_link_width_15.xml");
  CHECK(config_error_text([&] { import_nccl_xml(read_input_file(path), path, {}); }) ==
        path + ":92:5: error: expected link_width 1, 2, 4, 8 or 16 (a PCIe link width), got 15");
}

TEST_CASE("fuzz findings: repeated NCCL XML nvlinks to one target are one bonded link") {
  // nccl_xml_repeated_nvlink.xml (nccl_xml target): gpu2 names NVSwitch 0000:1d:00.0 twice
  // (count 4 each). Two links of one pair were written, which the loader refuses; NCCL adds
  // their bandwidth to one link, so the import bonds them: 4 + 4 = 8 lanes.
  const std::string path = regress_path("nccl_xml_repeated_nvlink.xml");
  const std::string yaml = import_nccl_xml(read_input_file(path), path, {});
  const Topology t = parse_topology(yaml, "imported.yaml");
  const DeviceId gpu2 = *t.find("gpu2");
  int lanes_to_switch = 0;
  int links_to_switch = 0;
  for (const Link& link : t.links()) {
    if (link.from == gpu2 && t.display_name(link.to) == "nvswitch3") {
      lanes_to_switch += link.lanes;
      ++links_to_switch;
    }
  }
  CHECK(links_to_switch == 1);
  CHECK(lanes_to_switch == 8);
}

TEST_CASE("fuzz findings: imported text with a newline stays on its line of the YAML") {
  // nccl_xml_newline_in_target.xml (nccl_xml target): an <nvlink> target holding a newline
  // ("0000:1c:0pci>\n0.0"). The import wrote it into a link's comment, whose second line was
  // YAML the loader refused ("illegal map value"). Comments are one line now.
  const std::string path = regress_path("nccl_xml_newline_in_target.xml");
  const std::string yaml = import_nccl_xml(read_input_file(path), path, {});
  CHECK(yaml.find("# nvlink target 0000:1c:0pci>     0.0\n") != std::string::npos);
  const Topology t = parse_topology(yaml, "imported.yaml");
  CHECK(t.gpus().size() == 5);  // the <gpu> elements the mutated file kept
  CHECK(sysimport::yaml_quote("a\nb\t\"c\"") == "\"a\\x0ab\\x09\\\"c\\\"\"");
  const Topology named = parse_topology("name: \"two\\x0alines\"\nnode:\n  devices:\n    - "
                                        "{name: gpu0, kind: gpu, model: a40}\n",
                                        "quoted.yaml");
  CHECK(named.name() == "two\nlines");
}

TEST_CASE("fuzz findings: a NIC name with a colon is refused where the capture gives it") {
  // topo_m_nic_name_colon.txt (nvidia_smi target) and nccl_xml_net_name_colon.xml (nccl_xml
  // target): the name became the NIC's port, which the loader refused inside the written YAML.
  const std::string smi = regress_path("topo_m_nic_name_colon.txt");
  CHECK(config_error_text([&] { parse_nvidia_smi_topo(read_input_file(smi), smi); }) ==
        smi + ":28:9: error: expected a NIC name of letters, digits, '_', '.' and '-' (such as "
              "mlx5_0), got \"mvocab:nd_0\"");
  const std::string xml = regress_path("nccl_xml_net_name_colon.xml");
  CHECK(config_error_text([&] { import_nccl_xml(read_input_file(xml), xml, {}); }) ==
        xml + ":64:13: error: expected a <net> name of letters, digits, '_', '.' and '-' (such as "
              "mlx5_0), got \"sp:5_28\"");
}

TEST_CASE("fuzz findings: a bracket in a NIC name or a '$' in a CPU affinity is refused") {
  // nccl_xml_net_name_bracket.xml (nccl_xml target): <net name="mlx5]30"> became a port the
  // loader read as a name range. topo_m_affinity_dollar.txt (nvidia_smi target): a CPU
  // affinity holding "${" was written where the loader substitutes parameters.
  const std::string xml = regress_path("nccl_xml_net_name_bracket.xml");
  CHECK(config_error_text([&] { import_nccl_xml(read_input_file(xml), xml, {}); }) ==
        xml + ":84:13: error: expected a <net> name of letters, digits, '_', '.' and '-' (such as "
              "mlx5_0), got \"mlx5]30\"");
  const std::string smi = regress_path("topo_m_affinity_dollar.txt");
  const std::string message = config_error_text([&] { parse_nvidia_smi_topo(read_input_file(smi), smi); });
  CHECK(message.starts_with(smi + ":5:25: error: expected a CPU affinity such as 0-47,96-143 or "
                                  "N/A, got \"24-47,"));
}

TEST_CASE("fuzz findings: two NCCL XML GPUs with one dev are refused at the second") {
  // nccl_xml_same_dev.xml (nccl_xml target): GPU ranks 1 and 2 both dev="1"; both became gpu1.
  // (A non-ASCII byte the fuzzer put in a NIC name on line 44 is mended: that name is refused
  // first, by the test above.)
  const std::string path = regress_path("nccl_xml_same_dev.xml");
  CHECK(config_error_text([&] { import_nccl_xml(read_input_file(path), path, {}); }) ==
        path + ":53:11: error: expected a dev no other <gpu> has, got dev 1 again");
}

TEST_CASE("fuzz findings: a FLOP rate that overflows is no FLOP rate") {
  // flops_overflow.txt (units target): "1e300TFLOPS" parsed as infinity.
  CHECK_FALSE(parse_flops(read_input_file(regress_path("flops_overflow.txt"))).has_value());
  CHECK_FALSE(parse_flops("1e300 TFLOP/s").has_value());
  CHECK(parse_flops("1e3 TFLOP/s") == 1e15);
}

TEST_CASE("fuzz findings: an NCCL log that is not UTF-8 is refused at the byte") {
  // nccl_log_invalid_utf8.log (nccl_log target): a host name with byte 0x8c reached the JSON
  // writer, which threw from inside the report.
  const std::string path = regress_path("nccl_log_invalid_utf8.log");
  const std::string text = read_input_file(path);
  CHECK(config_error_text([&] { parse_nccl_log(text, "run.log"); }) ==
        "run.log:4:4: error: expected UTF-8 text, got byte 0x8c");
}

TEST_CASE("fuzz findings: a scenario sweep from minbytes 0 is refused at minbytes") {
  // scenario_minbytes_zero.yaml (scenario target): the sweep refused 0 x 8 without naming the
  // scenario file.
  const std::string path = regress_path("scenario_minbytes_zero.yaml");
  CHECK(config_error_text([&] { parse_scenario(read_input_file(path), path); }) ==
        path + ":7:15: error: expected minbytes > 0 to multiply by stepfactor 8 up to maxbytes "
               "(0 x 8 stays 0), got \"0K\"");
}

TEST_CASE("fuzz findings: a JSON number beyond a double is refused at the number") {
  // nccl_tests_json_number_overflow.txt (nccl_tests_pasted target, 10-minute run): the JSON
  // library's out_of_range for 6e714 escaped the reader as an uncaught exception.
  const std::string path = regress_path("nccl_tests_json_number_overflow.txt");
  const std::string text = read_input_file(path);
  CHECK(config_error_text([&] { parse_nccl_tests_outputs(text, "results.json", {}); }) ==
        "results.json:2:17: error: invalid nccl-tests JSON: expected a number within a double's "
        "range, got 6e714");
}

}
