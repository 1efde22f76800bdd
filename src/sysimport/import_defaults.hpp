// SPDX-License-Identifier: Apache-2.0
// What an importer cannot read from its input: the GPU model and the link types, from the
// catalog entry the user names (--gpu) or from generic defaults (docs/verify-and-lint.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "linksim/catalog.hpp"
#include "linksim/sysimport.hpp"

namespace linksim::sysimport {

/// The generic GPU model used when none is named: a catalog key (docs/verify-and-lint.md).
inline constexpr const char* kGenericGpuModel = "h100-sxm";
/// The inter-socket link when nothing says otherwise (Intel UPI; docs/verify-and-lint.md).
inline constexpr const char* kGenericSmpLink = "upi";

struct ImportDefaults {
  std::string gpu_model;    ///< catalog key
  std::string nvlink_type;  ///< "nvlink3"; the model's, or "nvlink4" when it has none
  std::string pcie_type;    ///< "pcie4": from the model's PCIe generation
  std::string nic_type;     ///< NIC port type matching that PCIe generation
  std::string smp_type;     ///< "upi"
  bool named = false;       ///< the model was named by the user (or chosen from the input)
  std::string origin = "named with --gpu";  ///< how a named model was chosen, for comments
  /// Comment lines saying where each default came from.
  std::vector<std::string> comments() const;
};

/// Resolves options.gpu_model against the catalog (case-insensitive, aliases).
/// Throws ConfigError "unknown GPU model 'x'" (with a did-you-mean note) when not found.
ImportDefaults resolve_defaults(const ImportOptions& options, const Catalog& catalog);

/// The NIC port type a server of this PCIe generation usually carries: gen3 EDR, gen4 HDR,
/// gen5+ NDR (one x16 slot's rate at or above the NIC's: docs/verify-and-lint.md).
std::string nic_type_for_pcie_gen(int gen);

/// Whether a NIC name read from a capture (mlx5_0, ibp12s0, eth0.1) can be written as a device
/// name of the topology format: letters, digits, '_', '.' and '-' only, none of the format's
/// range ([ ]) or parameter (${ }) syntax.
bool is_plain_nic_name(std::string_view name);

}  // namespace linksim::sysimport
