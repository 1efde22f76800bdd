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

/// The most devices one server (`node:`) may declare: 4,096, past any machine built (a GB200
/// NVL72 rack described as one server has under 300; an NVL576 domain about 1,000).
inline constexpr int kMaxServerDevices = 4096;
/// The most GPUs one server may hold: 1,024, past the largest NVLink domain announced (576
/// GPUs). Routing tables grow with the square of a server's GPUs and NICs.
inline constexpr int kMaxServerGpus = 1024;
/// The most links one server may declare: 65,536 (an NVL72 rack as one server has about
/// 1,300 NVLinks and 300 PCIe links). All three are checked as entries are read, before the
/// server is built (docs/topology-format.md#limits).
inline constexpr int kMaxServerLinks = 65536;

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
