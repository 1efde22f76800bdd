// SPDX-License-Identifier: Apache-2.0
#include "cli/results_args.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include "linksim/collectives.hpp"
#include "linksim/error.hpp"

namespace linksim::cli {

void add_collective_option(CLI::App& command, std::string& name) {
  command.add_option("--collective", name,
                     "The collective of tables whose text does not name it (all_reduce, "
                     "all_gather, alltoall, ...); default: from the table itself");
}

NcclTestsReadOptions read_options(const std::string& collective) {
  if (!collective.empty() && !parse_collective(collective)) {
    std::string choices;
    for (const CollectiveName& name : collective_names()) {
      choices += choices.empty() ? "" : ", ";
      choices += name.name;
    }
    throw ConfigError(
        fmt::format("--collective: expected one of {}, got \"{}\"", choices, collective));
  }
  NcclTestsReadOptions options;
  options.collective = collective;
  return options;
}

}  // namespace linksim::cli
