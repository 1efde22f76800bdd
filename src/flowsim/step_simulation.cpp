// SPDX-License-Identifier: Apache-2.0
// A step program as the event loop's source: a window of generated steps, from the oldest
// with an unfinished transfer to the newest, extended when a step's first transfer finishes
// and retired from the front when a step is done (docs/flowsim.md#step-programs).
#include <algorithm>
#include <deque>
#include <fmt/format.h>
#include <limits>

#include "flowsim/program.hpp"
#include "flowsim/simulation.hpp"
#include "linksim/error.hpp"
#include "linksim/flow_steps.hpp"

namespace linksim {

using flowsim_internal::Program;
using flowsim_internal::TransferLabel;

TransferId StepBuilder::add_transfer(const TransferSpec& spec) {
  const uint32_t index = program_.transfer_count();
  const TransferLabel label{.index = index, .step = step_};
  flowsim_internal::check_transfer(spec, label, resources_, precision_);
  if (step_ == 0 && !spec.after.empty()) {
    flowsim_internal::reject(label, "expected no dependency in step 0");
  }
  if (step_ > 0 && spec.after.empty()) {
    flowsim_internal::reject(label, fmt::format("expected a dependency on a transfer of step {} "
                                                "(a step program is synchronous), got none",
                                                step_ - 1));
  }
  for (TransferId dependency : spec.after) {
    if (dependency.value >= previous_step_transfers_) {
      flowsim_internal::reject(
          label, fmt::format("expected a dependency on a transfer of step {} (below {}), got {}",
                             step_ - 1, previous_step_transfers_, dependency.value));
    }
  }
  if (index == std::numeric_limits<uint32_t>::max()) {
    flowsim_internal::reject(
        label, fmt::format("expected at most {} transfers in one step, got more", index));
  }
  flowsim_internal::append_transfer(program_, spec);
  return TransferId{index};
}

std::size_t StepBuilder::transfer_count() const { return program_.transfer_count(); }

namespace flowsim_internal {

/// The event loop's source for a step program. Transfer ids are a running count modulo 2^32,
/// unique among the held steps (which hold far fewer than 2^32 transfers).
class StepWindow {
 public:
  StepWindow(const StepProgram& program, std::size_t resources, double precision,
             StepFlowResult& result)
      : program_(program), resources_(resources), precision_(precision), result_(result),
        bytes_(resources, 0.0) {
    result_.step_finish_s.assign(program.step_count(), 0.0);
  }

  double bytes(uint32_t t) { return locate(t).program.bytes[offset_]; }
  double rate_cap_Bps(uint32_t t) { return locate(t).program.rate_cap_Bps[offset_]; }
  uint32_t subflow_count(uint32_t t) {
    const Program& p = locate(t).program;
    return p.subflow_begin[offset_ + 1] - p.subflow_begin[offset_];
  }
  double share(uint32_t t, uint32_t k) {
    const Program& p = locate(t).program;
    return p.share[p.subflow_begin[offset_] + k];
  }
  std::span<const uint32_t> path(uint32_t t, uint32_t k) {
    const Program& p = locate(t).program;
    const uint32_t f = p.subflow_begin[offset_] + k;
    const uint32_t begin = p.resource_begin[f];
    return {p.path_resources.data() + begin, p.resource_begin[f + 1] - begin};
  }
  uint32_t& pending(uint32_t t) { return locate(t).pending[offset_]; }

  template <typename Ready>
  void initial(Ready&& ready) {
    if (program_.step_count() == 0) return;
    generate_next();
    const Step& first = steps_.front();
    for (uint32_t i = 0; i < first.program.transfer_count(); ++i) {
      ready(first.first_id + i, first.program.latency_s[i]);
    }
  }

  template <typename Ready>
  void finished(uint32_t t, double now, Ready&& ready) {
    Step* step = &locate(t);
    const uint32_t index = offset_;
    double& step_finish_s = result_.step_finish_s[step->index];
    step_finish_s = std::max(step_finish_s, now);
    --step->unfinished;
    if (step == &steps_.back() && next_index_ < program_.step_count()) {
      generate_next();  // grows steps_ at the back: references to held steps stay valid
    }
    if (step != &steps_.back()) {
      Step& next = steps_[static_cast<std::size_t>(step->index - steps_.front().index) + 1];
      for (uint32_t i = step->dependent_begin[index]; i < step->dependent_begin[index + 1]; ++i) {
        const uint32_t dependent = step->dependents[i];
        if (--next.pending[dependent] != 0) continue;
        ready(next.first_id + dependent, next.program.latency_s[dependent]);
      }
    }
    // A finished step's successor exists (its first finish generated it) unless it is the
    // last: nothing refers to it any more.
    while (!steps_.empty() && steps_.front().unfinished == 0) retire_front();
  }

  void add_bytes(std::vector<ResourceUsage>& resources) const {
    for (std::size_t r = 0; r < resources.size(); ++r) resources[r].bytes += bytes_[r];
  }

 private:
  struct Step {
    Program program;  ///< its transfers; dependencies are indices into the previous step
    uint64_t index = 0;
    uint32_t first_id = 0;
    uint32_t unfinished = 0;
    std::vector<uint32_t> pending;  ///< per transfer, as in the whole-program source
    /// Reverse dependencies into the next step, once it is generated (CSR by transfer).
    std::vector<uint32_t> dependent_begin, dependents;
  };

  // Finds the held step of transfer t and sets offset_ to t's index in it.
  Step& locate(uint32_t t) {
    if (last_ != nullptr && t - last_->first_id < last_->program.transfer_count()) {
      offset_ = t - last_->first_id;
      return *last_;
    }
    const uint32_t base = steps_.front().first_id;
    const uint32_t relative = t - base;  // modulo 2^32, like the ids
    auto it = std::upper_bound(steps_.begin(), steps_.end(), relative,
                               [base](uint32_t value, const Step& step) {
                                 return value < step.first_id - base;
                               });
    --it;
    offset_ = t - it->first_id;
    last_ = &*it;
    return *it;
  }

  void generate_next() {
    const uint64_t index = next_index_++;
    Step step;
    if (!spare_.empty()) {
      step = std::move(spare_.back());
      spare_.pop_back();
    }
    step.program.clear_transfers();
    step.index = index;
    step.first_id = next_id_;
    const std::size_t previous = steps_.empty() ? 0 : steps_.back().program.transfer_count();
    StepBuilder builder(step.program, index, previous, resources_, precision_);
    program_.generate(index, builder);
    const Program& p = step.program;
    const uint32_t count = p.transfer_count();
    if (count == 0) {
      throw ConfigError(fmt::format("flowsim: step {}: expected at least one transfer", index));
    }
    step.unfinished = count;
    step.pending.resize(count);
    for (uint32_t t = 0; t < count; ++t) {
      step.pending[t] = p.dependency_begin[t + 1] - p.dependency_begin[t];
    }
    if (!steps_.empty()) link_dependents(steps_.back(), p);
    account_bytes(p);
    next_id_ += count;
    result_.transfer_count += count;
    held_ += count;
    result_.peak_held_transfers = std::max(result_.peak_held_transfers, held_);
    steps_.push_back(std::move(step));
  }

  // The reverse of `next`'s dependencies, as a CSR over `previous`'s transfers, in the order
  // the whole-program source would list them (dependents by increasing id).
  void link_dependents(Step& previous, const Program& next) {
    const uint32_t count = previous.program.transfer_count();
    previous.dependent_begin.assign(count + 1, 0);
    for (uint32_t dependency : next.dependencies) ++previous.dependent_begin[dependency + 1];
    for (uint32_t t = 0; t < count; ++t) {
      previous.dependent_begin[t + 1] += previous.dependent_begin[t];
    }
    previous.dependents.resize(next.dependencies.size());
    fill_.assign(previous.dependent_begin.begin(), previous.dependent_begin.end() - 1);
    for (uint32_t t = 0; t < next.transfer_count(); ++t) {
      for (uint32_t i = next.dependency_begin[t]; i < next.dependency_begin[t + 1]; ++i) {
        previous.dependents[fill_[next.dependencies[i]]++] = t;
      }
    }
  }

  // Bytes per resource, summed in transfer order as the whole-program source sums them.
  void account_bytes(const Program& p) {
    for (uint32_t t = 0; t < p.transfer_count(); ++t) {
      for (uint32_t f = p.subflow_begin[t]; f < p.subflow_begin[t + 1]; ++f) {
        const double bytes = p.bytes[t] * p.share[f];
        for (uint32_t i = p.resource_begin[f]; i < p.resource_begin[f + 1]; ++i) {
          bytes_[p.path_resources[i]] += bytes;
        }
      }
    }
  }

  void retire_front() {
    held_ -= steps_.front().program.transfer_count();
    if (last_ == &steps_.front()) last_ = nullptr;
    spare_.push_back(std::move(steps_.front()));
    steps_.pop_front();
  }

  const StepProgram& program_;
  std::size_t resources_;
  double precision_;
  StepFlowResult& result_;
  std::vector<double> bytes_;  ///< per resource
  std::deque<Step> steps_;
  std::vector<Step> spare_;    ///< retired steps, their storage reused
  uint64_t next_index_ = 0;    ///< the next step to generate
  uint32_t next_id_ = 0;       ///< the id of its first transfer
  std::size_t held_ = 0;       ///< transfers of the held steps
  Step* last_ = nullptr;       ///< the step locate() found last
  uint32_t offset_ = 0;        ///< set by locate()
  std::vector<uint32_t> fill_;  ///< scratch of link_dependents
};

}  // namespace flowsim_internal

StepFlowResult simulate_steps(std::vector<double> capacities_Bps, const StepProgram& program,
                              FlowSimOptions options) {
  flowsim_internal::check_setup(capacities_Bps, options);
  StepFlowResult result;
  flowsim_internal::StepWindow window(program, capacities_Bps.size(), options.precision, result);
  flowsim_internal::Outcome outcome =
      flowsim_internal::Simulation<flowsim_internal::StepWindow>(window, capacities_Bps,
                                                                 options.precision)
          .run();
  result.resources = std::move(outcome.resources);
  result.bottlenecks = std::move(outcome.bottlenecks);
  result.makespan_s = outcome.makespan_s;
  result.lone_steps = outcome.lone_steps;
  return result;
}

}  // namespace linksim
