// SPDX-License-Identifier: Apache-2.0
// Renderings of explanations (include/linksim/explain.hpp, plan_explain.hpp): the derivation as a
// teacher writes it on the board, and the same as JSON. Rendering only: every number comes from the
// explanation; the renderers convert units and put the numbers in sentences.
#pragma once

#include <string>

#include "linksim/explain.hpp"
#include "linksim/plan_explain.hpp"

namespace linksim {

/// Numbered steps, each: title, formula, one line per term ("symbol = value unit   source"),
/// notes, "=> result"; the tuner step with one row per candidate and the chosen one marked;
/// a closing paragraph naming the bottlenecks and the flow simulation's difference in plain
/// words. '\n' after every line, no trailing spaces.
std::string render_explain_text(const CollectiveExplanation& explanation, const Topology& topology);

/// One JSON object: {collective, ranks, nodes, size_bytes, bus_factor,
///   analytic {time_us, algbw_GBps, busbw_GBps, algorithm, protocol, bottleneck},
///   flow {...same...} or null, candidates [{algorithm, protocol, eligible, why_not,
///   latency_us, fill_us, wire_factor, bw_GBps, time_us, chosen}],
///   steps [{title, formula, terms [{symbol, value, unit, source}], result {symbol, value,
///   unit}, notes [..]}]}. Step values are SI as in ExplainTerm; the prediction blocks use
///   coll's units and rounding (docs/cli.md#json-output), so they compare equal to coll --json.
std::string render_explain_json(const CollectiveExplanation& explanation, const Topology& topology);

/// The plan's derivation: a header naming the model, layout and machine, the numbered steps,
/// then the Amdahl bound in one plain sentence.
std::string render_plan_explain_text(const PlanExplanation& explanation);

/// {model, topology, mode, gpus, step_time_s, exposed_fraction, compute_speedup_bound,
///  comm_free_speedup, speedup_comm_hidden, speedup, steps [...as above]}; infinities as null.
std::string render_plan_explain_json(const PlanExplanation& explanation);

}  // namespace linksim
