// SPDX-License-Identifier: Apache-2.0
// --degrade SPEC: the machine with faults (include/linksim/faults.hpp; docs/cli.md#degrade),
// one call to register the flag and one to apply it, for every command that loads a machine.
#pragma once

#include <string>
#include <vector>

#include "linksim/topology.hpp"

namespace CLI {
class App;
}

namespace linksim::cli {

/// --degrade SPEC (repeatable; one value per use, so a positional may follow).
/// REQUIRES: `specs` outlives the parse.
void add_degrade_option(CLI::App& command, std::vector<std::string>& specs);

/// `topology` with every spec applied in order; ConfigError "--degrade: ..." for a bad spec.
Topology apply_degrade(Topology topology, const std::vector<std::string>& specs);

}  // namespace linksim::cli
