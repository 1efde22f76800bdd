// SPDX-License-Identifier: Apache-2.0
// --engine, --engine-overhead and --allreduce: a serving engine from the catalog
// (include/linksim/engine.hpp) with the user's overrides. Shared by `serve` and `plan`.
#pragma once

#include <optional>
#include <string>

#include "linksim/engine.hpp"

namespace linksim::cli {

/// The engine `name` with --engine-overhead (a duration with a unit) and --allreduce
/// (nccl | custom) applied. Throws ConfigError naming the flag, expected against found.
EngineModel engine_arg(const std::string& name, const std::optional<std::string>& overhead,
                       const std::optional<std::string>& allreduce);

}  // namespace linksim::cli
