// SPDX-License-Identifier: Apache-2.0
// NCCL topology XML (NCCL_TOPO_DUMP_FILE): topology YAML that loads, or one positioned refusal.
#include "fuzz/fuzz_support.hpp"
#include "linksim/sysimport.hpp"
#include "linksim/topology_yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linksim;
  const std::string_view text = fuzz::as_text(data, size);
  std::string yaml;
  try {
    yaml = import_nccl_xml(text, "topo.xml", {.name = "imported"});
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "topo.xml");
    return 0;
  }
  try {
    (void)parse_topology(yaml, "imported.yaml");
  } catch (const ConfigError& error) {
    fuzz::finding(std::string("imported YAML does not load: ") + error.what(), yaml);
  }
  return 0;
}
