// SPDX-License-Identifier: Apache-2.0
// Loading topology files (docs/topology-format.md) into a Topology.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "linksim/catalog.hpp"
#include "linksim/topology.hpp"

namespace linksim {

/// Parameter overrides from the command line (`--set nodes=16`), name -> value text.
using ParamOverrides = std::map<std::string, std::string>;

/// Loads a topology file, resolving includes relative to it.
/// Throws ConfigError (file:line:col, expected vs found) on any bad input: syntax, unknown
/// keys, unknown link or GPU types, bad units, duplicate names, dangling endpoints, bad
/// ranges, include cycles, unreachable GPUs, non-positive bandwidth, unknown parameters.
Topology load_topology(const std::string& path, const ParamOverrides& overrides = {},
                       const Catalog& catalog = Catalog::builtin());

/// Parses topology text; `filename` names it in messages and anchors relative includes.
Topology parse_topology(std::string_view text, const std::string& filename,
                        const ParamOverrides& overrides = {},
                        const Catalog& catalog = Catalog::builtin());

/// Parses "k=v" as given to --set. Throws ConfigError when there is no '='.
std::pair<std::string, std::string> parse_override(std::string_view text);

}  // namespace linksim
