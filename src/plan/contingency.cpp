// SPDX-License-Identifier: Apache-2.0
// N-1 contingency (docs/cli.md#contingency): the machine is rebuilt once per single fault;
// the request, the nominal answer and the fault list are shared by every evaluation.
#include "linksim/contingency.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "linksim/error.hpp"
#include "linksim/faults.hpp"

namespace linksim {
namespace {

std::vector<double> sweep_busbw(const Topology& topology, const GpuSelection& selection,
                                const CommOptions& options, const SweepRequest& request) {
  const Communicator comm(topology, select_gpus(topology, selection), options);
  std::vector<double> busbw;
  for (const SweepRow& row : run_sweep(comm, request).rows) busbw.push_back(row.result.busbw_Bps);
  return busbw;
}

double busbw_cost(const std::vector<double>& nominal, const std::vector<double>& faulted) {
  double lost = 0;
  for (size_t i = 0; i < nominal.size(); ++i) {
    lost += nominal[i] > 0 ? 1 - faulted[i] / nominal[i] : 0;
  }
  return nominal.empty() ? 0 : lost / double(nominal.size());
}

// Runs `evaluate` on the machine with each single fault; a ConfigError from the fault or the
// evaluation means the run cannot go on with that fault.
template <typename Evaluate>
std::vector<ContingencyRow> try_faults(const Topology& topology, Evaluate evaluate) {
  std::vector<ContingencyRow> rows;
  for (const FaultCase& c : single_faults(topology)) {
    ContingencyRow row;
    row.fault_class = c.fault_class;
    row.fault = c.fault.text;
    try {
      const Fault faults[] = {c.fault};
      const Topology degraded = with_degraded(topology, faults);
      evaluate(degraded, row);
    } catch (const ConfigError& e) {
      row.runs = false;
      row.error = e.message();
      row.values.clear();
      row.cost = std::numeric_limits<double>::infinity();
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void rank(ContingencyReport& report) {
  std::stable_sort(report.rows.begin(), report.rows.end(),
                   [](const ContingencyRow& a, const ContingencyRow& b) { return a.cost > b.cost; });
  std::map<std::string, bool> seen;
  for (const ContingencyRow& row : report.rows) {
    if (!seen[row.fault_class]) {
      seen[row.fault_class] = true;
      report.worst_per_class.push_back(row);
    }
  }
}

}  // namespace

ContingencyReport collective_contingency(const Topology& topology, const GpuSelection& selection,
                                         const CommOptions& options, const SweepRequest& request) {
  ContingencyReport report;
  report.topology = topology.name();
  report.subject = std::string(to_string(request.op));
  report.sizes_bytes = request.sizes_bytes;
  report.nominal = sweep_busbw(topology, selection, options, request);
  report.rows = try_faults(topology, [&](const Topology& degraded, ContingencyRow& row) {
    row.values = sweep_busbw(degraded, selection, options, request);
    row.cost = busbw_cost(report.nominal, row.values);
  });
  rank(report);
  return report;
}

ContingencyReport plan_contingency(const Topology& topology, const PlanRequest& request) {
  PlanRequest base = request;
  base.compute_baseline = false;  // the rows compare step times, not speedups
  ContingencyReport report;
  report.topology = topology.name();
  report.subject = "plan";
  const double nominal_s = plan(topology, base).step_time_s;
  report.nominal = {nominal_s};
  report.rows = try_faults(topology, [&](const Topology& degraded, ContingencyRow& row) {
    const double step_s = plan(degraded, base).step_time_s;
    row.values = {step_s};
    row.cost = step_s / nominal_s - 1;
  });
  rank(report);
  return report;
}

}  // namespace linksim
