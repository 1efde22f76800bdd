// SPDX-License-Identifier: Apache-2.0
// `linksim plan`: parses a model, a parallel layout and a machine into a PlanRequest, asks the
// planner (include/linksim/plan.hpp) and prints its answer (include/linksim/plan_report.hpp).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_table.hpp"
#include "cli/nccl_debug_log.hpp"
#include "cli/plan_args.hpp"
#include "linksim/error.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/model.hpp"
#include "linksim/nccl_debug_report.hpp"
#include "linksim/plan.hpp"
#include "linksim/plan_report.hpp"
#include "linksim/topology_yaml.hpp"

namespace linksim::cli {
namespace {

/// The factor every --sensitivity row applies to its resource.
constexpr double kSensitivityFactor = 2;

void run(const PlanArgs& a) {
  if (a.search && a.sensitivity) {
    throw ConfigError("--search and --sensitivity: expected one of them, got both");
  }
  if (a.search && a.nccl_debug) {
    throw ConfigError("--search and --nccl-debug: expected one of them, got both");
  }
  PlanRequest request = to_request(a);
  const Topology topology = topology_arg(a);
  if (a.search) {
    const std::vector<SearchCandidate> ranked = search_layouts(topology, request);
    fmt::print("{}", a.json ? render_search_json(ranked) : render_search_text(ranked));
    return;
  }
  const PlanResult result = plan(topology, request);
  if (a.nccl_debug) write_nccl_log(render_nccl_debug(plan_nccl_debug(topology, request, result)));
  if (a.sensitivity) {
    request.compute_baseline = false;  // the rows compare step times, not speedups
    const std::vector<SensitivityRow> rows = sensitivity(topology, request, kSensitivityFactor);
    if (a.json) {
      fmt::print("{}", render_sensitivity_json(result.step_time_s, rows, kSensitivityFactor));
    } else {
      fmt::print("{}\n{}", render_plan_text(result),
                 render_sensitivity_text(result.step_time_s, rows, kSensitivityFactor));
    }
    return;
  }
  fmt::print("{}", a.json ? render_plan_json(result) : render_plan_text(result));
}

void add_plan(CLI::App& app) {
  auto a = std::make_shared<PlanArgs>();
  CLI::App* c = app.add_subcommand(
      "plan", "Plan an LLM training or inference step: time, throughput, memory, communication");
  add_plan_options(*c, *a);
  c->add_flag("--nccl-debug", a->nccl_debug, kNcclDebugHelp);
  c->callback([a] { run(*a); });
}

const CommandRegistrar kPlan{"", "plan", add_plan};

}  // namespace
}  // namespace linksim::cli
