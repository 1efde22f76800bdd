// SPDX-License-Identifier: Apache-2.0
// Start and finish events, dependency release, incremental re-solve, and resource metering.
#include "flowsim/event_loop.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "flowsim/event_queue.hpp"
#include "flowsim/max_min_solver.hpp"

namespace linksim::flowsim_internal {
namespace {

class Simulation {
 public:
  explicit Simulation(const Program& program)
      : program_(program),
        precision_(program.options.precision),
        solver_(program.capacities_Bps, program.path_resources),
        metered_s_(program.capacities_Bps.size(), 0.0),
        saturated_(program.capacities_Bps.size(), 0) {}

  FlowResult run();

 private:
  void build_dependents();
  void handle(const Event& event, double now);
  void start_transfer(uint32_t transfer, double now);
  void finish_slot(uint32_t slot, double now);
  void finish_transfer(uint32_t transfer, double now);
  void resolve(double now);
  void meter(uint32_t resource, double now);
  void summarize();

  const Program& program_;
  const double precision_;
  EventQueue queue_;
  MaxMinSolver solver_;
  FlowResult result_;

  // Per transfer: dependencies not yet finished until it is ready; afterwards, its sub-flows
  // not yet finished. One array serves both phases since they never overlap.
  std::vector<uint32_t> pending_;
  // CSR of reverse dependencies: transfers waiting for t are
  // dependents_[dependent_begin_[t] .. dependent_begin_[t+1]).
  std::vector<uint32_t> dependent_begin_;
  std::vector<uint32_t> dependents_;

  // Per solver slot (an active sub-flow). Bytes left are exact as of updated_s_.
  std::vector<double> remaining_bytes_;
  std::vector<double> rate_Bps_;
  std::vector<double> updated_s_;
  std::vector<uint32_t> version_;  ///< bumped whenever the slot's scheduled finish changes
  std::vector<uint32_t> transfer_of_;

  // Per resource: saturation state since metered_s_.
  std::vector<double> metered_s_;
  std::vector<uint8_t> saturated_;
};

void Simulation::build_dependents() {
  const uint32_t transfers = program_.transfer_count();
  pending_.assign(transfers, 0);
  dependent_begin_.assign(transfers + 1, 0);
  for (uint32_t t = 0; t < transfers; ++t) {
    pending_[t] = program_.dependency_begin[t + 1] - program_.dependency_begin[t];
  }
  for (uint32_t dependency : program_.dependencies) ++dependent_begin_[dependency + 1];
  std::partial_sum(dependent_begin_.begin(), dependent_begin_.end(), dependent_begin_.begin());
  dependents_.resize(program_.dependencies.size());
  std::vector<uint32_t> fill(dependent_begin_.begin(), dependent_begin_.end() - 1);
  for (uint32_t t = 0; t < transfers; ++t) {
    for (uint32_t i = program_.dependency_begin[t]; i < program_.dependency_begin[t + 1]; ++i) {
      dependents_[fill[program_.dependencies[i]]++] = t;
    }
  }
}

void Simulation::handle(const Event& event, double now) {
  if (event.kind() == EventKind::kStart) {
    start_transfer(event.id, now);
  } else if (event.version == version_[event.id]) {
    finish_slot(event.id, now);
  }
}

void Simulation::start_transfer(uint32_t transfer, double now) {
  const double bytes = program_.bytes[transfer];
  if (bytes == 0) {  // no sharing phase: done once the latency has elapsed
    finish_transfer(transfer, now);
    return;
  }
  const uint32_t first = program_.subflow_begin[transfer];
  const uint32_t last = program_.subflow_begin[transfer + 1];
  pending_[transfer] = last - first;
  for (uint32_t subflow = first; subflow < last; ++subflow) {
    const double share = program_.share[subflow];
    const uint32_t slot =
        solver_.add(program_.resource_begin[subflow], program_.resource_begin[subflow + 1],
                    program_.rate_cap_Bps[transfer] * share);
    if (slot >= remaining_bytes_.size()) {
      remaining_bytes_.resize(slot + 1);
      rate_Bps_.resize(slot + 1);
      updated_s_.resize(slot + 1);
      version_.resize(slot + 1, 0);
      transfer_of_.resize(slot + 1);
    }
    remaining_bytes_[slot] = bytes * share;
    rate_Bps_[slot] = 0;  // not yet scheduled: resolve() will see a rate change
    updated_s_[slot] = now;
    ++version_[slot];
    transfer_of_[slot] = transfer;
  }
}

void Simulation::finish_slot(uint32_t slot, double now) {
  solver_.remove(slot);
  ++version_[slot];
  const uint32_t transfer = transfer_of_[slot];
  if (--pending_[transfer] == 0) finish_transfer(transfer, now);
}

void Simulation::finish_transfer(uint32_t transfer, double now) {
  result_.transfers[transfer].finish_s = now;
  result_.makespan_s = std::max(result_.makespan_s, now);
  for (uint32_t i = dependent_begin_[transfer]; i < dependent_begin_[transfer + 1]; ++i) {
    const uint32_t dependent = dependents_[i];
    if (--pending_[dependent] != 0) continue;
    result_.transfers[dependent].ready_s = now;
    queue_.push(now + program_.latency_s[dependent], EventKind::kStart, dependent);
  }
}

// Re-solves the component touched by this batch. Slots keep their scheduled finish event
// when their rate is unchanged: t + remaining / rate is then the same instant.
void Simulation::resolve(double now) {
  solver_.collect_component();
  for (uint32_t slot : solver_.component_slots()) {
    const double elapsed_s = now - updated_s_[slot];
    if (elapsed_s > 0 && rate_Bps_[slot] > 0) {
      remaining_bytes_[slot] = std::max(0.0, remaining_bytes_[slot] - rate_Bps_[slot] * elapsed_s);
    }
    updated_s_[slot] = now;
  }
  solver_.solve_component();
  for (uint32_t slot : solver_.component_slots()) {
    const double rate = solver_.rate_Bps(slot);
    if (rate == rate_Bps_[slot]) continue;
    rate_Bps_[slot] = rate;
    queue_.push(now + remaining_bytes_[slot] / rate, EventKind::kFinish, slot, ++version_[slot]);
  }
  for (uint32_t resource : solver_.component_resources()) meter(resource, now);
}

void Simulation::meter(uint32_t resource, double now) {
  if (saturated_[resource]) result_.resources[resource].busy_s += now - metered_s_[resource];
  metered_s_[resource] = now;
  const double threshold_Bps = (1 - precision_) * program_.capacities_Bps[resource];
  saturated_[resource] = solver_.load_Bps(resource) >= threshold_Bps;
}

void Simulation::summarize() {
  const std::size_t resources = program_.capacities_Bps.size();
  for (uint32_t r = 0; r < resources; ++r) meter(r, result_.makespan_s);
  for (uint32_t t = 0; t < program_.transfer_count(); ++t) {
    for (uint32_t f = program_.subflow_begin[t]; f < program_.subflow_begin[t + 1]; ++f) {
      const double bytes = program_.bytes[t] * program_.share[f];
      for (uint32_t i = program_.resource_begin[f]; i < program_.resource_begin[f + 1]; ++i) {
        result_.resources[program_.path_resources[i]].bytes += bytes;
      }
    }
  }
  for (uint32_t r = 0; r < resources; ++r) {
    if (result_.resources[r].busy_s > 0) result_.bottlenecks.push_back(ResourceId{r});
  }
  std::stable_sort(result_.bottlenecks.begin(), result_.bottlenecks.end(),
                   [&](ResourceId a, ResourceId b) {
                     return result_.resources[a.value].busy_s > result_.resources[b.value].busy_s;
                   });
}

FlowResult Simulation::run() {
  result_.transfers.assign(program_.transfer_count(), TransferTimes{});
  result_.resources.assign(program_.capacities_Bps.size(), ResourceUsage{});
  build_dependents();
  for (uint32_t t = 0; t < program_.transfer_count(); ++t) {
    if (pending_[t] == 0) queue_.push(program_.latency_s[t], EventKind::kStart, t);
  }
  // Events within precision x now of the first are one batch: processed at `now`, then one
  // re-solve (docs/flowsim.md#tolerance).
  while (!queue_.empty()) {
    const double now = queue_.top().time_s;
    const double horizon_s = now + precision_ * now;
    while (!queue_.empty() && queue_.top().time_s <= horizon_s) handle(queue_.pop(), now);
    if (solver_.has_changes()) resolve(now);
  }
  summarize();
  return std::move(result_);
}

}  // namespace

FlowResult simulate(const Program& program) { return Simulation(program).run(); }

}  // namespace linksim::flowsim_internal
