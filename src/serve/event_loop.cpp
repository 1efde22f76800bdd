// SPDX-License-Identifier: Apache-2.0
// The discrete-event loop of a serving run: arrivals and iteration ends in time order over the
// replicas; each replica starts its next iteration as soon as the last one ends and it has
// work (docs/serving.md#events).
#include <algorithm>
#include <limits>

#include "common/check.hpp"
#include "serve/run_state.hpp"

namespace linksim::serve_detail {
namespace {

// Swap preemption moves KV over the GPU's PCIe link to host memory: PCIe Gen4 x16 DMA at
// about 80 % of 32 GB/s per direction (DESIGN.md primer; docs/serving.md#preemption).
constexpr double kSwapBps = 25e9;
constexpr double kNever = std::numeric_limits<double>::infinity();

class EventLoop {
 public:
  EventLoop(std::vector<Sequence> sequences, const ServeRequest& r, int replicas,
            const KvPool& pool, IterationCache& cache)
      : r_(r), cache_(cache) {
    trace_.sequences = std::move(sequences);
    for (int i = 0; i < replicas; ++i) {
      replicas_.emplace_back(i, r.engine, pool.blocks, pool.bytes_per_token);
    }
  }

  RunTrace run() {
    if (r_.concurrency) {
      const int clients = std::min(*r_.concurrency, int(trace_.sequences.size()));
      for (int i = 0; i < clients; ++i) dispatch(next_closed_++, 0);
      start_idle(0);
    }
    while (true) {
      const double arrival = next_arrival();
      size_t done_replica = 0;
      double done = kNever;
      for (size_t i = 0; i < replicas_.size(); ++i) {
        if (replicas_[i].busy && replicas_[i].busy_until < done) {
          done = replicas_[i].busy_until;
          done_replica = i;
        }
      }
      if (done == kNever && arrival == kNever) break;
      if (done <= arrival) {
        advance(done);
        finish_iteration(done_replica, done);
      } else {
        advance(arrival);
        const int id = next_open_++;
        dispatch(id, arrival);
        start(size_t(trace_.sequences[size_t(id)].replica), arrival);
      }
      sample();
    }
    for (const Replica& rep : replicas_) trace_.preemptions += rep.preemptions();
    for (const Sequence& s : trace_.sequences) {
      LINKSIM_CHECK(s.generated >= s.output_tokens, "a request was never completed");
    }
    return std::move(trace_);
  }

 private:
  double next_arrival() const {
    if (r_.concurrency || next_open_ >= int(trace_.sequences.size())) return kNever;
    return trace_.sequences[size_t(next_open_)].arrival_s;
  }

  void advance(double now) {
    const double dt = now - last_s_;
    int running = 0, in_system = 0;
    long used = 0;
    for (const Replica& rep : replicas_) {
      running += rep.running();
      in_system += rep.running() + rep.queued();
      used += rep.used_blocks();
    }
    trace_.running_area += dt * running;
    trace_.system_area += dt * in_system;
    trace_.kv_used_area += dt * double(used);
    last_s_ = now;
  }

  void sample() {
    ServeSample s;
    s.time_s = last_s_;
    long used = 0, total = 0;
    for (const Replica& rep : replicas_) {
      s.running += rep.running();
      s.queued += rep.queued();
      used += rep.used_blocks();
      total += rep.total_blocks();
    }
    s.kv_utilization = total > 0 ? double(used) / double(total) : 0;
    trace_.samples.push_back(s);
  }

  size_t route() {
    if (r_.routing == ReplicaRouting::kRoundRobin || replicas_.size() == 1) {
      return size_t(round_robin_++ % long(replicas_.size()));
    }
    size_t best = 0;
    for (size_t i = 1; i < replicas_.size(); ++i) {
      const Replica& a = replicas_[i];
      const Replica& b = replicas_[best];
      if (a.running() + a.queued() < b.running() + b.queued()) best = i;
    }
    return best;
  }

  void dispatch(int id, double now) {
    Sequence& s = trace_.sequences[size_t(id)];
    s.arrival_s = now;
    s.replica = int(route());
    replicas_[size_t(s.replica)].enqueue(id);
  }

  void start(size_t index, double now) {
    Replica& rep = replicas_[index];
    if (rep.busy) return;
    rep.current = rep.schedule(trace_.sequences, now);
    if (rep.current.work.empty()) return;
    const IterationTime t = cache_.time(rep.current.batch);
    const double step_s = t.step_s + rep.current.swap_bytes / kSwapBps;
    rep.busy = true;
    rep.busy_until = now + step_s;
    ++trace_.iterations;
    trace_.tokens += rep.current.batch.tokens();
    trace_.step_s += step_s;
    trace_.comm_s += t.exposed_comm_s;
    trace_.engine_s += t.engine_overhead_s;
    IterationBatch& sum = trace_.batch_sum;
    const IterationBatch& b = rep.current.batch;
    sum.decode_sequences += b.decode_sequences;
    sum.decode_context_tokens += b.decode_context_tokens;
    sum.prefill_sequences += b.prefill_sequences;
    sum.prefill_tokens += b.prefill_tokens;
    sum.prefill_attention_pairs += b.prefill_attention_pairs;
    sum.prefill_context_tokens += b.prefill_context_tokens;
  }

  void start_idle(double now) {
    for (size_t i = 0; i < replicas_.size(); ++i) start(i, now);
  }

  void finish_iteration(size_t index, double now) {
    Replica& rep = replicas_[index];
    rep.busy = false;
    gaps_.clear();
    const std::vector<int> finished = rep.complete(trace_.sequences, rep.current, now, gaps_);
    for (double g : gaps_) trace_.gaps.add(g);
    trace_.end_s = std::max(trace_.end_s, now);
    if (r_.concurrency) {
      // Each client sends its next request the moment its last one completes.
      for (size_t k = 0; k < finished.size() && next_closed_ < int(trace_.sequences.size()); ++k) {
        dispatch(next_closed_++, now);
      }
      start_idle(now);
    } else {
      start(index, now);
    }
  }

  const ServeRequest& r_;
  IterationCache& cache_;
  RunTrace trace_;
  std::vector<Replica> replicas_;
  std::vector<double> gaps_;
  int next_open_ = 0;
  int next_closed_ = 0;
  long round_robin_ = 0;
  double last_s_ = 0;
};

}  // namespace

RunTrace run_events(std::vector<Sequence> sequences, const ServeRequest& request, int replicas,
                    const KvPool& pool, IterationCache& cache) {
  return EventLoop(std::move(sequences), request, replicas, pool, cache).run();
}

}  // namespace linksim::serve_detail
