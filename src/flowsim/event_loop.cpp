// SPDX-License-Identifier: Apache-2.0
// A whole Program as the event loop's source: reverse dependencies, pending counters and the
// per-transfer times of FlowResult.
#include "flowsim/event_loop.hpp"

#include <numeric>

#include "flowsim/simulation.hpp"

namespace linksim::flowsim_internal {
namespace {

/// add_bytes() prefetches the resource this many crossings ahead of the one it adds to.
constexpr std::size_t kBytesLookahead = 16;

class ProgramSource {
 public:
  /// `times` is empty (nothing recorded) or has one entry per transfer.
  ProgramSource(const Program& program, std::vector<TransferTimes>& times)
      : program_(program), times_(times), record_(!times.empty()) {
    build_dependents();
  }

  double bytes(uint32_t t) const { return program_.bytes[t]; }
  double rate_cap_Bps(uint32_t t) const { return program_.rate_cap_Bps[t]; }
  uint32_t subflow_count(uint32_t t) const {
    return program_.subflow_begin[t + 1] - program_.subflow_begin[t];
  }
  double share(uint32_t t, uint32_t k) const {
    return program_.share[program_.subflow_begin[t] + k];
  }
  std::span<const uint32_t> path(uint32_t t, uint32_t k) const {
    const uint32_t f = program_.subflow_begin[t] + k;
    const uint32_t begin = program_.resource_begin[f];
    return {program_.path_resources.data() + begin, program_.resource_begin[f + 1] - begin};
  }
  uint32_t& pending(uint32_t t) { return pending_[t]; }

  template <typename Ready>
  void initial(Ready&& ready) const {
    for (uint32_t t = 0; t < program_.transfer_count(); ++t) {
      if (pending_[t] == 0) ready(t, program_.latency_s[t]);
    }
  }

  template <typename Ready>
  void finished(uint32_t transfer, double now, Ready&& ready) {
    if (record_) times_[transfer].finish_s = now;
    if (dependent_begin_.empty()) return;  // no transfer depends on another
    for (uint32_t i = dependent_begin_[transfer]; i < dependent_begin_[transfer + 1]; ++i) {
      const uint32_t dependent = dependents_[i];
      if (--pending_[dependent] != 0) continue;
      if (record_) times_[dependent].ready_s = now;
      ready(dependent, program_.latency_s[dependent]);
    }
  }

  void add_bytes(std::vector<ResourceUsage>& resources) const {
    // The crossings name resources in no order: the entry kBytesLookahead crossings ahead is
    // loaded meanwhile, so that the cache misses overlap.
    const std::vector<uint32_t>& crossed = program_.path_resources;
    for (uint32_t t = 0; t < program_.transfer_count(); ++t) {
      for (uint32_t f = program_.subflow_begin[t]; f < program_.subflow_begin[t + 1]; ++f) {
        const double bytes = program_.bytes[t] * program_.share[f];
        for (uint32_t i = program_.resource_begin[f]; i < program_.resource_begin[f + 1]; ++i) {
          if (i + kBytesLookahead < crossed.size()) {
            __builtin_prefetch(&resources[crossed[i + kBytesLookahead]]);
          }
          resources[crossed[i]].bytes += bytes;
        }
      }
    }
  }

 private:
  void build_dependents() {
    const uint32_t transfers = program_.transfer_count();
    pending_.assign(transfers, 0);
    for (uint32_t t = 0; t < transfers; ++t) {
      pending_[t] = program_.dependency_begin[t + 1] - program_.dependency_begin[t];
    }
    if (program_.dependencies.empty()) return;  // no reverse index: 4 bytes a transfer
    dependent_begin_.assign(transfers + 1, 0);
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

  const Program& program_;
  std::vector<TransferTimes>& times_;
  bool record_;
  // Per transfer: dependencies not yet finished until it is ready; afterwards, its sub-flows
  // not yet finished. One array serves both phases since they never overlap.
  std::vector<uint32_t> pending_;
  // CSR of reverse dependencies: transfers waiting for t are
  // dependents_[dependent_begin_[t] .. dependent_begin_[t+1]); both empty when the program
  // has no dependency.
  std::vector<uint32_t> dependent_begin_;
  std::vector<uint32_t> dependents_;
};

}  // namespace

FlowResult simulate(const Program& program) {
  FlowResult result;
  if (program.options.record_transfer_times) {
    result.transfers.assign(program.transfer_count(), TransferTimes{});
  }
  ProgramSource source(program, result.transfers);
  Outcome outcome =
      Simulation<ProgramSource>(source, program.capacities_Bps, program.options.precision).run();
  result.resources = std::move(outcome.resources);
  result.bottlenecks = std::move(outcome.bottlenecks);
  result.makespan_s = outcome.makespan_s;
  return result;
}

}  // namespace linksim::flowsim_internal
