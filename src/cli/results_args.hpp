// SPDX-License-Identifier: Apache-2.0
// The flag of the commands that read nccl-tests outputs (coll compare, calibrate, accept):
// --collective, for pasted tables whose text names none.
#pragma once

#include <string>

#include "linksim/nccl_tests_output.hpp"

namespace CLI {
class App;
}

namespace linksim::cli {

/// --collective NAME. REQUIRES: `name` outlives the parse.
void add_collective_option(CLI::App& command, std::string& name);

/// The reader's options for --collective's value; ConfigError "--collective: expected one
/// of ..., got ..." for a name that is no collective.
NcclTestsReadOptions read_options(const std::string& collective);

}  // namespace linksim::cli
