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

/// The most servers a topology may have (`nodes:`): 65,536, well past the largest GPU
/// clusters built (about 25,000 eight-GPU servers); it keeps a mistyped count from building
/// millions of servers in memory (docs/topology-format.md#limits).
inline constexpr int kMaxServers = 65536;

/// Loads a topology file, resolving includes relative to it.
/// Throws ConfigError (file:line:col, expected vs found) on any bad input: syntax, unknown
/// keys, unknown link or GPU types, bad units, duplicate names, dangling endpoints, bad
/// ranges, include cycles, unreachable GPUs, non-positive bandwidth, unknown parameters,
/// more than kMaxServers servers or more NICs than the fabric holds (checked before any server
/// is built). Reads the file with read_input_file (include/linksim/input_file.hpp).
Topology load_topology(const std::string& path, const ParamOverrides& overrides = {},
                       const Catalog& catalog = Catalog::builtin());

/// Parses topology text; `filename` names it in messages and anchors relative includes.
Topology parse_topology(std::string_view text, const std::string& filename,
                        const ParamOverrides& overrides = {},
                        const Catalog& catalog = Catalog::builtin());

/// Parses "k=v" as given to --set. Throws ConfigError when there is no '='.
std::pair<std::string, std::string> parse_override(std::string_view text);

}  // namespace linksim
