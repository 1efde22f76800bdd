// SPDX-License-Identifier: Apache-2.0
#include "cli/nccl_debug_log.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace linksim::cli {

void write_nccl_log(const std::vector<std::string>& lines) {
  // Unregistered, single-threaded, unformatted: the lines carry NCCL's own prefix.
  spdlog::logger log("nccl", std::make_shared<spdlog::sinks::stderr_sink_st>());
  log.set_pattern("%v");
  log.set_level(spdlog::level::info);
  for (const std::string& line : lines) log.info(line);
  log.flush();
}

}  // namespace linksim::cli
