// SPDX-License-Identifier: Apache-2.0
// The top-level command groups: `topo` (machine descriptions) and `coll` (collectives).
#include <CLI/CLI.hpp>

#include "cli/command_table.hpp"

namespace linksim::cli {
namespace {

const CommandRegistrar kTopo{"", "topo", [](CLI::App& app) {
  app.add_subcommand("topo", "Inspect, check and convert machine descriptions")
      ->require_subcommand(1);
}};

}  // namespace
}  // namespace linksim::cli
