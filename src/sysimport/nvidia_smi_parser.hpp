// SPDX-License-Identifier: Apache-2.0
// Internals of the `nvidia-smi topo -m` parser shared with the writer and the tests.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "linksim/sysimport.hpp"

namespace linksim::sysimport {

/// Parses one cell code: "X", "NV1".."NV99", "PIX", "PXB", "PHB", "NODE", "SYS" (exact case,
/// as nvidia-smi prints them). nullopt for anything else, including "NV0".
std::optional<SmiCell> parse_cell_code(std::string_view text);

/// The codes accepted, for "expected ..." messages.
inline constexpr std::string_view kCellCodes = "X, NV#, PIX, PXB, PHB, NODE or SYS";

}  // namespace linksim::sysimport
