// SPDX-License-Identifier: Apache-2.0
// --nccl-debug: writes rendered NCCL log lines (include/linksim/nccl_debug_report.hpp) to
// stderr, so that stdout (table, --json, --csv) stays clean.
#pragma once

#include <string>
#include <vector>

namespace linksim::cli {

/// The help text of --nccl-debug, shared by `coll` and `plan`.
inline constexpr const char* kNcclDebugHelp =
    "Print to stderr what NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING would log: "
    "rings, trees, each hop's transport, the tuner's table and choice per size";

/// Writes each line, as is, to stderr.
void write_nccl_log(const std::vector<std::string>& lines);

}  // namespace linksim::cli
