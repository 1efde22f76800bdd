// SPDX-License-Identifier: Apache-2.0
// The CLI's command table: each command file registers itself; main() builds the app.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace linksim::cli {

/// Adds a subcommand (with its options and callback) under `parent`.
/// `parent_name` is "" for top-level commands ("coll", "topo") or the name of a top-level
/// command for its subcommands ("topo" for "show", "matrix", ...).
struct CommandRegistration {
  std::string parent_name;
  std::string name;
  std::function<void(CLI::App& parent)> add;
};

std::vector<CommandRegistration>& command_table();

/// Registers at static-initialization time: `static CommandRegistrar r{"topo", "show", add_show};`
struct CommandRegistrar {
  CommandRegistrar(std::string parent, std::string name, std::function<void(CLI::App&)> add);
};

/// Exit statuses (docs/cli.md): 0 ok, 1 a check found a difference or warnings, 2 bad input.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitBadInput = 2;

/// Thrown by a command's callback to end the program with a status after printing.
struct ExitStatus {
  int code;
};

}  // namespace linksim::cli
