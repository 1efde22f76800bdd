// SPDX-License-Identifier: Apache-2.0
// diagnose(): the log's facts, the described machine's prediction at the log's release, the
// rules' findings and the cost of each fault (docs/diagnose.md).
#include "linksim/diagnose.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "diagnose/rules.hpp"
#include "linksim/error.hpp"
#include "linksim/gpu_selection.hpp"

namespace linksim {

std::string_view to_string(FindingSeverity severity) {
  switch (severity) {
    case FindingSeverity::kFault: return "fault";
    case FindingSeverity::kExpected: return "expected";
    case FindingSeverity::kInfo: return "info";
  }
  return "info";
}

bool Diagnosis::has_fault() const {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.severity == FindingSeverity::kFault; });
}

namespace diagnose_detail {

std::optional<DeviceId> RuleContext::gpu(int rank) const {
  if (machine == nullptr || rank < 0 || rank >= static_cast<int>(machine->gpus.size())) {
    return std::nullopt;
  }
  return machine->gpus[static_cast<size_t>(rank)];
}

void add_evidence(std::vector<NcclLogLine>& evidence, const std::vector<NcclLogLine>& lines) {
  for (size_t i = 0; i < lines.size() && i < kEvidencePerKind; ++i) evidence.push_back(lines[i]);
}

void add_env_evidence(std::vector<NcclLogLine>& evidence, const NcclLog& log,
                      const std::vector<std::string_view>& names) {
  for (std::string_view name : names) {
    if (const NcclLogEnv* e = log.env_var(name)) evidence.push_back(e->source);
  }
}

}  // namespace diagnose_detail

namespace {

using diagnose_detail::CostSetting;
using diagnose_detail::Machine;
using diagnose_detail::RuledFinding;

bool nvls_offered(const NcclDebugInfo& info) {
  for (const NcclTuningRow& row : info.tuning) {
    if (row.op != CollectiveOp::kAllReduce) continue;
    for (const NcclTuningCell& cell : row.cells) {
      if (cell.algorithm == Algorithm::kNvls && cell.enabled) return true;
    }
  }
  return false;
}

std::string diagnose_layout_words(const ParallelLayout& l) {
  return fmt::format("tp={} pp={} dp={}", l.tp, l.pp, l.dp);
}

// The plan with the communicator set up as `options`.
PlanResult plan_with(const Topology& topology, PlanRequest request, const CommOptions& options) {
  request.comm = options;
  return plan(topology, request);
}

PlanCost run_plan_cost(const Machine& m, const CostSetting& s, const PlanRequest& request,
                       const PlanResult& best) {
  PlanCost cost;
  cost.mode = best.mode;
  cost.model = best.model;
  cost.layout = diagnose_layout_words(best.layout);
  cost.best_s = best.step_time_s;
  try {
    const Topology& logged = s.logged_topology ? *s.logged_topology : m.topology;
    cost.logged_s = plan_with(logged, request, s.logged).step_time_s;
  } catch (const ConfigError& e) {
    // The setting leaves the plan no way to run (no path left between two of its GPUs).
    cost.error = e.message();
  }
  return cost;
}

FindingCost run_cost(const Machine& m, const CostSetting& s, const DiagnoseRequest& request,
                     const std::optional<PlanResult>& best_plan) {
  const Communicator best(m.topology, m.gpus, s.best);
  FindingCost cost;
  cost.op = request.op;
  cost.setting = s.words;
  cost.bound_note = s.bound_note;
  cost.logged_options = s.logged;
  std::optional<Communicator> logged;
  try {
    logged.emplace(s.logged_topology ? *s.logged_topology : m.topology, m.gpus, s.logged);
  } catch (const ConfigError& e) {
    // The setting leaves two GPUs no way to each other (P2P off on a rack whose CPUs are not
    // linked): the log's run could not have used it as the engine models it.
    cost.bound_note = "the engine cannot run the logged setting on this machine: " + e.message();
  }
  for (double size : request.cost_sizes_bytes) {
    if (!logged) break;
    CollectiveQuery q;
    q.op = request.op;
    q.size_bytes = size;
    cost.points.push_back({size, logged->run(q).busbw_Bps, best.run(q).busbw_Bps});
  }
  if (request.plan && best_plan) cost.plan = run_plan_cost(m, s, *request.plan, *best_plan);
  return cost;
}

std::vector<DeviceId> machine_gpus(const NcclLog& log, const DiagnoseRequest& request, int ranks) {
  const Topology& t = *request.topology;
  if (!request.gpus.empty()) {
    if (static_cast<int>(request.gpus.size()) != ranks) {
      throw ConfigError(fmt::format("the GPU selection has {} GPUs; the log has {} ranks",
                                    request.gpus.size(), ranks));
    }
    return request.gpus;
  }
  if (auto from_log = log_gpus(log, t)) return *from_log;
  GpuSelection first;
  first.first_n = ranks;
  if (ranks > static_cast<int>(select_gpus(t, {}).size())) {
    throw ConfigError(fmt::format("the log has {} ranks; the topology '{}' has {} GPUs (use --set "
                                  "to size it)", ranks, t.name(), select_gpus(t, {}).size()));
  }
  return select_gpus(t, first);
}

void fill_facts(const NcclLog& log, Diagnosis& d) {
  d.log_file = log.file;
  d.nccl_version = log.version;
  d.ranks = log.rank_count();
  d.nodes = log.nodes ? log.nodes->value : log.node_map().count;
  if (const auto c = log.channel_count()) d.channels = c->value;
  if (log.nvls_channels) d.nvls_channels = log.nvls_channels->value;
  if (log.p2p_channels) d.p2p_channels = log.p2p_channels->value;
  if (log.cpu) {
    d.host_cpu = describe_nccl_cpu(*log.cpu, log.release());
    d.host_cpu_platform = nccl_cpu_platform(*log.cpu, log.release());
  }
  std::set<std::tuple<int, int, int, int>> seen;
  for (const NcclLogHop& h : log.hops) {
    const auto key = std::tuple(h.from_rank, h.to_rank.value_or(-1), h.channel, int(h.transport));
    if (!seen.insert(key).second) continue;
    d.hops.push_back({h.from_rank, h.to_rank, h.channel, h.transport, h.gdr});
  }
  std::vector<std::string> names;
  for (const NcclLogEnv& e : log.env) {
    if (std::find(names.begin(), names.end(), e.name) == names.end()) names.push_back(e.name);
  }
  for (const std::string& n : names) d.env.push_back(n + "=" + log.env_var(n)->value);
}

}  // namespace

std::optional<std::vector<DeviceId>> log_gpus(const NcclLog& log, const Topology& topology) {
  const int ranks = log.rank_count();
  const NcclLog::Nodes nodes = log.node_map();
  std::vector<DeviceId> gpus;
  for (int r = 0; r < ranks; ++r) {
    const NcclLogRank* info = log.rank(r);
    const int node = nodes.node_of_rank[static_cast<size_t>(r)];
    if (info == nullptr || node < 0) return std::nullopt;
    const std::optional<int> dev = info->nvml_dev ? info->nvml_dev : info->cuda_dev;
    if (!dev) return std::nullopt;
    if (node >= topology.host_count()) {
      throw ConfigError(fmt::format("the log places rank {} on node {}; the topology '{}' has {} "
                                    "servers (use --set to size it)", r, node, topology.name(),
                                    topology.host_count()));
    }
    std::optional<DeviceId> found;
    const auto all = topology.devices();
    for (size_t i = 0; i < all.size() && !found; ++i) {
      const Device& d = all[i];
      if (d.kind == DeviceKind::kGpu && d.host == node && d.index == *dev) {
        found = DeviceId{static_cast<uint32_t>(i)};
      }
    }
    if (!found) {
      throw ConfigError(fmt::format("the log puts rank {} on GPU {} of node {}; the topology '{}' "
                                    "has no such GPU", r, *dev, node, topology.name()));
    }
    gpus.push_back(*found);
  }
  if (gpus.empty()) return std::nullopt;
  return gpus;
}

Diagnosis diagnose(const NcclLog& log, const DiagnoseRequest& request) {
  Diagnosis d;
  fill_facts(log, d);
  std::optional<Machine> machine;
  if (request.topology != nullptr) {
    d.topology_name = request.topology->name();
    std::vector<DeviceId> gpus = machine_gpus(log, request, d.ranks);
    CommOptions options;
    if (const auto release = log.release()) options.nccl_version = *release;
    const Communicator comm(*request.topology, gpus, options);
    RouterOptions router_options;
    router_options.nccl_version = options.nccl_version.major * 10000 + options.nccl_version.minor * 100;
    machine.emplace(Machine{*request.topology, gpus, options, Router(*request.topology, router_options),
                            comm.nccl_debug({}), false});
    // Whether the machine offers NVLS at all: at linksim's default release, since the log's
    // may predate NVLS (version-old says so).
    CommOptions newest;
    newest.nccl_version = std::max(options.nccl_version, kDefaultNcclVersion);
    machine->nvls_possible =
        nvls_offered(Communicator(*request.topology, gpus, newest).nccl_debug({}));
    d.predicted_channels = static_cast<int>(machine->predicted.channels.size());
  }
  // The plan at the machine's best, once: a plan that cannot run there is the user's error.
  std::optional<PlanResult> best_plan;
  if (machine && request.plan) {
    best_plan = plan_with(*request.topology, *request.plan, machine->options);
  } else if (request.plan) {
    throw ConfigError("plan: expected a topology to cost the plan on, got none");
  }
  const diagnose_detail::RuleContext ctx{log, machine ? &*machine : nullptr};
  std::vector<RuledFinding> ruled = diagnose_detail::transport_findings(ctx);
  for (RuledFinding& f : diagnose_detail::graph_findings(ctx)) ruled.push_back(std::move(f));
  for (RuledFinding& f : diagnose_detail::host_findings(ctx)) ruled.push_back(std::move(f));
  for (RuledFinding& f : ruled) {
    if (machine && f.cost && f.finding.severity == FindingSeverity::kFault) {
      f.finding.cost = run_cost(*machine, *f.cost, request, best_plan);
    }
    d.findings.push_back(std::move(f.finding));
  }
  std::stable_sort(d.findings.begin(), d.findings.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) < static_cast<int>(b.severity);
  });
  return d;
}

std::vector<LoggedSuspect> logged_suspects(const Diagnosis& diagnosis) {
  std::vector<LoggedSuspect> out;
  for (const Finding& f : diagnosis.findings) {
    if (f.severity != FindingSeverity::kFault) continue;
    LoggedSuspect s;
    s.key = f.key;
    s.words = f.message;
    if (!f.evidence.empty()) {
      s.words += fmt::format(" ({} line {}: {})", diagnosis.log_file, f.evidence.front().line,
                             f.evidence.front().text);
    }
    if (f.cost) s.options = f.cost->logged_options;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace linksim
