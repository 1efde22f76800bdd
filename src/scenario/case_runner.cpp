// SPDX-License-Identifier: Apache-2.0
// One case through the library: a collective sweep (as `linksim coll`) or a plan / layout
// search (as `linksim plan`).
#include <cmath>

#include "linksim/scenario.hpp"

namespace linksim {
namespace {

// nccl-tests' size column counts every rank's block for these, its count column one block.
bool sized_per_block(CollectiveOp op) {
  return op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter ||
         op == CollectiveOp::kAllToAll;
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

CollectiveCaseResult run_collective(const CollectiveCaseSpec& spec, const Topology& topology,
                                    bool keep_link_usage, CaseResult& result) {
  std::vector<DeviceId> ranks = select_gpus(topology, spec.gpus);
  result.gpus = static_cast<int>(ranks.size());
  result.gpu_model = topology.gpu_model(ranks.front()).key;
  Communicator comm(topology, std::move(ranks), spec.comm);
  result.nodes = comm.node_count();

  CollectiveQuery query;
  query.op = spec.op;
  query.algorithm = spec.algorithm;
  query.protocol = spec.protocol;
  query.mode = spec.mode;
  CollectiveCaseResult out;
  CollectiveReport& report = out.report;
  report.topology = topology.name();
  report.collective = std::string(to_string(spec.op));
  report.ranks = comm.rank_count();
  report.mode = std::string(to_string(spec.mode));
  const bool rooted = spec.op == CollectiveOp::kBroadcast || spec.op == CollectiveOp::kReduce;
  const bool reduces = spec.op == CollectiveOp::kAllReduce ||
                       spec.op == CollectiveOp::kReduceScatter ||
                       spec.op == CollectiveOp::kReduce || spec.op == CollectiveOp::kSendRecv;
  const int blocks = sized_per_block(spec.op) ? comm.rank_count() : 1;
  size_t rows_left = spec.sizes_bytes.size();
  for (double requested : spec.sizes_bytes) {
    const double count = std::floor(requested / spec.type_bytes / blocks);
    query.size_bytes = count * spec.type_bytes * blocks;
    CollectiveResult r = comm.run(query);
    CollectiveRow row;
    row.size_bytes = query.size_bytes;
    row.count = count;
    row.type = spec.type_name;
    row.redop = reduces ? "sum" : "none";
    row.root = rooted ? query.root : -1;
    row.time_s = r.time_s;
    row.algbw_Bps = r.algbw_Bps;
    row.busbw_Bps = r.busbw_Bps;
    row.algorithm = std::string(to_string(r.algorithm));
    row.protocol = std::string(to_string(r.protocol));
    row.bottleneck = describe_bottleneck(r, topology);
    report.rows.push_back(std::move(row));
    if (keep_link_usage && --rows_left == 0) {
      record_link_usage(comm, query, std::move(r), out);
    }
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
