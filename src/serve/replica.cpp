// SPDX-License-Identifier: Apache-2.0
// The iteration-level scheduler of one replica, after vLLM's V1 scheduler
// (vllm/v1/core/sched/scheduler.py): running sequences first, in admission order, each taking
// its decode token or its next prompt chunk from the token budget; a sequence that needs a KV
// block when none is free preempts the newest running one (itself if it is the newest); new
// requests are admitted from the queue only when nothing was preempted, while sequences,
// budget and blocks last (docs/serving.md#scheduler).
#include "serve/replica.hpp"

#include <algorithm>

namespace linksim::serve_detail {

Replica::Replica(int index, const EngineModel& engine, long blocks, double kv_bytes_per_token)
    : index_(index), engine_(engine), total_blocks_(blocks), free_blocks_(blocks),
      kv_bytes_per_token_(kv_bytes_per_token) {}

long Replica::blocks_for(long tokens) const {
  const long size = std::max(1, engine_.block_size_tokens);
  return (tokens + size - 1) / size;
}

void Replica::preempt(Sequence& s, IterationWork& out) {
  free_blocks_ += s.blocks;
  s.blocks = 0;
  ++s.preemptions;
  ++preemptions_;
  if (engine_.preemption == PreemptionMode::kSwap) {
    s.swapped = true;
    out.swap_bytes += double(s.computed) * kv_bytes_per_token_;
  } else {
    // Recompute: the prompt and the tokens generated so far are prefilled again.
    s.computed = 0;
    s.prefill_target = s.input_tokens + s.generated;
  }
  waiting_.push_front(s.id);
}

bool Replica::preempt_newest(std::vector<Sequence>& table, int keep, IterationWork& out) {
  if (running_.empty() || running_.back() == keep) return false;
  const int victim = running_.back();
  running_.pop_back();
  preempt(table[size_t(victim)], out);
  return true;
}

void Replica::add_to_batch(const Sequence& s, int tokens, IterationWork& out) const {
  IterationBatch& b = out.batch;
  if (s.computed >= s.prefill_target) {
    ++b.decode_sequences;
    b.decode_context_tokens += double(s.computed) + 1;
  } else {
    const double p = s.computed, c = tokens;
    ++b.prefill_sequences;
    b.prefill_tokens += c;
    b.prefill_attention_pairs += c * p + c * c / 2;
    b.prefill_context_tokens += p + c;
  }
  out.work.push_back({s.id, tokens});
}

void Replica::schedule_running(std::vector<Sequence>& table, int& budget, IterationWork& out,
                               bool& preempted) {
  for (size_t i = 0; i < running_.size() && budget > 0; ++i) {
    Sequence& s = table[size_t(running_[i])];
    const int remaining = s.prefill_target - s.computed;
    int tokens = remaining > 0 ? std::min(remaining, budget) : 1;
    if (remaining > 0 && !engine_.chunked_prefill && remaining > budget) continue;
    if (remaining > 0 && !engine_.chunked_prefill) tokens = remaining;
    const long need = blocks_for(long(s.computed) + tokens) - s.blocks;
    bool self_preempted = false;
    while (need > free_blocks_) {
      preempted = true;
      if (!preempt_newest(table, s.id, out)) {
        running_.erase(running_.begin() + long(i));
        preempt(s, out);
        self_preempted = true;
        break;
      }
    }
    if (self_preempted) break;
    if (need > 0) {
      free_blocks_ -= need;
      s.blocks += need;
    }
    add_to_batch(s, tokens, out);
    budget -= tokens;
  }
}

void Replica::admit_waiting(std::vector<Sequence>& table, double now, int& budget,
                            IterationWork& out) {
  if (!engine_.continuous_batching && !running_.empty()) return;
  while (!waiting_.empty() && int(running_.size()) < engine_.max_num_seqs && budget > 0) {
    Sequence& s = table[size_t(waiting_.front())];
    const int remaining = s.prefill_target - s.computed;
    int tokens = remaining > 0 ? remaining : 1;
    if (remaining > budget) {
      // Without chunking a prompt waits for a budget that holds it whole, unless it runs alone.
      if (engine_.chunked_prefill) tokens = budget;
      else if (!out.work.empty()) break;
    }
    long need = blocks_for(long(s.computed) + tokens) - s.blocks;
    if (engine_.preemption == PreemptionMode::kNone) {
      // Guaranteed no eviction: the whole prompt and output are reserved at admission.
      need = std::max(need, blocks_for(long(s.input_tokens) + s.output_tokens) - s.blocks);
    }
    if (need > free_blocks_) break;  // admission waits for blocks
    waiting_.pop_front();
    free_blocks_ -= need;
    s.blocks += need;
    if (s.swapped) {
      out.swap_bytes += double(s.computed) * kv_bytes_per_token_;
      s.swapped = false;
    }
    if (!s.scheduled_s) s.scheduled_s = now;
    running_.push_back(s.id);
    add_to_batch(s, tokens, out);
    budget -= tokens;
  }
}

IterationWork Replica::schedule(std::vector<Sequence>& table, double now) {
  IterationWork out;
  int budget = engine_.max_num_batched_tokens;
  bool preempted = false;
  schedule_running(table, budget, out, preempted);
  if (!preempted) admit_waiting(table, now, budget, out);
  return out;
}

std::vector<int> Replica::complete(std::vector<Sequence>& table, const IterationWork& work,
                                   double now, std::vector<double>& token_gaps) {
  std::vector<int> finished;
  for (const ScheduledWork& w : work.work) {
    Sequence& s = table[size_t(w.sequence)];
    s.computed += w.tokens;
    if (s.computed < s.prefill_target) continue;  // a prompt chunk: no token yet
    ++s.generated;
    if (!s.first_token_s) {
      s.first_token_s = now;
    } else {
      token_gaps.push_back(now - s.last_token_s);
    }
    s.last_token_s = now;
    if (s.generated >= s.output_tokens) {
      s.finish_s = now;
      free_blocks_ += s.blocks;
      s.blocks = 0;
      finished.push_back(s.id);
    }
  }
  if (!finished.empty()) {
    std::erase_if(running_, [&](int id) {
      const Sequence& s = table[size_t(id)];
      return s.generated >= s.output_tokens;
    });
  }
  return finished;
}

}  // namespace linksim::serve_detail
