// SPDX-License-Identifier: Apache-2.0
// One case through the library: a collective sweep (as `linksim coll`), a plan / layout
// search (as `linksim plan`) or a serving simulation (as `linksim serve`).
#include <array>
#include <string_view>
#include <utility>

#include "linksim/error_bands.hpp"
#include "linksim/scenario.hpp"

namespace linksim {
namespace {

// Request fields whose scenario key is spelled otherwise (docs/scenarios.md); the rest are
// the key as they are ("gpus", "per_node", "tp").
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kFieldKeys{{
    {"first_n", "g"},
    {"min_bytes", "minbytes"},
    {"max_bytes", "maxbytes"},
    {"factor", "stepfactor"},
    {"size_bytes", "sizes"},
}};

// The error as a scenario author reads it: the field named by the case's key.
std::string error_row_text(const ConfigError& e) {
  if (e.field().empty()) return e.what();
  std::string_view key = e.field();
  for (const auto& [field, spelling] : kFieldKeys) {
    if (field == key) key = spelling;
  }
  return e.with_field_spelled(key).what();
}

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

ServeCaseResult run_serve(const ServeCaseSpec& spec, const Topology& topology, CaseResult& result) {
  ServeRequest request = spec.request;
  if (spec.engine_overhead_s) {
    request.engine.iteration_overhead_s = *spec.engine_overhead_s;
    request.engine.multi_gpu_overhead_s = 0;
  }
  if (spec.allreduce) {
    // Custom kernels with vLLM's limits where the engine has none of its own.
    if (*spec.allreduce == AllReduceImpl::kCustom && request.engine.custom_allreduce_max_bytes <= 0) {
      const EngineModel vllm = *find_engine("vllm");
      request.engine.custom_allreduce_max_bytes = vllm.custom_allreduce_max_bytes;
      request.engine.one_shot_max_bytes_4 = vllm.one_shot_max_bytes_4;
      request.engine.one_shot_max_bytes_8 = vllm.one_shot_max_bytes_8;
    }
    request.engine.allreduce = *spec.allreduce;
  }
  ServeSimulator simulator(topology, request);
  ServeCaseResult out{simulator.run(), std::nullopt};
  if (spec.max_rate) out.max_rate_requests_per_s = simulator.max_rate().rate_requests_per_s;
  result.gpu_model = out.run.gpu_model;
  result.gpus = out.run.gpus;
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
    } else if (scenario_case.serve) {
      result.serve = run_serve(*scenario_case.serve, topology, result);
    }
  } catch (const ConfigError& e) {
    result.error = error_row_text(e);
  }
  return result;
}

}  // namespace linksim
