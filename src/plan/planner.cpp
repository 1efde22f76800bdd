// SPDX-License-Identifier: Apache-2.0
// plan(): GPUs selected, layout resolved and checked, the step evaluated, then the baseline
// for speedup and, when the plan does not fit, the smallest TP x PP that would.
#include <algorithm>
#include <fmt/core.h>

#include "linksim/error.hpp"
#include "linksim/plan.hpp"
#include "linksim/units.hpp"
#include "plan/layout.hpp"
#include "plan/plan_search.hpp"
#include "plan/step_model.hpp"

namespace linksim {
namespace plan_detail {

std::vector<DeviceId> selected_gpus(const Topology& topology, const PlanRequest& r) {
  const GpuSelection& s = r.gpus;
  if (s.first_n || s.list || s.per_node) return select_gpus(topology, s);
  const std::vector<DeviceId>& all = topology.gpus();
  if (!r.dp) return all;
  const long long wanted = 1LL * r.tp.value_or(1) * r.pp.value_or(1) * r.cp.value_or(1) * *r.dp;
  if (wanted > static_cast<long long>(all.size())) {
    throw ConfigError(fmt::format("TP x PP x CP x DP = {} GPUs, but the topology has {} GPUs", wanted,
                                  all.size()));
  }
  return {all.begin(), all.begin() + wanted};
}

void check_request(const PlanRequest& r) {
  dtype_bytes(r.dtype, "--dtype");
  if (r.dtype == "int8" || r.dtype == "int4") {
    throw ConfigError(fmt::format("--dtype: expected bf16, fp16 or fp8 for computation, got \"{}\" "
                                  "(quantized weights: --weight-dtype)",
                                  r.dtype));
  }
  if (r.weight_dtype) {
    dtype_bytes(*r.weight_dtype, "--weight-dtype");
    if (r.mode == PlanMode::kTrain && *r.weight_dtype != "bf16" && *r.weight_dtype != "fp16") {
      throw ConfigError(fmt::format("--weight-dtype {} applies to inference; training keeps bf16 "
                                    "weights",
                                    *r.weight_dtype));
    }
  }
  auto fraction = [](const std::optional<double>& v, const char* flag) {
    if (v && !(*v > 0 && *v <= 1)) {
      throw ConfigError(fmt::format("{}: expected a fraction in (0, 1], got {}", flag, *v));
    }
  };
  fraction(r.gemm_efficiency, "--gemm-efficiency");
  fraction(r.hbm_efficiency, "--hbm-efficiency");
  if (r.mode == PlanMode::kDecode && r.kv_len < 1) {
    throw ConfigError(fmt::format("--kv-len: expected >= 1 context token for decode, got {}", r.kv_len));
  }
}

std::string smallest_fitting(const Topology& topology, const PlanRequest& r, const PlanResult& p) {
  // TP x PP in increasing order, DP and CP as planned, within the topology's GPUs.
  const int available = int(topology.gpus().size());
  const GpuModel& gpu = topology.gpu_model(topology.gpus().front());
  PrecisionChoice precision;
  precision.weight_bytes = r.mode == PlanMode::kTrain ? 2 : dtype_bytes(r.weight_dtype.value_or("bf16"), "--weight-dtype");
  for (int product = 1; product * p.layout.dp * p.layout.cp <= available; ++product) {
    for (int tp = 1; tp <= product; ++tp) {
      if (product % tp != 0) continue;
      ParallelLayout l = p.layout;
      l.tp = tp;
      l.pp = product / tp;
      l.vpp = 1;
      if (!layout_problem(r.model, r.mode, l, l.gpus()).empty()) continue;
      const MemoryBreakdown mem = estimate_memory(r.model, l, r.mode, r.recompute, precision, gpu.memory_bytes);
      if (mem.fits) {
        return fmt::format("tp={} pp={} ({} GPUs, {} per GPU)", l.tp, l.pp, l.gpus(), format_size(mem.total));
      }
    }
  }
  return {};
}

void fill_baseline(const Topology& topology, const PlanRequest& r,
                   const std::vector<DeviceId>& selected, PlanResult& out) {
  std::vector<int> counts;
  if (r.baseline_gpus) {
    if (*r.baseline_gpus < 1 || *r.baseline_gpus > int(selected.size())) {
      throw ConfigError(fmt::format("--baseline: expected 1 to {} GPUs (those selected), got {}",
                                    selected.size(), *r.baseline_gpus));
    }
    counts.push_back(*r.baseline_gpus);
  } else {
    for (int n = 1; n <= int(selected.size()); n *= 2) counts.push_back(n);
    if (counts.back() != int(selected.size())) counts.push_back(int(selected.size()));
  }
  for (int n : counts) {
    if (n == out.gpus) {
      if (!out.memory.fits) continue;
      out.speedup = 1;
      out.scaling_efficiency = 1;
      out.baseline_gpus = n;
      out.baseline = "this plan";
      return;
    }
    PlanRequest base = r;
    base.compute_baseline = false;
    base.gpus = {};
    base.global_batch = out.layout.global_batch;
    std::vector<DeviceId> subset(selected.begin(), selected.begin() + n);
    const std::vector<SearchCandidate> ranked = search_on(topology, base, subset, /*limit_best=*/true);
    if (ranked.empty() || !ranked.front().fits) continue;
    const SearchCandidate& best = ranked.front();
    out.baseline_gpus = n;
    out.baseline = fmt::format("{} on {} GPU{}", describe_layout(best.layout), n, n == 1 ? "" : "s");
    out.speedup = out.tokens_per_s / best.tokens_per_s;
    out.scaling_efficiency = *out.speedup / (double(out.gpus) / n);
    return;
  }
}

}  // namespace plan_detail

PlanResult plan(const Topology& topology, const PlanRequest& request) {
  using namespace plan_detail;
  validate_model(request.model, "--arch");
  check_request(request);
  const std::vector<DeviceId> selected = selected_gpus(topology, request);
  std::vector<std::string> assumptions;
  const ParallelLayout layout = resolve_layout(request, int(selected.size()), assumptions);
  CommTimer timer(topology, request.comm, request.sim_mode);
  PlanResult out = evaluate_layout(request, layout, selected, timer);
  out.assumptions.insert(out.assumptions.begin(), assumptions.begin(), assumptions.end());
  if (!out.memory.fits) out.smallest_fitting = smallest_fitting(topology, request, out);
  if (request.compute_baseline) fill_baseline(topology, request, selected, out);
  return out;
}

}  // namespace linksim
