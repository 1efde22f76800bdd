// SPDX-License-Identifier: Apache-2.0
// linksim's entry point: builds the command tree from the command table and maps errors to
// exit statuses (0 ok, 1 findings, 2 bad input, 3 internal error).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <fmt/core.h>

#include "cli/command_table.hpp"
#include "cli/field_flags.hpp"
#include "cli/malloc_huge_pages.hpp"
#include "linksim/error.hpp"

namespace {

// docs/cli.md#exit-codes: a bug, not bad input.
constexpr int kExitInternalError = 3;

using linksim::cli::command_table;
using linksim::cli::CommandRegistration;

void build_app(CLI::App& app) {
  auto table = command_table();
  // Parents first, then their subcommands, each group in name order for a stable --help.
  std::stable_sort(table.begin(), table.end(), [](const auto& a, const auto& b) {
    if (a.parent_name.empty() != b.parent_name.empty()) return a.parent_name.empty();
    return a.name < b.name;
  });
  for (const CommandRegistration& entry : table) {
    if (entry.parent_name.empty()) {
      entry.add(app);
    } else {
      CLI::App* parent = app.get_subcommand(entry.parent_name);
      entry.add(*parent);
    }
  }
}

// A repeatable option (--set k=v, --topo F, --format a,b) takes one value per occurrence, so
// it never consumes the positional arguments that follow it (`calibrate --set nodes=2 FILE`).
void one_value_per_occurrence(CLI::App& command) {
  for (CLI::Option* option : command.get_options()) {
    if (!option->get_positional() && option->get_expected_max() > 1) {
      option->allow_extra_args(false);
    }
  }
  for (CLI::App* sub : command.get_subcommands({})) one_value_per_occurrence(*sub);
}

}  // namespace

int main(int argc, char** argv) {
  linksim::cli::restart_with_huge_page_malloc(argv);
  CLI::App app{"linksim: an analytic interconnect simulator for multi-GPU machines", "linksim"};
  app.set_version_flag("--version", std::string("linksim ") + LINKSIM_VERSION);
  app.require_subcommand(1);
  try {
    build_app(app);
    one_value_per_occurrence(app);
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Usage errors (unknown flag, missing argument, bad value) are bad input: status 2, in
    // the one error style (CLI11's texts behind linksim's prefix).
    std::fflush(stdout);
    fmt::print(stderr, "linksim: error: {}\n  note: run with --help for usage\n", e.what());
    return linksim::cli::kExitBadInput;
  } catch (const linksim::ConfigError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "{}\n", linksim::format_diagnostic(linksim::cli::with_flag_names(e)));
    return linksim::cli::kExitBadInput;
  } catch (const linksim::cli::ExitStatus& e) {
    return e.code;
  } catch (const linksim::InternalError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "linksim: {}; please report it\n", e.what());
    return kExitInternalError;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "linksim: internal error: {}; please report it\n", e.what());
    return kExitInternalError;
  }
  return linksim::cli::kExitOk;
}
