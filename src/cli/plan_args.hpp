// SPDX-License-Identifier: Apache-2.0
// The flags of `plan` and `explain plan`, parsed into a PlanRequest and a topology.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/comm_flags.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/plan.hpp"
#include "linksim/topology.hpp"
#include "cli/plan_stack_args.hpp"

namespace CLI {
class App;
}

namespace linksim::cli {

/// The flags as typed: the shared machine and NCCL-switch groups, then the plan's own;
/// turned into a PlanRequest by to_request().
struct PlanArgs : MachineFlags, CommFlags {
  std::optional<std::string> model, arch, mode;
  std::optional<int> tp, pp, dp, cp, ep, etp, vpp;
  std::optional<std::string> zero;  ///< 0..3, fsdp or hsdp
  bool sp = false;
  std::optional<int> micro_batch, global_batch, seq, batch, kv_len, prefill_chunk;
  std::string dtype = "bf16";
  std::optional<std::string> weight_dtype;
  std::string recompute = "selective", tp_overlap = "none";
  std::optional<double> gemm_efficiency, hbm_efficiency;
  std::optional<int> baseline;
  bool search = false, sensitivity = false, json = false, nccl_debug = false;
  std::string sim = "analytic";
  /// plan --engine (prefill, decode): none = kernels and NCCL alone (the default)
  std::optional<std::string> engine, engine_overhead, allreduce;
  StackArgs stack;           ///< --framework, --compile, --shard-group
};

/// Every flag of `plan`: the machine group (one --topo), the layout flags, the NCCL-switch
/// group, --sim and --json. REQUIRES: `a` outlives the parse.
void add_plan_options(CLI::App& command, PlanArgs& a);

/// The model and layout flags alone (--model, --arch, --mode, the parallel degrees, batch
/// and sequence sizes, precisions, recomputation, efficiencies): what a command that runs
/// the planner's step model registers besides add_machine_flags and add_comm_flags.
void add_layout_options(CLI::App& command, PlanArgs& a);

/// The request the flags describe. Throws ConfigError naming the flag.
PlanRequest to_request(const PlanArgs& a);

/// --topo with its --set overrides (last wins). Throws ConfigError on a bad file or --set.
Topology topology_arg(const PlanArgs& a);

}  // namespace linksim::cli
