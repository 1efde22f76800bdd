// SPDX-License-Identifier: Apache-2.0
#include "cli/engine_flags.hpp"

#include "linksim/serve_options.hpp"

namespace linksim::cli {

EngineModel engine_arg(const std::string& name, const std::optional<std::string>& overhead,
                       const std::optional<std::string>& allreduce) {
  return serving_engine_option(name, overhead, allreduce, OptionSpelling::kFlag);
}

}  // namespace linksim::cli
