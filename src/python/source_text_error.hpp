// SPDX-License-Identifier: Apache-2.0
// A ConfigError about text that is not a file (YAML given to load_topology as a string), kept
// with that text so the Python exception's diagnostic can show the offending line.
#pragma once

#include <string>

#include "linksim/error.hpp"

namespace linksim::python {

struct SourceTextError {
  ConfigError error;
  std::string source_text;
};

}  // namespace linksim::python
