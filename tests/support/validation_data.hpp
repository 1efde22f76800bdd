// SPDX-License-Identifier: Apache-2.0
// The public measurements in data/validation/ (nccl-tests tables, nvidia-smi outputs, an NCCL
// topology XML; data/validation/README.md gives each file's source URL), for tests that hold
// linksim against real machines. A missing file or folder fails the calling test with a
// message naming it; it never skips.
#pragma once

#include <string>
#include <vector>

namespace linksim::testing {

/// Absolute path of data/validation/<relative> (e.g. "topo-m/06-...txt"). REQUIREs that the
/// file exists; call it inside a TEST_CASE.
std::string validation_file(const std::string& relative);

/// Sorted absolute paths of the regular files in data/validation/<folder>. REQUIREs that the
/// folder exists and holds at least one file; call it inside a TEST_CASE.
std::vector<std::string> validation_files(const std::string& folder);

}  // namespace linksim::testing
