// SPDX-License-Identifier: Apache-2.0
// The evaluation of one plan on one layout, phase by phase: the stages' compute and
// intra-layer communication, the pipeline sends, the data-parallel reduction and optimizer,
// the schedule that composes them into a step, and the result's tables
// (docs/planner.md#step). Internal to src/plan/.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "linksim/plan.hpp"
#include "plan/comm_timer.hpp"
#include "plan/compute_model.hpp"
#include "plan/framework.hpp"
#include "plan/layout.hpp"
#include "plan/precision.hpp"
#include "plan/stage_params.hpp"

namespace linksim::plan_detail {

/// One kind of collective of one pass, per layer (or per micro-batch / per step).
struct CommItem {
  std::string kind, phase;
  std::vector<DeviceId> group;
  CollectiveOp op;
  double bytes = 0;
  double count = 0;      // calls per step
  double exposed_s = 0;  // of the whole step
};

struct Stage {
  detail::StageLayers layers;
  detail::HeldParams params;  // per GPU, before ZeRO sharding
};

struct PassCost {
  LayerCost compute;
  double exposed_comm_s = 0;
  double time() const { return compute.total() + exposed_comm_s; }
};

struct StageCost {
  PassCost fwd, bwd;
  std::vector<CommItem> comms;  // per micro-batch (train) or per step (inference)
};

/// Every pipeline stage costed; the slowest (forward + backward) sets the pace.
struct StagesCost {
  std::vector<Stage> stages;
  std::vector<StageCost> costs;
  size_t slowest = 0;
  PassCost sum_fwd;  ///< forward of every stage added up (inference passes them in turn)
  double sum_fwd_s = 0;  ///< the stages' forward times added up
  const Stage& slowest_stage() const { return stages[slowest]; }
  const StageCost& slowest_cost() const { return costs[slowest]; }
};

/// The slowest send between neighbouring pipeline stages.
struct PipelineSend {
  double bytes = 0;
  double time_s = 0;
  std::vector<DeviceId> pair;
};

/// The data-parallel gradient reduction (and parameter gather) of a training step, and the
/// optimizer that follows it.
struct DataParallelCost {
  std::vector<CommItem> items;
  double exposed_s = 0;
  double optimizer_s = 0;
  /// Compute-stream time block-by-block sharding adds per step (docs/planner.md#fsdp-overheads):
  /// FSDP2's copy-out of the gathered blocks and FSDP1's flat-gradient concatenation
  /// (memory-bound), and the compute slowed by the SMs NCCL's kernels hold while the
  /// collectives hide under it.
  double copy_out_s = 0;
  double sm_share_s = 0;
};

/// One block's collectives and compute under ZeRO-3 / FSDP, seconds.
struct ShardedBlockTimes {
  double gather_s = 0;          ///< all-gather of the block's parameters
  double reduce_scatter_s = 0;  ///< reduce-scatter of its gradients
  double replica_reduce_s = 0;  ///< HSDP: all-reduce of its gradient shard across replicas
  double forward_block_s = 0;   ///< the block's forward compute
  double backward_block_s = 0;  ///< the block's backward compute (recompute included)
  int regather_blocks = 0;      ///< blocks gathered again for backward
  double root_gather_s = 0;     ///< the root unit (embedding, final norm, head): gathered once
  double root_reduce_scatter_s = 0;
};

/// One micro-batch's sharded-parameter traffic and the part of it not hidden.
struct ShardedPass {
  double forward_s = 0, forward_exposed_s = 0;
  double backward_s = 0, backward_exposed_s = 0;
  /// Of backward_exposed_s: the first block's regather, and what the blocks' collectives
  /// between the first and the last leave uncovered.
  double backward_first_s = 0, backward_excess_s = 0;
};

/// Exposure of one micro-batch's per-block gathers and reduce-scatters over `blocks` blocks:
/// with prefetch the first gather and the last reduce-scatter are exposed and the others hide
/// behind the neighbouring block's compute as far as it lasts; without, nothing hides.
ShardedPass sharded_pass_exposure(const ShardedBlockTimes& t, int blocks, int prefetch_depth);

/// One layer's ring attention over the CP ranks, seconds.
struct CpRing {
  int steps = 0;                       ///< attention steps per pass (= CP)
  double forward_s = 0, forward_exposed_s = 0;    ///< K/V exchanges of the forward
  double backward_s = 0, backward_exposed_s = 0;  ///< K/V and dK/dV exchanges of the backward
};

/// Ring attention of `cp` ranks: cp - 1 exchanges (send_fwd_s each forward, send_bwd_s
/// backward), each hidden behind one step's share (1/cp) of the layer's attention.
CpRing cp_ring_exposure(int cp, double send_fwd_s, double send_bwd_s, double attn_fwd_s,
                        double attn_bwd_s);

class StepBuilder {
 public:
  StepBuilder(const PlanRequest& r, const Precision& precision, const ParallelLayout& l,
              const std::vector<DeviceId>& selected, CommTimer& timer);

  PlanResult build();
  /// Inference only: the step's time without the result's tables (IterationTimer).
  IterationTime time_only();

 private:
  bool train() const { return r_.mode == PlanMode::kTrain; }
  /// Transformer Engine's userbuffers TP overlap: training with SP, --tp-overlap async, on a
  /// stack that runs it (docs/planner.md#tp-overlap).
  bool userbuffers() const {
    return train() && r_.tp_overlap_async && fw_.tp_overlap_userbuffers && l_.sp && l_.tp > 1;
  }
  /// GPUs of one model replica (a serving engine's workers): TP x PP x CP.
  int replica_gpus() const { return l_.tp * l_.pp * l_.cp; }
  double activation_bytes() const { return w_.tokens * m_.hidden * p_.act_bytes; }
  /// One call as the step runs it: a serving engine's AllReduce goes through its own
  /// kernels where they apply (CommTimer::allreduce), everything else through NCCL, slowed by
  /// the groups of its kind that run it at the same time (CommTimer::time_concurrent).
  TimedCollective time(const std::vector<DeviceId>& g, CollectiveOp op, double bytes) {
    if (op == CollectiveOp::kAllReduce && r_.engine && !train()) {
      TimedCollective t = timer_.allreduce(g, bytes, *r_.engine);
      if (t.implementation != "nccl") return t;
    }
    if (auto it = concurrent_.find(g); it != concurrent_.end()) {
      return timer_.time_concurrent(g, [&] { return gpus_of(it->second()); }, op, bytes);
    }
    return timer_.time(g, op, bytes);
  }
  /// The GPUs of a group (rank indices, as rank_groups gives them). Records the groups of
  /// its kind that run its collectives at the same time (concurrent_groups); `every_shift`
  /// as there, for neighbour pairs.
  std::vector<DeviceId> pick(const std::vector<int>& ranks, bool every_shift = false);
  /// Rank lists of the groups of a kind, the picked one first; computed when a call needs them.
  using RankGroups = std::function<std::vector<std::vector<int>>()>;
  /// As pick, for the group `own` whose concurrent groups `concurrent` lists (rank indices,
  /// `own` first).
  std::vector<DeviceId> pick_with(const std::vector<int>& own, RankGroups concurrent);
  /// The GPUs of rank lists.
  std::vector<std::vector<DeviceId>> gpus_of(const std::vector<std::vector<int>>& ranks) const;

  // Phases of build(), in order.
  void describe(PlanResult& out) const;
  void describe_assumptions(std::vector<std::string>& lines) const;
  StagesCost cost_stages();
  PipelineSend pipeline_send();
  DataParallelCost data_parallel(const StagesCost& stages);
  DataParallelCost sharded_data_parallel(const StagesCost& stages);  // step_sharded.cpp
  /// The weights of a stage by the group that shares them.
  struct Shard { const char* kind; std::vector<int> ranks; double params; };
  std::vector<Shard> shards(const Stage& stage) const;
  double stage_optimizer_s(const Stage& stage) const;
  std::vector<CommItem> schedule_train(const StagesCost& stages, const PipelineSend& send,
                                       const DataParallelCost& dp, PlanBreakdown& breakdown);
  std::vector<CommItem> schedule_chunked_prefill(const StagesCost& stages, const PipelineSend& send,
                                                 int chunks, PlanResult& out);
  std::vector<CommItem> schedule_inference(const StagesCost& stages, const PipelineSend& send,
                                           PlanBreakdown& breakdown);
  void fill_compute(const StagesCost& stages, const DataParallelCost& dp, PlanResult& out) const;
  /// The channels NCCL runs `op` of `bytes` on `g` with (CollectiveResult::channels).
  int collective_channels(const std::vector<DeviceId>& g, CollectiveOp op, double bytes) const;
  void fill_comm_table(const std::vector<CommItem>& items, PlanResult& out);
  void fill_throughput(PlanResult& out) const;

  // One stage and its layers' communication (step_stage.cpp).
  StageCost stage_cost(const Stage& s);
  void add_layer_comms(bool moe, int layers, StageCost& c, double fwd_hide_s, double bwd_hide_s,
                       double attn_fwd_s, double attn_bwd_s);
  void add_tp_comms(double layers, StageCost& c, double fwd_hide_s, double bwd_hide_s);
  void add_ep_comms(double layers, StageCost& c);
  void add_cp_comms(double layers, StageCost& c, double attn_fwd_s, double attn_bwd_s);

  /// Micro-batches of a training step per pipeline; 1 in inference.
  double micro_batches() const { return train() ? l_.micro_batches() : 1; }
  /// Chunks of a pipelined prefill (PlanRequest::prefill_chunk); 1 when not pipelined.
  int prefill_chunks() const {
    if (r_.mode != PlanMode::kPrefill || l_.pp < 2 || r_.prefill_chunk <= 0) return 1;
    return (l_.seq + r_.prefill_chunk - 1) / r_.prefill_chunk;
  }

  const PlanRequest& r_;
  const ModelSpec& m_;
  const ParallelLayout& l_;
  const std::vector<DeviceId>& selected_;
  CommTimer& timer_;
  const GpuModel& gpu_;
  Precision p_;
  FrameworkTraits fw_;
  GpuRates rates_;
  WorkShape w_;
  Groups groups_;
  /// By group: every group of its kind, itself first (pick); the first recorded stands.
  std::map<std::vector<DeviceId>, RankGroups> concurrent_;
};

}  // namespace linksim::plan_detail
