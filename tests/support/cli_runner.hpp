// SPDX-License-Identifier: Apache-2.0
// Runs the real `linksim` binary (LINKSIM_CLI_PATH) for end-to-end checks.
#pragma once

#include <string>

namespace linksim::testing {

struct CliRun {
  int status = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Runs `linksim <args>` through the shell; `args` is pasted as is (quote paths yourself).
CliRun run_linksim(const std::string& args);

}  // namespace linksim::testing
