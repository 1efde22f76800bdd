// SPDX-License-Identifier: Apache-2.0
#include "plan/plan_search.hpp"

#include <algorithm>
#include <fmt/core.h>

#include "linksim/error.hpp"
#include "linksim/units.hpp"
#include "plan/framework.hpp"
#include "plan/layout.hpp"
#include "plan/step_model.hpp"

namespace linksim {
namespace plan_detail {
namespace {

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

std::string loss_reason(const SearchCandidate& c, const SearchCandidate& best) {
  const double slower = 1 - c.tokens_per_s / best.tokens_per_s;
  const double step = c.step_time_s;
  const double bubble = c.breakdown.bubble_s - best.breakdown.bubble_s * step / best.step_time_s;
  const double comm = c.breakdown.exposed_comm_s - best.breakdown.exposed_comm_s * step / best.step_time_s;
  const double compute = c.breakdown.compute_s - best.breakdown.compute_s * step / best.step_time_s;
  std::string why;
  if (bubble >= comm && bubble >= compute) {
    why = fmt::format("bubble {:.0f} % of the step", 100 * c.breakdown.bubble_s / step);
  } else if (comm >= compute) {
    why = fmt::format("exposed communication {:.0f} % of the step", 100 * c.breakdown.exposed_comm_s / step);
  } else {
    why = fmt::format("slower compute (smaller GEMMs, repeated work) {:.0f} % of the step",
                      100 * c.breakdown.compute_s / step);
  }
  return fmt::format("{:.0f} % slower than the best: {}", 100 * slower, why);
}

}  // namespace

std::string describe_layout(const ParallelLayout& l) {
  std::string text = fmt::format("tp={} pp={} dp={}", l.tp, l.pp, l.dp);
  if (l.cp > 1) text += fmt::format(" cp={}", l.cp);
  if (l.ep > 1) text += fmt::format(" ep={}", l.ep);
  if (l.etp > 1) text += fmt::format(" etp={}", l.etp);
  if (l.vpp > 1) text += fmt::format(" vpp={}", l.vpp);
  if (l.micro_batch > 1) text += fmt::format(" mb={}", l.micro_batch);
  return text;
}

std::vector<SearchCandidate> search_on(const Topology& topology, const PlanRequest& r,
                                       const Precision& precision,
                                       const std::vector<DeviceId>& gpus, bool best_only) {
  const ModelSpec& model = r.model;
  const int n = int(gpus.size());
  const bool train = r.mode == PlanMode::kTrain;
  const GpuModel& gpu = topology.gpu_model(gpus.front());
  CommTimer timer(topology, r.comm, r.sim_mode);
  int per_server_ranks = 0;  // for HSDP's one-server shard group
  for (DeviceId d : gpus) {
    per_server_ranks += topology.device(d).host == topology.device(gpus.front()).host ? 1 : 0;
  }
  const std::vector<int> micro_batches = train ? std::vector<int>{1, 2, 4, 8} : std::vector<int>{1};
  const int global_batch = r.global_batch.value_or(r.micro_batch * n);

  std::vector<SearchCandidate> out;
  for (int tp : divisors(n)) {
    if (tp > model.heads) break;
    for (int pp : divisors(n / tp)) {
      if (pp > model.layers) break;
      for (int cp : divisors(n / (tp * pp))) {
        if (cp > 1 && (r.mode == PlanMode::kDecode || r.seq % cp != 0 || cp > 32)) continue;
        const int dp = n / (tp * pp * cp);
        std::vector<int> eps{1};
        if (model.is_moe()) {
          eps.clear();
          for (int ep : divisors(tp * cp * dp)) {
            if (model.experts % ep == 0) eps.push_back(ep);
          }
        }
        for (int ep : eps) {
          for (int mb : micro_batches) {
            ParallelLayout l;
            l.tp = tp;
            l.pp = pp;
            l.cp = cp;
            l.dp = dp;
            l.ep = ep;
            l.sp = r.sp && tp > 1;
            l.zero = r.zero.value_or(train && dp > 1 ? 1 : 0);
            l.shard_group = r.shard_group == PlanRequest::kShardGroupPerServer
                                ? std::max(1, std::min(per_server_ranks / tp, dp * cp))
                                : r.shard_group;
            l.micro_batch = mb;
            l.global_batch = global_batch;
            l.seq = r.seq;
            l.batch = r.batch;
            l.kv_len = r.kv_len;
            if (!layout_problem(model, r.mode, l, n).empty()) continue;
            SearchCandidate c;
            c.layout = l;
            const MemoryBreakdown mem =
                estimate_memory(model, l, r.mode, r.recompute, precision.memory(),
                                gpu.memory_bytes, attention_core(framework_traits(r), gpu));
            c.memory_bytes = mem.total;
            c.fits = mem.fits;
            if (!c.fits) {
              c.verdict = fmt::format("does not fit ({} > {})", format_size(mem.total),
                                      format_size(mem.capacity));
              out.push_back(c);
              continue;
            }
            PlanRequest req = r;
            req.micro_batch = mb;
            const PlanResult p = evaluate_layout(req, precision, l, gpus, timer);
            c.tokens_per_s = p.tokens_per_s;
            c.step_time_s = p.step_time_s;
            c.breakdown = p.breakdown;
            out.push_back(c);
          }
        }
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const SearchCandidate& a, const SearchCandidate& b) {
    if (a.fits != b.fits) return a.fits;
    return a.tokens_per_s > b.tokens_per_s;
  });
  if (!best_only && !out.empty() && out.front().fits) {
    out.front().verdict = "best";
    for (size_t i = 1; i < out.size() && out[i].fits; ++i) out[i].verdict = loss_reason(out[i], out.front());
  }
  return out;
}

}  // namespace plan_detail

std::vector<SearchCandidate> search_layouts(const Topology& topology, const PlanRequest& request) {
  using namespace plan_detail;
  validate_model(request.model, "arch");
  return search_on(topology, request, resolve_precision(request),
                   selected_gpus(topology, request), false);
}

}  // namespace linksim
