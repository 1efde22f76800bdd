// SPDX-License-Identifier: Apache-2.0
// A case and its result as the record its case file holds.
#include <cmath>
#include <filesystem>

#include "common/json_numbers.hpp"
#include "linksim/scenario_results.hpp"

namespace linksim {
namespace {

CollectiveSweepRecord collective_record(const ScenarioCase& c, const CollectiveCaseSpec& spec,
                                        const CollectiveCaseResult& result) {
  CollectiveSweepRecord r;
  r.collective = result.report.collective;
  r.ranks = result.report.ranks;
  r.mode = result.report.mode;
  r.nccl_version = result.report.nccl_version;
  r.algorithm = std::string(to_string(spec.sweep.algorithm));
  r.protocol = std::string(to_string(spec.sweep.protocol));
  r.p2p = !spec.comm.p2p_disable;
  r.nvls = spec.comm.nvls_enable;
  r.rows = result.report.rows;
  if (!result.link_usage.empty()) {
    // The machine as loaded (absolute path, so a merge from another directory finds it) and
    // every directed link that carried data, utilisation to a hundredth of a percent.
    LinkUsageRecord u;
    u.size_bytes = result.link_usage_size_bytes;
    u.mode = std::string(to_string(result.link_usage_mode));
    u.topology_file = std::filesystem::absolute(c.topology_file).lexically_normal().string();
    u.set = c.overrides;
    for (const LinkUsage& usage : result.link_usage) {
      const double utilization = std::round(usage.utilization * 1e4) / 1e4;
      if (utilization > 0) u.links.push_back({static_cast<int>(usage.link.value), utilization});
    }
    r.link_usage = std::move(u);
  }
  return r;
}

}  // namespace

const PlanResult* CaseRecord::plan() const {
  const PlanCaseRecord* p = plan_case();
  return p != nullptr && p->plan ? &*p->plan : nullptr;
}

const std::vector<SearchCandidate>* CaseRecord::search() const {
  const PlanCaseRecord* p = plan_case();
  return p != nullptr && p->search ? &*p->search : nullptr;
}

CaseRecord make_case_record(const ScenarioCase& c, const CaseResult& result) {
  CaseRecord r;
  r.id = c.id;
  r.index = c.index;
  r.fingerprint = c.fingerprint;
  r.study = c.study;
  r.kind = c.kind;
  r.machine = c.machine;
  r.topology = std::filesystem::path(c.topology_file).stem().string();
  r.parameters = c.parameters;
  r.gpu_model = result.gpu_model;
  r.gpus = result.gpus;
  r.servers = result.nodes;
  r.error = result.error;
  if (result.collective && c.collective) {
    r.answer = collective_record(c, *c.collective, *result.collective);
  } else if (result.plan && (result.plan->plan || (c.plan && c.plan->search))) {
    PlanCaseRecord p;
    p.plan = result.plan->plan;
    if (c.plan && c.plan->search) p.search = result.plan->ranking;
    r.answer = std::move(p);
  } else if (result.serve) {
    r.answer = *result.serve;
  }
  return r;
}

std::string render_case_json(const ScenarioCase& c, const CaseResult& result) {
  return case_record_json(make_case_record(c, result));
}

double file_number(double value, double unit) {
  const nlohmann::ordered_json number = json_numbers::rounded(value / unit);
  return number.is_number() ? number.get<double>() : NAN;
}

}  // namespace linksim
