// SPDX-License-Identifier: Apache-2.0
// A path of this test process's own under the system's temporary directory: test binaries of
// several build trees (and the sanitizer suites) run at once on one machine, so a fixed name
// would be written and removed by another process mid-test.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace linksim::testing {

/// temp_directory_path() / "<name>-<pid>" (an extension in `name` is kept last).
inline std::filesystem::path scratch_path(const std::string& name) {
  const std::filesystem::path base(name);
  return std::filesystem::temp_directory_path() /
         (base.stem().string() + "-" + std::to_string(::getpid()) + base.extension().string());
}

}  // namespace linksim::testing
