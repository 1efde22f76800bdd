// SPDX-License-Identifier: Apache-2.0
// Topology YAML (docs/topology-format.md): a loaded machine or one positioned refusal.
#include "fuzz/fuzz_support.hpp"
#include "linksim/topology_yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linksim;
  const std::string_view text = fuzz::as_text(data, size);
  const std::string file = fuzz::source_path("topologies/fuzz-input.yaml");
  try {
    const Topology topology = parse_topology(text, file);
    if (topology.devices().empty()) fuzz::finding("a topology without devices loaded", text);
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, file);
  }
  return 0;
}
