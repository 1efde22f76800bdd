// SPDX-License-Identifier: Apache-2.0
// `nvidia-smi topo -m` captures (docs/verify-and-lint.md): a matrix or one positioned refusal.
// A parsed matrix must render, compare with itself as a match, and either import into
// topology YAML that loads or be refused as contradictory.
#include "fuzz/fuzz_support.hpp"
#include "linksim/sysimport.hpp"
#include "linksim/topology_yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linksim;
  const std::string_view text = fuzz::as_text(data, size);
  std::optional<SmiMatrix> matrix;
  try {
    matrix.emplace(parse_nvidia_smi_topo(text, "topo-m.txt"));
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "topo-m.txt");
    return 0;
  }
  (void)render_matrix(*matrix);
  if (!compare_matrices(*matrix, *matrix).match()) {
    fuzz::finding("a matrix that does not match itself", text);
  }
  std::string yaml;
  try {
    yaml = import_nvidia_smi(*matrix, {.name = "imported"});
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "");
    return 0;
  }
  try {
    (void)parse_topology(yaml, "imported.yaml");
  } catch (const ConfigError& error) {
    fuzz::finding(std::string("imported YAML does not load: ") + error.what(), yaml);
  }
  return 0;
}
