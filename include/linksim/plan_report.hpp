// SPDX-License-Identifier: Apache-2.0
// Renderings of the planner's results (include/linksim/plan.hpp): a readable breakdown and
// JSON for one plan, the layout search table and the sensitivity table. Rendering only: every
// number comes from the result; the renderers add sums of rows and unit conversions, nothing
// else. The JSON field names and units are a contract (docs/cli.md#linksim-plan).
#pragma once

#include <string>
#include <vector>

#include "linksim/plan.hpp"

namespace linksim {

/// The breakdown a user reads: configuration with every default filled in and the
/// assumptions, the memory table (fits, or misses by how much, and the smallest fitting
/// tp x pp), the time table (compute by part, exposed communication by kind, bubble, step
/// time), throughput and efficiency figures, and the communications table. '\n' after every
/// line, no trailing spaces.
std::string render_plan_text(const PlanResult& result);

/// One JSON object, pretty-printed with 2-space indent, then '\n'. Keys (docs/cli.md):
///   model, topology, gpu_model, mode, gpus,
///   parallel {tp, pp, dp, cp, ep, etp, sp, zero, vpp, micro_batch, global_batch, seq, batch,
///             kv_len}  (null where the mode has no such quantity),
///   dtype, weight_dtype, recompute, tp_overlap,
///   step_time_s, tokens_per_s, tokens_per_s_per_gpu, model_flops, model_tflops_per_gpu, mfu,
///   ttft_s, tpot_s, comm_time_s, comm_compute_ratio, speedup, scaling_efficiency,
///   baseline {gpus, layout}, breakdown {compute_s, exposed_comm_s, bubble_s, engine_overhead_s},
///   engine,
///   compute {gemm_s, attention_s, memory_bound_s, optimizer_s, overhead_s, total_s,
///            gemm_efficiency, achieved_gemm_efficiency, hbm_efficiency, peak_flops, hbm_Bps,
///            gemms [{name, m, n, k, instances, time_s, achieved_efficiency, memory_bound}]},
///   comms [{kind, phase, group_size, collective, bytes, count, algorithm, protocol, time_s,
///           exposed_s, bottleneck, implementation, gpus}],
///   memory {weights, gradients, optimizer, activations, kv_cache, workspace, total, capacity,
///           fits, smallest_fitting}  (bytes),
///   layers_on_slowest_stage, assumptions [..].
/// Absent optionals are null. Byte counts are integers when integral; other numbers are
/// rounded to 10 significant digits.
std::string render_plan_json(const PlanResult& result);

/// The layout search, ranked as given: rank, layout, micro-batch, fits, memory per GPU, step
/// time, tokens/s, verdict. One line per candidate under a header line naming the count.
std::string render_search_text(const std::vector<SearchCandidate>& candidates);

/// A JSON array, one object per candidate in rank order: {rank, tp, pp, dp, cp, ep, etp,
/// vpp, micro_batch, global_batch, fits, memory_bytes, step_time_s, tokens_per_s,
/// breakdown {compute_s, exposed_comm_s, bubble_s}, verdict}.
std::string render_search_json(const std::vector<SearchCandidate>& candidates);

/// One line per resource: "NIC ×2: step 1.23 s → 1.14 s, saves 7 %", under a header naming
/// the base step time. `base_step_time_s` is the plan's step time; `factor` the speed-up
/// each row applied.
std::string render_sensitivity_text(double base_step_time_s,
                                    const std::vector<SensitivityRow>& rows, double factor);

/// {"factor", "base_step_time_s", "rows": [{resource, step_time_s, saving}]}; saving is a
/// fraction (0.07 = 7 %).
std::string render_sensitivity_json(double base_step_time_s,
                                    const std::vector<SensitivityRow>& rows, double factor);

}  // namespace linksim
