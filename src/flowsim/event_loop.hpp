// SPDX-License-Identifier: Apache-2.0
// The discrete-event loop behind FlowSimulator::run (docs/flowsim.md#event-loop).
#pragma once

#include "flowsim/program.hpp"
#include "linksim/flowsim.hpp"

namespace linksim::flowsim_internal {

/// Simulates `program` to completion. REQUIRES: the program passed add_transfer's validation.
/// Deterministic; allocates O(transfers + dependencies + path entries) of state.
FlowResult simulate(const Program& program);

}  // namespace linksim::flowsim_internal
