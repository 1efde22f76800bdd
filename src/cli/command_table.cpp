// SPDX-License-Identifier: Apache-2.0
// Storage for the self-registering command table.
#include "cli/command_table.hpp"

namespace linksim::cli {

std::vector<CommandRegistration>& command_table() {
  static std::vector<CommandRegistration> table;  // function-local: safe during static init
  return table;
}

CommandRegistrar::CommandRegistrar(std::string parent, std::string name,
                                   std::function<void(CLI::App&)> add) {
  command_table().push_back({std::move(parent), std::move(name), std::move(add)});
}

}  // namespace linksim::cli
