// SPDX-License-Identifier: Apache-2.0
// One model replica under a serving engine's scheduler: the waiting queue, the running batch,
// the KV-cache block pool, and what one iteration schedules and completes
// (docs/serving.md#scheduler).
#pragma once

#include <deque>
#include <optional>
#include <vector>

#include "linksim/engine.hpp"
#include "linksim/plan.hpp"

namespace linksim::serve_detail {

/// A request as the scheduler sees it.
struct Sequence {
  int id = 0;
  int replica = 0;
  double arrival_s = 0;
  int input_tokens = 0;
  int output_tokens = 0;
  int prefill_target = 0;   ///< tokens to compute before the next token comes out
  int computed = 0;         ///< tokens whose KV is in the cache
  int generated = 0;        ///< output tokens so far
  long blocks = 0;          ///< KV blocks held
  int preemptions = 0;
  bool swapped = false;     ///< preempted by swap: its KV waits in host memory
  std::optional<double> scheduled_s, first_token_s;
  double last_token_s = 0;
  double finish_s = 0;
};

/// One sequence's share of an iteration.
struct ScheduledWork {
  int sequence = 0;
  int tokens = 0;
};

/// What one iteration runs.
struct IterationWork {
  std::vector<ScheduledWork> work;
  IterationBatch batch;
  double swap_bytes = 0;  ///< KV moved to or from host memory before the step (swap preemption)
};

/// The scheduler's state for one replica. Sequences live in the simulator's table and are
/// referred to by id.
class Replica {
 public:
  Replica(int index, const EngineModel& engine, long blocks, double kv_bytes_per_token);

  void enqueue(int id) { waiting_.push_back(id); }
  /// Builds the next iteration at `now` (preempting and admitting as the engine does); empty
  /// work when nothing can run.
  IterationWork schedule(std::vector<Sequence>& table, double now);
  /// Applies a finished iteration at `now`: tokens out, KV grown; returns the ids that
  /// completed (their blocks freed).
  std::vector<int> complete(std::vector<Sequence>& table, const IterationWork& work, double now,
                            std::vector<double>& token_gaps);

  bool busy = false;
  double busy_until = 0;
  IterationWork current;

  int running() const { return int(running_.size()); }
  int queued() const { return int(waiting_.size()); }
  long used_blocks() const { return total_blocks_ - free_blocks_; }
  long total_blocks() const { return total_blocks_; }
  long preemptions() const { return preemptions_; }

 private:
  long blocks_for(long tokens) const;
  /// Frees the blocks of the newest running sequence (not `keep`) and sends it back to the
  /// front of the queue; false when there is none.
  bool preempt_newest(std::vector<Sequence>& table, int keep, IterationWork& out);
  void preempt(Sequence& s, IterationWork& out);
  void schedule_running(std::vector<Sequence>& table, int& budget, IterationWork& out,
                        bool& preempted);
  void admit_waiting(std::vector<Sequence>& table, double now, int& budget, IterationWork& out);
  void add_to_batch(const Sequence& s, int tokens, IterationWork& out) const;

  int index_;
  const EngineModel& engine_;
  long total_blocks_;
  long free_blocks_;
  double kv_bytes_per_token_;
  std::deque<int> waiting_;
  std::vector<int> running_;  // admission order: the newest last
  long preemptions_ = 0;
};

}  // namespace linksim::serve_detail
