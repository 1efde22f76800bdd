// SPDX-License-Identifier: Apache-2.0
// A step program as the event loop's source: a window of generated steps, from the oldest
// with an unfinished transfer to the newest, extended when a step's first transfer finishes
// and retired from the front when a step is done (docs/flowsim.md#step-programs).
#include <algorithm>
#include <deque>
#include <fmt/format.h>
#include <limits>
#include <memory>

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

  double bytes(uint32_t t) { return program_of(t).bytes[offset_]; }
  double rate_cap_Bps(uint32_t t) { return program_of(t).rate_cap_Bps[offset_]; }
  uint32_t subflow_count(uint32_t t) {
    const Program& p = program_of(t);
    return p.subflow_begin[offset_ + 1] - p.subflow_begin[offset_];
  }
  double share(uint32_t t, uint32_t k) {
    const Program& p = program_of(t);
    return p.share[p.subflow_begin[offset_] + k];
  }
  std::span<const uint32_t> path(uint32_t t, uint32_t k) {
    const Program& p = program_of(t);
    const uint32_t f = p.subflow_begin[offset_] + k;
    const uint32_t begin = p.resource_begin[f];
    return {p.path_resources.data() + begin, p.resource_begin[f + 1] - begin};
  }
  uint32_t& pending(uint32_t t) { return locate(t).pending[offset_]; }

  /// Whether `batch` is the start events of exactly one held step's transfers (in any order);
  /// then `key` is its shape's (equal keys: the same transfers, at the same storage) and
  /// `first` its first transfer's id.
  bool batch_step(std::span<const Event> batch, uint64_t& key, uint32_t& first) {
    // Start events name held transfers; finish events name solver slots.
    if (batch.empty() || batch.front().kind() != EventKind::kStart) return false;
    const Step& step = locate(batch.front().id);
    const uint32_t count = step.shape->program.transfer_count();
    if (batch.size() != count) return false;
    for (const Event& event : batch) {  // distinct ids, count of them, all in the step
      if (event.kind() != EventKind::kStart || event.id - step.first_id >= count) return false;
    }
    key = step.shape->key;
    first = step.first_id;
    return true;
  }

  template <typename Ready>
  void initial(Ready&& ready) {
    if (program_.step_count() == 0) return;
    generate_next();
    const Step& first = steps_.front();
    const Program& p = first.shape->program;
    for (uint32_t i = 0; i < p.transfer_count(); ++i) ready(first.first_id + i, p.latency_s[i]);
  }

  template <typename Ready>
  void finished(uint32_t t, double now, Ready&& ready) {
    Step* step = &locate(t);
    const uint32_t index = offset_;
    double& step_finish_s = result_.step_finish_s[step->index];
    step_finish_s = std::max(step_finish_s, now);
    --step->unfinished;
    if (step->next == nullptr && next_index_ < program_.step_count()) {
      generate_next();  // grows steps_ at the back: references to held steps stay valid
    }
    if (step->next != nullptr) {
      Step& next = *step->next;
      const Shape& shape = *next.shape;
      if (index + 1 < shape.dependent_begin.size()) {
        for (uint32_t i = shape.dependent_begin[index]; i < shape.dependent_begin[index + 1];
             ++i) {
          const uint32_t dependent = shape.dependents[i];
          if (--next.pending[dependent] != 0) continue;
          ready(next.first_id + dependent, shape.program.latency_s[dependent]);
        }
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
  /// One generated step's transfers, shared by the steps that repeat it
  /// (StepProgram::repeats_previous_step).
  struct Shape {
    Program program;  ///< its transfers; dependencies are indices into the previous step
    std::vector<uint32_t> dependency_count;  ///< per transfer: its dependencies
    /// The reverse of the dependencies, a CSR over the previous step's transfers below
    /// dependent_begin.size() - 1: the transfers waiting for each, by increasing index (the
    /// whole-program source's order). Later transfers of the previous step have none.
    std::vector<uint32_t> dependent_begin, dependents;
    uint32_t users = 0;  ///< held steps of this shape
    uint64_t key = 0;    ///< distinct for every generation of a shape, from 1
  };

  struct Step {
    Shape* shape = nullptr;
    Step* next = nullptr;  ///< the step after it, once generated
    uint64_t index = 0;
    uint32_t first_id = 0;
    uint32_t unfinished = 0;
    std::vector<uint32_t> pending;  ///< per transfer, as in the whole-program source
  };

  const Program& program_of(uint32_t t) { return locate(t).shape->program; }

  // Finds the held step of transfer t and sets offset_ to t's index in it.
  Step& locate(uint32_t t) {
    offset_ = t - last_first_id_;  // modulo 2^32, like the ids
    if (offset_ < last_count_) return *last_;
    const uint32_t base = steps_.front().first_id;
    const uint32_t relative = t - base;
    auto it = std::upper_bound(steps_.begin(), steps_.end(), relative,
                               [base](uint32_t value, const Step& step) {
                                 return value < step.first_id - base;
                               });
    --it;
    last_ = &*it;
    last_first_id_ = it->first_id;
    last_count_ = it->shape->program.transfer_count();
    offset_ = t - last_first_id_;
    return *it;
  }

  void generate_next() {
    const uint64_t index = next_index_++;
    Shape* shape =
        program_.repeats_previous_step(index) ? repeated_shape(index) : generated_shape(index);
    Step step = spare_step();
    step.shape = shape;
    step.next = nullptr;
    ++shape->users;
    step.index = index;
    step.first_id = next_id_;
    const uint32_t count = shape->program.transfer_count();
    step.unfinished = count;
    step.pending.assign(shape->dependency_count.begin(), shape->dependency_count.end());
    account_bytes(shape->program);
    next_id_ += count;
    result_.transfer_count += count;
    held_ += count;
    result_.peak_held_transfers = std::max(result_.peak_held_transfers, held_);
    Step* previous = steps_.empty() ? nullptr : &steps_.back();
    steps_.push_back(std::move(step));
    if (previous != nullptr) previous->next = &steps_.back();
  }

  // Step `index`'s transfers from the program's generate, checked and linked.
  Shape* generated_shape(uint64_t index) {
    Shape* shape = free_shape();
    shape->program.clear_transfers();
    const std::size_t previous =
        steps_.empty() ? 0 : steps_.back().shape->program.transfer_count();
    StepBuilder builder(shape->program, index, previous, resources_, precision_);
    program_.generate(index, builder);
    if (shape->program.transfer_count() == 0) {
      throw ConfigError(fmt::format("flowsim: step {}: expected at least one transfer", index));
    }
    link(*shape);
    shape->key = ++shape_keys_;
    return shape;
  }

  // The shape of step index - 1 (the newest held), as step `index` repeats it. Throws
  // ConfigError when that step cannot be repeated: it must exist and have dependencies, all
  // on transfers below its own transfer count.
  Shape* repeated_shape(uint64_t index) {
    if (index == 0) {
      throw ConfigError("flowsim: step 0: expected generated transfers, got a repeat of the "
                        "previous step (there is none)");
    }
    if (index == 1) {
      throw ConfigError("flowsim: step 1: expected generated transfers, got a repeat of step 0 "
                        "(whose transfers have no dependency; a step program is synchronous)");
    }
    Shape* shape = steps_.back().shape;
    const Program& p = shape->program;
    const uint32_t count = p.transfer_count();
    if (shape->dependent_begin.size() - 1 > count) {  // a dependency at or beyond count
      for (uint32_t t = 0; t < count; ++t) {
        for (uint32_t i = p.dependency_begin[t]; i < p.dependency_begin[t + 1]; ++i) {
          if (p.dependencies[i] < count) continue;
          reject(TransferLabel{.index = t, .step = index},
                 fmt::format("expected a dependency on a transfer of step {} (below {}), got {}",
                             index - 1, count, p.dependencies[i]));
        }
      }
    }
    return shape;
  }

  // Sets shape's dependency counts and its reverse-dependency CSR from its program.
  void link(Shape& shape) {
    const Program& p = shape.program;
    const uint32_t count = p.transfer_count();
    shape.dependency_count.resize(count);
    for (uint32_t t = 0; t < count; ++t) {
      shape.dependency_count[t] = p.dependency_begin[t + 1] - p.dependency_begin[t];
    }
    uint32_t bound = 0;  // 1 + the largest dependency
    for (uint32_t dependency : p.dependencies) bound = std::max(bound, dependency + 1);
    shape.dependent_begin.assign(bound + 1, 0);
    for (uint32_t dependency : p.dependencies) ++shape.dependent_begin[dependency + 1];
    for (uint32_t t = 0; t < bound; ++t) shape.dependent_begin[t + 1] += shape.dependent_begin[t];
    shape.dependents.resize(p.dependencies.size());
    fill_.assign(shape.dependent_begin.begin(), shape.dependent_begin.end() - 1);
    for (uint32_t t = 0; t < count; ++t) {
      for (uint32_t i = p.dependency_begin[t]; i < p.dependency_begin[t + 1]; ++i) {
        shape.dependents[fill_[p.dependencies[i]]++] = t;
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

  // A shape no held step uses, its storage reused when there is one.
  Shape* free_shape() {
    if (free_shapes_.empty()) {
      shapes_.push_back(std::make_unique<Shape>());
      return shapes_.back().get();
    }
    Shape* shape = free_shapes_.back();
    free_shapes_.pop_back();
    return shape;
  }

  Step spare_step() {
    if (spare_.empty()) return Step{};
    Step step = std::move(spare_.back());
    spare_.pop_back();
    return step;
  }

  void retire_front() {
    Step& front = steps_.front();
    held_ -= front.shape->program.transfer_count();
    if (--front.shape->users == 0) free_shapes_.push_back(front.shape);
    if (last_ == &front) last_count_ = 0;
    front.shape = nullptr;
    spare_.push_back(std::move(front));
    steps_.pop_front();
  }

  const StepProgram& program_;
  std::size_t resources_;
  double precision_;
  StepFlowResult& result_;
  std::vector<double> bytes_;  ///< per resource
  std::deque<Step> steps_;
  std::vector<Step> spare_;    ///< retired steps, their storage reused
  std::vector<std::unique_ptr<Shape>> shapes_;  ///< every shape made
  std::vector<Shape*> free_shapes_;             ///< those no held step uses
  uint64_t shape_keys_ = 0;                     ///< keys given to shapes
  uint64_t next_index_ = 0;    ///< the next step to generate
  uint32_t next_id_ = 0;       ///< the id of its first transfer
  std::size_t held_ = 0;       ///< transfers of the held steps
  // The step locate() found last: its first id and transfer count (0: none).
  Step* last_ = nullptr;
  uint32_t last_first_id_ = 0;
  uint32_t last_count_ = 0;
  uint32_t offset_ = 0;         ///< set by locate()
  std::vector<uint32_t> fill_;  ///< scratch of link()
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
