// SPDX-License-Identifier: Apache-2.0
// Shared by the regression tests (tests/regress/): where the inputs live and the text of the
// positioned error an input gives.
#pragma once

#include <string>

#include "linksim/error.hpp"

namespace linksim::testing {

/// tests/data/regress/NAME in the source tree.
inline std::string regress_path(const std::string& name) {
  return std::string(LINKSIM_SOURCE_DIR) + "/tests/data/regress/" + name;
}

/// The ConfigError text `call` throws, or "(no error)" when it returns.
inline std::string config_error_text(auto&& call) {
  try {
    call();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace linksim::testing
