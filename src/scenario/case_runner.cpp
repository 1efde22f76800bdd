// SPDX-License-Identifier: Apache-2.0
// One case through the library: a collective sweep (as `linksim coll`) or a plan / layout
// search (as `linksim plan`).
#include "linksim/error_bands.hpp"
#include "linksim/scenario.hpp"

namespace linksim {
namespace {

// The link usage of the largest size, from the flow simulation when the case's own mode
// does not give one (analytic mode outside ring algorithms).
void record_link_usage(const Communicator& comm, CollectiveQuery query, CollectiveResult r,
                       CollectiveCaseResult& out) {
  out.link_usage_size_bytes = query.size_bytes;
  out.link_usage_mode = query.mode;
  if (r.link_usage.empty() && query.mode == SimMode::kAnalytic) {
    query.mode = SimMode::kFlow;
    try {
      r = comm.run(query);
      out.link_usage_mode = SimMode::kFlow;
    } catch (const ConfigError&) {
      return;  // no picture for this machine; the case's own answer stands
    }
  }
  out.link_usage = std::move(r.link_usage);
}

// The case's sweep through the library's run_sweep, as `linksim coll` runs it; the rows as
// `coll` prints them (to_collective_report: release, reduction, bands).
CollectiveCaseResult run_collective(const CollectiveCaseSpec& spec, const Topology& topology,
                                    bool keep_link_usage, CaseResult& result) {
  std::vector<DeviceId> ranks = select_gpus(topology, spec.gpus);
  result.gpus = static_cast<int>(ranks.size());
  result.gpu_model = topology.gpu_model(ranks.front()).key;
  Communicator comm(topology, std::move(ranks), spec.comm);
  result.nodes = comm.node_count();

  CollectiveSweep sweep = run_sweep(comm, spec.sweep);
  CollectiveCaseResult out;
  out.report = to_collective_report(sweep, topology);
  if (keep_link_usage && !sweep.rows.empty()) {
    CollectiveQuery query;
    query.op = spec.sweep.op;
    query.size_bytes = sweep.rows.back().size_bytes;
    query.algorithm = spec.sweep.algorithm;
    query.protocol = spec.sweep.protocol;
    query.mode = spec.sweep.mode;
    query.root = spec.sweep.root;
    record_link_usage(comm, query, std::move(sweep.rows.back().result), out);
  }
  return out;
}

PlanCaseResult run_plan(const PlanCaseSpec& spec, const Topology& topology, CaseResult& result) {
  PlanCaseResult out;
  if (spec.search) {
    out.ranking = search_layouts(topology, spec.request);
    result.gpu_model = topology.gpu_model(topology.gpus().front()).key;
    if (!out.ranking.empty()) result.gpus = out.ranking.front().layout.gpus();
    return out;
  }
  out.plan = plan(topology, spec.request);
  result.gpu_model = out.plan->gpu_model;
  result.gpus = out.plan->gpus;
  return out;
}

}  // namespace

CaseResult run_case(const ScenarioCase& scenario_case, const Topology& topology) {
  CaseResult result;
  try {
    if (scenario_case.collective) {
      result.collective = run_collective(*scenario_case.collective, topology,
                                         scenario_case.record_link_usage, result);
    } else if (scenario_case.plan) {
      result.plan = run_plan(*scenario_case.plan, topology, result);
    }
  } catch (const ConfigError& e) {
    result.error = e.what();
  }
  return result;
}

}  // namespace linksim
