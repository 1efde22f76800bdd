// SPDX-License-Identifier: Apache-2.0
// Step programs: synchronous flow programs generated one step at a time as the simulation
// reaches them, so that memory holds the steps in flight, not the whole program
// (docs/flowsim.md#step-programs).
//
//   struct Ring : StepProgram {            // ring AllReduce: 2(N-1) steps of N transfers
//     uint64_t step_count() const override { return 2 * (n - 1); }
//     void generate(uint64_t step, StepBuilder& out) const override {
//       for (uint32_t i = 0; i < n; ++i) {
//         const ResourceId link[] = {ResourceId{i}};
//         const TransferId into_rank[] = {TransferId{(i + n - 1) % n}};  // of step - 1
//         out.add_transfer({.bytes = S / n, .path = link, .latency_s = alpha,
//                           .after = step == 0 ? std::span<const TransferId>{} : into_rank});
//       }
//     }
//     bool repeats_previous_step(uint64_t step) const override {  // steps 2.. are step 1
//       return step >= 2;
//     }
//   };
//   StepFlowResult result = simulate_steps(capacities_Bps, Ring{...});
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "linksim/flowsim.hpp"

namespace linksim {

namespace flowsim_internal {
class StepWindow;  // src/flowsim/step_simulation.cpp
}

/// Receives one step's transfers in StepProgram::generate.
class StepBuilder {
 public:
  /// As FlowSimulator::add_transfer, except that `after` names transfers of the previous step
  /// by their index in it (TransferId{i}: the i-th added to that step). A step program is
  /// synchronous: transfers of step 0 have no dependency, every later one at least one.
  /// Returns the transfer's index in its step. Throws ConfigError on bad input, naming the
  /// step and the index ("flowsim: step 3, transfer 7: ...").
  TransferId add_transfer(const TransferSpec& spec);
  uint64_t step() const { return step_; }
  /// Transfers added to this step so far.
  std::size_t transfer_count() const;

 private:
  friend class flowsim_internal::StepWindow;
  StepBuilder(flowsim_internal::Program& step_program, uint64_t step,
              std::size_t previous_step_transfers, std::size_t resources, double precision)
      : program_(step_program),
        step_(step),
        previous_step_transfers_(previous_step_transfers),
        resources_(resources),
        precision_(precision) {}

  flowsim_internal::Program& program_;
  uint64_t step_;
  std::size_t previous_step_transfers_;
  std::size_t resources_;
  double precision_;
};

/// A synchronous flow program produced step by step.
class StepProgram {
 public:
  virtual ~StepProgram() = default;
  /// Steps in the program (0 for none).
  virtual uint64_t step_count() const = 0;
  /// Adds step `step`'s transfers (at least one) to `out`. Called once per step that does not
  /// repeat its predecessor (repeats_previous_step), in increasing order, when the simulation
  /// first needs it: step 0 at the start, step s + 1 when the first transfer of step s
  /// finishes. May throw; the exception leaves simulate_steps.
  virtual void generate(uint64_t step, StepBuilder& out) const = 0;
  /// Whether step `step` repeats step `step` - 1: the same transfers in the same order, with
  /// the same dependency indices (so each waits for the transfers of step - 1 that its
  /// counterpart waits for in step - 2). generate is then not called for it: the step reuses
  /// step - 1's transfers, checks and dependency links, and the results are those of
  /// generating it. Called once per step, in increasing order, where generate would be.
  /// Throws ConfigError when true for step 0 (no previous step), for step 1 (step 0's
  /// transfers have no dependency) or when step - 1 depends on a transfer index it lacks.
  virtual bool repeats_previous_step(uint64_t /*step*/) const { return false; }
};

/// What simulate_steps returns: FlowResult without per-transfer times (of which there are as
/// many as transfers), with per-step ones instead.
struct StepFlowResult {
  std::vector<double> step_finish_s;     ///< per step: when its last transfer finished, s
  std::vector<ResourceUsage> resources;  ///< indexed by ResourceId::value, as in FlowResult
  std::vector<ResourceId> bottlenecks;   ///< as in FlowResult
  double makespan_s = 0;                 ///< the latest finish time, seconds
  uint64_t transfer_count = 0;           ///< transfers over all steps
  /// The most transfers held at once: those of the steps from the oldest with a transfer
  /// not yet finished to the newest generated.
  std::size_t peak_held_transfers = 0;
  /// Steps run as lone steps: every transfer alone on its links, all of one duration, so
  /// timed in closed form without the max-min solver (docs/flowsim.md#lone-steps).
  uint64_t lone_steps = 0;
};

/// Simulates `program` over resources of `capacities_Bps`. The times, resource usage and
/// bottlenecks are bit-identical to FlowSimulator's for the same transfers added all at once
/// (dependencies renumbered to global ids), since one event loop serves both. Memory is
/// O(resources + held transfers), not O(all transfers). Throws ConfigError as FlowSimulator's
/// constructor and add_transfer do, or when a step is empty.
StepFlowResult simulate_steps(std::vector<double> capacities_Bps, const StepProgram& program,
                              FlowSimOptions options = {});

}  // namespace linksim
