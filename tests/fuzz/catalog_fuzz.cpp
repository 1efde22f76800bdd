// SPDX-License-Identifier: Apache-2.0
// The GPU and link catalogs (docs/catalog.md). The input is a gpus.yaml, or a gpus.yaml and a
// links.yaml separated by a line "%%"; without the separator the built-in links are used.
// Whatever parses must serve every lookup and load a small machine of its first GPU model.
#include <fmt/format.h>

#include "fuzz/fuzz_support.hpp"
#include "linksim/catalog.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim::detail {
extern const char* const kBuiltinLinkCatalogYaml;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linksim;
  const std::string_view text = fuzz::as_text(data, size);
  const size_t separator = text.find("\n%%\n");
  const std::string_view gpus = text.substr(0, separator);
  const std::string_view links = separator == std::string_view::npos
                                     ? std::string_view(detail::kBuiltinLinkCatalogYaml)
                                     : text.substr(separator + 4);
  try {
    const Catalog catalog = Catalog::parse(gpus, "gpus.yaml", links, "links.yaml");
    for (const std::string& key : catalog.gpu_keys()) {
      if (catalog.find_gpu(key) == nullptr) fuzz::finding("a GPU key that find_gpu misses", key);
    }
    for (const std::string& key : catalog.link_type_keys()) {
      if (catalog.find_link_type(key) == nullptr) {
        fuzz::finding("a link type key that find_link_type misses", key);
      }
    }
    if (!catalog.gpus().empty() && catalog.find_link_type("pcie4") != nullptr) {
      const std::string machine = fmt::format(
          "name: one\nnode:\n  devices:\n    - {{name: cpu0, kind: cpu}}\n"
          "    - {{name: \"gpu[0-1]\", kind: gpu, model: \"{}\"}}\n"
          "  links:\n    - {{from: \"gpu[0-1]\", to: cpu0, type: pcie4, width: 16}}\n",
          catalog.gpus().front().key);
      try {
        (void)parse_topology(machine, "machine.yaml", {}, catalog);
      } catch (const ConfigError& error) {
        fuzz::check_refusal(error, machine, "machine.yaml");
      }
    }
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "catalog");
  }
  return 0;
}
