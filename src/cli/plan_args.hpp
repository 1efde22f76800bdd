// SPDX-License-Identifier: Apache-2.0
// The flags of `plan` and `explain plan`, parsed into a PlanRequest and a topology.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "linksim/gpu_selection.hpp"
#include "linksim/plan.hpp"
#include "linksim/topology.hpp"

namespace CLI {
class App;
}

namespace linksim::cli {

/// The flags as typed; turned into a PlanRequest by to_request().
struct PlanArgs {
  std::string topo;
  std::vector<std::string> sets;
  std::vector<std::string> degrade;  ///< --degrade SPEC (docs/cli.md#degrade)
  std::string calibration;  ///< --calibration PROFILE (docs/calibration.md)
  std::optional<std::string> model, arch, mode;
  std::optional<int> tp, pp, dp, cp, ep, etp, vpp, zero;
  bool sp = false;
  std::optional<int> micro_batch, global_batch, seq, batch, kv_len, prefill_chunk;
  std::string dtype = "bf16";
  std::optional<std::string> weight_dtype;
  std::string recompute = "selective", tp_overlap = "none";
  GpuSelection gpus;
  std::optional<double> gemm_efficiency, hbm_efficiency;
  std::optional<int> baseline;
  bool search = false, sensitivity = false, json = false, nccl_debug = false;
  std::string p2p = "on", nvls = "on", sim = "analytic";
  std::string p2p_level, ib_hca;  ///< NCCL_P2P_LEVEL, NCCL_IB_HCA as coll takes them
  std::string nccl_version;  ///< --nccl-version X.Y; empty = the default release
};

/// Every flag of `plan`. REQUIRES: `a` outlives the parse.
void add_plan_options(CLI::App& command, PlanArgs& a);

/// The request the flags describe. Throws ConfigError naming the flag.
PlanRequest to_request(const PlanArgs& a);

/// --topo with its --set overrides (last wins). Throws ConfigError on a bad file or --set.
Topology topology_arg(const PlanArgs& a);

}  // namespace linksim::cli
