// SPDX-License-Identifier: Apache-2.0
// Helpers shared by CLI commands: the `FILE [--set k=v]...` topology arguments.
#pragma once

#include <string>
#include <vector>

#include "linksim/model_calibration.hpp"
#include "linksim/topology.hpp"

namespace CLI {
class App;
class Validator;
}

namespace linksim::cli {

/// A topology file and its parameter overrides, as given on the command line.
struct TopoArgs {
  std::string file;
  std::vector<std::string> sets;  ///< "name=value"
};

/// Adds the positional FILE (required) and the repeatable `--set name=value` option.
/// REQUIRES: `args` outlives the parse (keep it in a shared_ptr captured by the callback).
void add_topology_options(CLI::App& command, TopoArgs& args);

/// Loads the file with its overrides. Throws ConfigError (exit 2) on a bad file or --set.
Topology load_topology_arg(const TopoArgs& args);

/// --calibration PROFILE: a profile written by `linksim calibrate` (docs/calibration.md).
void add_calibration_option(CLI::App& command, std::string& profile_path);
/// Loads the profile at `profile_path` (nothing when empty) into `topology`. Throws
/// ConfigError at the profile's file:line:column when it does not parse.
/// --calibration's profile (neutral when none is given). Throws ConfigError when it cannot be
/// read or does not parse.
ModelCalibration calibration_arg(const std::string& profile_path);

/// A validator for an integer flag within [min, max]. CLI11 puts the flag's name in front:
/// "--channels: expected <what> between 1 and 64, got \"0\"" (with max = INT_MAX:
/// "expected <what> >= 1, got ...").
CLI::Validator int_between(int min, int max, const std::string& what);

/// Checks a --host value against the topology; throws ConfigError "expected a host ...".
void check_host_arg(const Topology& topology, int host);

}  // namespace linksim::cli
