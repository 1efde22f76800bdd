// SPDX-License-Identifier: Apache-2.0
// IterationTimer: one replica's step model set up once, then asked for the time of each
// serving iteration's batch (docs/serving.md#iteration).
#include <algorithm>
#include <fmt/core.h>

#include "linksim/error.hpp"
#include "linksim/plan.hpp"
#include "plan/layout.hpp"
#include "plan/step_builder.hpp"
#include "plan/step_model.hpp"

namespace linksim {

struct IterationTimer::Impl {
  Impl(const Topology& topology, const PlanRequest& r)
      : request(r), precision(plan_detail::resolve_precision(r)),
        timer(topology, r.comm, r.sim_mode) {}
  PlanRequest request;
  plan_detail::Precision precision;
  ParallelLayout layout;
  std::vector<DeviceId> selected;
  plan_detail::CommTimer timer;
};

namespace {

PlanRequest replica_request(const PlanRequest& r) {
  if (r.mode == PlanMode::kTrain) {
    throw ConfigError("mode: expected prefill or decode for a serving iteration, got train");
  }
  PlanRequest out = r;
  out.dp = 1;
  out.compute_baseline = false;
  out.iteration.reset();
  return out;
}

}  // namespace

IterationTimer::IterationTimer(const Topology& topology, const PlanRequest& request) {
  validate_model(request.model, "--arch");
  impl_ = std::make_unique<Impl>(topology, replica_request(request));
  PlanRequest& r = impl_->request;
  // The replica: the first TP x PP x CP GPUs of the selection.
  std::vector<DeviceId> selected = plan_detail::selected_gpus(topology, r);
  const size_t replica = size_t(r.tp.value_or(1)) * r.pp.value_or(1) * r.cp.value_or(1);
  if (selected.size() > replica) selected.resize(replica);
  impl_->selected = std::move(selected);
  std::vector<std::string> assumptions;
  impl_->layout = plan_detail::resolve_layout(r, int(impl_->selected.size()), assumptions);
}

IterationTimer::~IterationTimer() = default;
IterationTimer::IterationTimer(IterationTimer&&) noexcept = default;

IterationTime IterationTimer::time(const IterationBatch& batch) {
  impl_->request.iteration = batch;
  plan_detail::StepBuilder builder(impl_->request, impl_->precision, impl_->layout,
                                   impl_->selected, impl_->timer);
  return builder.time_only();
}

PlanResult IterationTimer::plan(const IterationBatch& batch) {
  impl_->request.iteration = batch;
  return plan_detail::evaluate_layout(impl_->request, impl_->precision, impl_->layout,
                                      impl_->selected, impl_->timer);
}

MemoryBreakdown IterationTimer::memory_without_kv(int batched_tokens) const {
  ParallelLayout l = impl_->layout;
  l.batch = 1;
  l.seq = std::max(1, batched_tokens);
  l.kv_len = 0;
  const double capacity = impl_->timer.topology().gpu_model(impl_->selected.front()).memory_bytes;
  // Prefill of one sequence of batched_tokens: the activations of that many tokens; its KV
  // is taken out again (the pool is sized separately).
  MemoryBreakdown m = estimate_memory(impl_->request.model, l, PlanMode::kPrefill,
                                      impl_->request.recompute, impl_->precision.memory(), capacity);
  m.total -= m.kv_cache;
  m.kv_cache = 0;
  m.fits = m.total <= m.capacity;
  return m;
}

double IterationTimer::kv_bytes_per_token() const {
  // A decode step of one sequence holds kv_len + 1 tokens of KV.
  constexpr int kTokens = 4096;
  ParallelLayout l = impl_->layout;
  l.batch = 1;
  l.kv_len = kTokens - 1;
  const double capacity = impl_->timer.topology().gpu_model(impl_->selected.front()).memory_bytes;
  const MemoryBreakdown m = estimate_memory(impl_->request.model, l, PlanMode::kDecode,
                                            impl_->request.recompute, impl_->precision.memory(), capacity);
  return m.kv_cache / kTokens;
}

const ParallelLayout& IterationTimer::layout() const { return impl_->layout; }
const PlanRequest& IterationTimer::request() const { return impl_->request; }

}  // namespace linksim
