// SPDX-License-Identifier: Apache-2.0
// The training-stack flags of `plan` and `explain plan`: --framework, --compile and HSDP's
// --shard-group (docs/planner.md#frameworks).
#pragma once

#include <optional>
#include <string>

#include "linksim/plan.hpp"

namespace CLI {
class App;
}

namespace linksim::cli {

struct StackArgs {
  std::string framework = "megatron";
  std::optional<std::string> compile;  ///< on | off; default: the framework's
  std::optional<int> shard_group;      ///< --zero hsdp: ranks per shard group
};

/// Registers --framework, --compile and --shard-group. REQUIRES: `a` outlives the parse.
void add_stack_options(CLI::App& command, StackArgs& a);

/// --zero as typed (0..3, fsdp = 3, or hsdp = 3 sharded within --shard-group ranks, by default
/// the data-parallel ranks of one server) and the stack flags into `r`. Throws ConfigError
/// naming the flag.
void apply_stack_args(const StackArgs& a, const std::optional<std::string>& zero, PlanRequest& r);

}  // namespace linksim::cli
