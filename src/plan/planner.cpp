// SPDX-License-Identifier: Apache-2.0
// plan(): GPUs selected, layout resolved and checked, the step evaluated, then the baseline
// for speedup and, when the plan does not fit, the smallest TP x PP that would.
#include <algorithm>
#include <optional>
#include <fmt/core.h>

#include "linksim/error.hpp"
#include "linksim/plan.hpp"
#include "linksim/units.hpp"
#include "plan/framework.hpp"
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
  auto fraction = [](const std::optional<double>& v, const char* field) {
    if (v && !(*v > 0 && *v <= 1)) {
      throw ConfigError(RequestField{field}, fmt::format("expected a fraction in (0, 1], got {}", *v));
    }
  };
  fraction(r.gemm_efficiency, "gemm_efficiency");
  fraction(r.hbm_efficiency, "hbm_efficiency");
  if (r.mode == PlanMode::kDecode && r.kv_len < 1) {
    throw ConfigError(RequestField{"kv_len"}, fmt::format("expected >= 1 context token for decode, got {}", r.kv_len));
  }
}

/// HSDP's shard group "one server" made a number: the DP x CP ranks of the first server (a
/// TP group lives inside a server; the DP x CP ranks of rank 0 are TP apart).
PlanRequest with_shard_group(const Topology& topology, const PlanRequest& r,
                             const std::vector<DeviceId>& selected,
                             std::vector<std::string>& assumptions) {
  if (r.shard_group != PlanRequest::kShardGroupPerServer) return r;
  const std::optional<int> host = topology.device(selected.front()).host;
  int per_server = 0;
  for (DeviceId d : selected) per_server += topology.device(d).host == host ? 1 : 0;
  PlanRequest out = r;
  out.shard_group = std::max(1, per_server / r.tp.value_or(1));
  if (r.dp) out.shard_group = std::min(out.shard_group, *r.dp * r.cp.value_or(1));
  assumptions.push_back(fmt::format("zero=hsdp: parameters sharded over the {} data-parallel ranks "
                                    "of one server, replicated across servers",
                                    out.shard_group));
  return out;
}

std::string smallest_fitting(const Topology& topology, const PlanRequest& r,
                             const Precision& precision, const PlanResult& p) {
  // TP x PP in increasing order, DP and CP as planned, within the topology's GPUs.
  const int available = int(topology.gpus().size());
  const GpuModel& gpu = topology.gpu_model(topology.gpus().front());
  for (int product = 1; product * p.layout.dp * p.layout.cp <= available; ++product) {
    for (int tp = 1; tp <= product; ++tp) {
      if (product % tp != 0) continue;
      ParallelLayout l = p.layout;
      l.tp = tp;
      l.pp = product / tp;
      l.vpp = 1;
      if (!layout_problem(r.model, r.mode, l, l.gpus()).empty()) continue;
      const MemoryBreakdown mem =
          estimate_memory(r.model, l, r.mode, r.recompute, precision.memory(), gpu.memory_bytes,
                          attention_core(framework_traits(r), gpu));
      if (mem.fits) {
        return fmt::format("tp={} pp={} ({} GPUs, {} per GPU)", l.tp, l.pp, l.gpus(), format_size(mem.total));
      }
    }
  }
  return {};
}

void set_baseline(PlanResult& out, int gpus, const std::string& layout, double tokens_per_s) {
  out.baseline_gpus = gpus;
  out.baseline = fmt::format("{} on {} GPU{}", layout, gpus, gpus == 1 ? "" : "s");
  out.speedup = out.tokens_per_s / tokens_per_s;
  out.scaling_efficiency = *out.speedup / (double(out.gpus) / gpus);
}

/// The baseline of a plan (docs/planner.md#speedup-and-baseline): one GPU if the model fits
/// there, else the same layout with the smallest data-parallel degree that fits (the scaling a
/// user means when adding replicas), else the plan itself. `--baseline N` instead takes the best
/// layout the search finds on N GPUs.
void fill_baseline(const Topology& topology, const PlanRequest& r, const Precision& precision,
                   const std::vector<DeviceId>& selected, PlanResult& out) {
  PlanRequest base = r;
  base.compute_baseline = false;
  base.gpus = {};
  base.global_batch = out.layout.global_batch;
  auto best_on = [&](int n) -> std::optional<SearchCandidate> {
    std::vector<DeviceId> subset(selected.begin(), selected.begin() + n);
    const std::vector<SearchCandidate> ranked = search_on(topology, base, precision, subset, /*best_only=*/true);
    if (ranked.empty() || !ranked.front().fits) return std::nullopt;
    return ranked.front();
  };
  if (r.baseline_gpus) {
    if (*r.baseline_gpus < 1 || *r.baseline_gpus > int(selected.size())) {
      throw ConfigError(RequestField{"baseline_gpus"}, fmt::format("expected 1 to {} GPUs (those selected), got {}",
                                    selected.size(), *r.baseline_gpus));
    }
    if (auto best = best_on(*r.baseline_gpus)) {
      set_baseline(out, *r.baseline_gpus, describe_layout(best->layout), best->tokens_per_s);
    }
    return;
  }
  if (auto one = best_on(1)) {
    set_baseline(out, 1, describe_layout(one->layout), one->tokens_per_s);
    return;
  }
  const ParallelLayout& l = out.layout;
  const std::vector<DeviceId> first(selected.begin(), selected.end());
  CommTimer timer(topology, r.comm, r.sim_mode);
  for (int dp = 1; dp <= l.dp; ++dp) {
    if (l.dp % dp != 0) continue;
    ParallelLayout smaller = l;
    smaller.dp = dp;
    if (!layout_problem(r.model, r.mode, smaller, smaller.gpus()).empty()) continue;
    if (dp == l.dp) {
      if (out.memory.fits) set_baseline(out, out.gpus, "this plan", out.tokens_per_s);
      return;
    }
    std::vector<DeviceId> subset(selected.begin(), selected.begin() + smaller.gpus());
    const PlanResult p = evaluate_layout(base, precision, smaller, subset, timer);
    if (p.memory.fits) {
      set_baseline(out, smaller.gpus(), describe_layout(smaller), p.tokens_per_s);
      return;
    }
  }
}

}  // namespace plan_detail

PlanResult plan(const Topology& topology, const PlanRequest& request) {
  using namespace plan_detail;
  validate_model(request.model, "arch");
  const Precision precision = resolve_precision(request);
  check_request(request);
  const std::vector<DeviceId> selected = selected_gpus(topology, request);
  std::vector<std::string> assumptions;
  const PlanRequest resolved = with_shard_group(topology, request, selected, assumptions);
  const ParallelLayout layout = resolve_layout(resolved, int(selected.size()), assumptions);
  CommTimer timer(topology, request.comm, request.sim_mode);
  PlanResult out = evaluate_layout(resolved, precision, layout, selected, timer);
  out.assumptions.insert(out.assumptions.begin(), assumptions.begin(), assumptions.end());
  out.assumptions.push_back(fmt::format("collectives as NCCL {} runs them (--nccl-version)",
                                        to_string(request.comm.nccl_version)));
  if (!out.memory.fits) out.smallest_fitting = smallest_fitting(topology, resolved, precision, out);
  if (resolved.compute_baseline) fill_baseline(topology, resolved, precision, selected, out);
  return out;
}

}  // namespace linksim
