// SPDX-License-Identifier: Apache-2.0
// Defaults for importers: the named catalog GPU, or generic ones, stated in the output.
#include "sysimport/import_defaults.hpp"

#include <fmt/core.h>

namespace linksim::sysimport {

std::string nic_type_for_pcie_gen(int gen) {
  if (gen <= 3) return "ib_edr";
  if (gen == 4) return "ib_hdr";
  return "ib_ndr";
}

ImportDefaults resolve_defaults(const ImportOptions& options, const Catalog& catalog) {
  ImportDefaults d;
  d.named = !options.gpu_model.empty();
  const std::string wanted = d.named ? options.gpu_model : kGenericGpuModel;
  const GpuModel* model = catalog.find_gpu(wanted);
  if (!model) {
    std::vector<std::string> notes;
    const std::string close = closest_match(wanted, catalog.gpu_keys());
    if (!close.empty()) notes.push_back(fmt::format("did you mean '{}'?", close));
    throw ConfigError(fmt::format("unknown GPU model '{}'", wanted), notes);
  }
  d.gpu_model = model->key;
  d.nvlink_type = model->nvlink_type.empty() ? "nvlink4" : model->nvlink_type;
  const int gen = model->pcie_gen > 0 ? model->pcie_gen : 4;
  d.pcie_type = fmt::format("pcie{}", gen);
  d.nic_type = nic_type_for_pcie_gen(gen);
  d.smp_type = kGenericSmpLink;
  return d;
}

std::vector<std::string> ImportDefaults::comments() const {
  std::vector<std::string> lines;
  if (named) {
    lines.push_back(fmt::format("GPU model {} ({}): NVLink type {}, PCIe {} from the catalog.",
                                gpu_model, origin, nvlink_type, pcie_type));
  } else {
    lines.push_back(fmt::format("No GPU model named (--gpu): generic defaults, GPU model {}, "
                                "NVLink {}, {}.",
                                gpu_model, nvlink_type, pcie_type));
  }
  lines.push_back(fmt::format("NIC port type {} and socket link {} are defaults "
                              "(docs/verify-and-lint.md#import-defaults): check them.",
                              nic_type, smp_type));
  return lines;
}

bool is_plain_nic_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '.' || c == '-';
    if (!plain) return false;
  }
  return true;
}

}  // namespace linksim::sysimport
