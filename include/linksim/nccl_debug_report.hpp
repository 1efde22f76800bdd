// SPDX-License-Identifier: Apache-2.0
// NCCL's NCCL_DEBUG=INFO log lines (SUBSYS INIT,GRAPH,TUNING) for a NcclDebugInfo
// (include/linksim/nccl_debug.hpp), in NCCL's own formats so that they can be read next to a
// real log line by line (docs/cli.md#nccl-debug, docs/model.md#nccl-debug).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "linksim/nccl_debug.hpp"
#include "linksim/plan_nccl_debug.hpp"

namespace linksim {

/// The synthetic prefix of a line NCCL's rank `rank` would print: "linksim:S:R [D] NCCL INFO "
/// where S is the rank's server, R the rank and D its GPU index in the server (in NCCL's
/// "host:pid:tid [cudaDev]" slots).
std::string nccl_log_prefix(const NcclDebugInfo& info, int rank);

/// Every line, prefixed, without newlines: the communicator's init (`comm` names it in the
/// slot of NCCL's comm pointer: the topology's name, "tp (gpu0-3)", ...), ring channels, ring graph, per-rank rings
/// and trees, the tuner's table, every hop's transport, then one block per call with the
/// tuner's estimates and choice. `first_op_count` numbers the calls (NCCL's opCount).
std::vector<std::string> render_nccl_debug(const NcclDebugInfo& info, std::string_view comm,
                                           int first_op_count = 0);

/// Every group of a plan, one after the other, each named "KIND (GPUS)" in the comm slot;
/// opCount runs on across the groups.
std::vector<std::string> render_nccl_debug(const std::vector<NcclDebugGroup>& groups);

/// NCCL's names: "AllReduce", ... (ncclFuncStr); "Tree", "Ring", "NVLS", "NVLSTree"
/// (ncclAlgoStr; "Direct" for AllToAll/SendRecv's pattern); "LL", "LL128", "Simple".
std::string_view nccl_func_name(CollectiveOp op);
std::string_view nccl_algo_name(Algorithm algo);
std::string_view nccl_proto_name(Protocol proto);

}  // namespace linksim
