// SPDX-License-Identifier: Apache-2.0
#include "cli/plan_stack_args.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include "linksim/error.hpp"

namespace linksim::cli {

void add_stack_options(CLI::App& c, StackArgs& a) {
  c.add_option("--framework", a.framework,
               "Training stack: megatron | nemo | torchtitan | fsdp | deepspeed | llm-foundry "
               "(default megatron)");
  c.add_option("--compile", a.compile, "on|off: torch.compile (default: the framework's)");
  c.add_option("--shard-group", a.shard_group,
               "--zero hsdp: ranks each parameter is sharded over (default: one server's DP ranks)");
}

void apply_stack_args(const StackArgs& a, const std::optional<std::string>& zero, PlanRequest& r) {
  const std::optional<TrainFramework> framework = parse_train_framework(a.framework);
  if (!framework) {
    throw ConfigError(fmt::format("--framework: expected one of megatron, nemo, torchtitan, fsdp, "
                                  "deepspeed, llm-foundry, got \"{}\"",
                                  a.framework));
  }
  r.framework = *framework;
  if (a.compile) {
    if (*a.compile != "on" && *a.compile != "off") {
      throw ConfigError(fmt::format("--compile: expected on or off, got \"{}\"", *a.compile));
    }
    r.compile = *a.compile == "on";
  }
  bool hsdp = false;
  if (zero) {
    if (*zero == "hsdp") {
      hsdp = true;
      r.zero = 3;
    } else if (*zero == "fsdp") {
      r.zero = 3;
    } else if (zero->size() == 1 && (*zero)[0] >= '0' && (*zero)[0] <= '3') {
      r.zero = (*zero)[0] - '0';
    } else {
      throw ConfigError(fmt::format("--zero: expected 0, 1, 2, 3, fsdp or hsdp, got {}", *zero));
    }
  }
  if (a.shard_group) {
    if (!hsdp) throw ConfigError("--shard-group: applies to --zero hsdp only");
    if (*a.shard_group < 1) {
      throw ConfigError(fmt::format("--shard-group: expected a positive integer, got {}", *a.shard_group));
    }
    r.shard_group = *a.shard_group;
  } else if (hsdp) {
    r.shard_group = PlanRequest::kShardGroupPerServer;
  }
}

}  // namespace linksim::cli
