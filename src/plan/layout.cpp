// SPDX-License-Identifier: Apache-2.0
#include "plan/layout.hpp"

#include <algorithm>
#include <fmt/core.h>

#include "linksim/error.hpp"

namespace linksim::plan_detail {
namespace {

void require_positive(const std::optional<int>& value, const char* field) {
  if (value && *value < 1) {
    throw ConfigError(RequestField{field}, fmt::format("expected a degree >= 1, got {}", *value));
  }
}

}  // namespace

std::string layout_problem(const ModelSpec& model, PlanMode mode, const ParallelLayout& l,
                           int gpus_selected) {
  if (l.gpus() != gpus_selected) {
    return fmt::format("TP x PP x CP x DP = {} x {} x {} x {} = {} GPUs, but {} GPUs are selected",
                       l.tp, l.pp, l.cp, l.dp, l.gpus(), gpus_selected);
  }
  if (model.heads % l.tp != 0) {
    return fmt::format("--tp {} does not divide the model's {} attention heads", l.tp, model.heads);
  }
  if (model.kv_heads % l.tp != 0 && l.tp % model.kv_heads != 0) {
    return fmt::format("--tp {} and the model's {} KV heads: one must divide the other (KV heads "
                       "are split, or replicated over TP ranks)",
                       l.tp, model.kv_heads);
  }
  if (l.pp > model.layers) {
    return fmt::format("--pp {} is larger than the model's {} layers", l.pp, model.layers);
  }
  if (l.vpp > 1 && l.pp == 1) return fmt::format("--vpp {} needs --pp > 1", l.vpp);
  // The input embedding and the loss may each fill a model chunk of their own (Megatron-LM's
  // --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split; the
  // Llama 3 paper, section 3.3.2): at most layers + 2 chunks.
  if (l.pp * l.vpp > model.layers + 2) {
    return fmt::format("--pp {} x --vpp {} = {} model chunks for {} layers (at most layers + 2: "
                       "the embedding and the loss may hold a chunk each)",
                       l.pp, l.vpp, l.pp * l.vpp, model.layers);
  }
  if (!model.is_moe() && (l.ep > 1 || l.etp > 1)) {
    return fmt::format("--ep {} / --etp {} on a dense model ({} has no experts)", l.ep, l.etp,
                       model.name);
  }
  const int fold = l.tp * l.cp * l.dp;
  if (fold % (l.ep * l.etp) != 0) {
    return fmt::format("EP x ETP = {} x {} = {} does not divide TP x CP x DP = {} (Megatron-Core "
                       "folds expert parallelism over those ranks)",
                       l.ep, l.etp, l.ep * l.etp, fold);
  }
  if (model.is_moe() && model.experts % l.ep != 0) {
    return fmt::format("--ep {} does not divide the model's {} experts", l.ep, model.experts);
  }
  if (model.is_moe() && model.moe_ffn % l.etp != 0) {
    return fmt::format("--etp {} does not divide the expert FFN size {}", l.etp, model.moe_ffn);
  }
  if (l.seq % l.cp != 0) {
    return fmt::format("--cp {} does not divide the sequence length {}", l.cp, l.seq);
  }
  if (mode == PlanMode::kTrain) {
    if (l.global_batch % (l.micro_batch * l.dp) != 0) {
      return fmt::format("global batch {} is not divisible by micro-batch x DP = {} x {} = {}",
                         l.global_batch, l.micro_batch, l.dp, l.micro_batch * l.dp);
    }
  } else if (l.batch % l.dp != 0) {
    return fmt::format("batch {} is not divisible by DP = {} (each replica serves a share)",
                       l.batch, l.dp);
  }
  if (l.zero < 0 || l.zero > 3) return fmt::format("--zero: expected 0, 1, 2 or 3, got {}", l.zero);
  if (l.shard_group != 0) {
    if (l.zero != 3) {
      return fmt::format("--shard-group {} applies to --zero hsdp (or 3), got zero {}", l.shard_group, l.zero);
    }
    if (l.shard_group < 1 || (l.dp * l.cp) % l.shard_group != 0) {
      return fmt::format("--shard-group {} does not divide DP x CP = {} x {} = {}", l.shard_group,
                         l.dp, l.cp, l.dp * l.cp);
    }
  }
  return {};
}

ParallelLayout resolve_layout(const PlanRequest& r, int gpus_selected,
                              std::vector<std::string>& assumptions) {
  require_positive(r.tp, "tp");
  require_positive(r.pp, "pp");
  require_positive(r.dp, "dp");
  require_positive(r.cp, "cp");
  require_positive(r.ep, "ep");
  require_positive(r.etp, "etp");
  require_positive(r.vpp, "vpp");
  require_positive(r.global_batch, "global_batch");
  if (r.micro_batch < 1) throw ConfigError(RequestField{"micro_batch"}, fmt::format("expected >= 1, got {}", r.micro_batch));
  if (r.seq < 1) throw ConfigError(RequestField{"seq"}, fmt::format("expected >= 1 token, got {}", r.seq));
  if (r.batch < 1) throw ConfigError(RequestField{"batch"}, fmt::format("expected >= 1 sequence, got {}", r.batch));
  if (r.kv_len < 0) throw ConfigError(RequestField{"kv_len"}, fmt::format("expected >= 0 tokens, got {}", r.kv_len));

  ParallelLayout l;
  l.tp = r.tp.value_or(1);
  l.pp = r.pp.value_or(1);
  l.cp = r.cp.value_or(1);
  l.ep = r.ep.value_or(1);
  l.etp = r.etp.value_or(1);
  l.vpp = r.vpp.value_or(1);
  l.sp = r.sp;
  l.micro_batch = r.micro_batch;
  l.seq = r.seq;
  l.batch = r.batch;
  l.kv_len = r.kv_len;
  const int model_parallel = l.tp * l.pp * l.cp;
  if (r.dp) {
    l.dp = *r.dp;
  } else {
    if (gpus_selected % model_parallel != 0) {
      throw ConfigError(fmt::format("TP x PP x CP = {} x {} x {} = {} does not divide the {} GPUs "
                                    "selected, so DP cannot fill them",
                                    l.tp, l.pp, l.cp, model_parallel, gpus_selected));
    }
    l.dp = gpus_selected / model_parallel;
    assumptions.push_back(fmt::format("dp={}: data parallelism fills the {} GPUs selected", l.dp,
                                      gpus_selected));
  }
  if (r.zero) {
    l.zero = *r.zero;
  } else {
    l.zero = (r.mode == PlanMode::kTrain && l.dp > 1) ? 1 : 0;
    if (r.mode == PlanMode::kTrain) {
      assumptions.push_back(l.zero == 1 ? "zero=1: optimizer state sharded over DP (Megatron's "
                                          "distributed optimizer)"
                                        : "zero=0: one data-parallel replica, nothing to shard");
    }
  }
  l.shard_group = r.shard_group;
  if (r.global_batch) {
    l.global_batch = *r.global_batch;
  } else {
    const int per_pipeline = l.pp > 1 ? 4 * l.pp : 1;
    l.global_batch = l.micro_batch * l.dp * per_pipeline;
    if (r.mode == PlanMode::kTrain) {
      assumptions.push_back(fmt::format(
          "global batch {} sequences: micro-batch {} x DP {} x {} micro-batches per pipeline{}",
          l.global_batch, l.micro_batch, l.dp, per_pipeline,
          l.pp > 1 ? " (m = 4 x PP, Narayanan et al. 2021)" : ""));
    }
  }
  if (l.sp && l.tp == 1) {
    l.sp = false;
    assumptions.push_back("--sp ignored: sequence parallelism needs TP > 1");
  }
  if (std::string why = layout_problem(r.model, r.mode, l, gpus_selected); !why.empty()) {
    throw ConfigError(why);
  }
  return l;
}

Groups rank_groups(const ParallelLayout& l) {
  // rank = tp_i + tp * (cp_i + cp * (dp_i + dp * pp_i)); rank 0's groups vary one index.
  Groups g;
  for (int i = 0; i < l.tp; ++i) g.tp.push_back(i);
  for (int i = 0; i < l.cp; ++i) g.cp.push_back(i * l.tp);
  for (int i = 0; i < l.dp; ++i) g.dp.push_back(i * l.tp * l.cp);
  for (int i = 0; i < l.dp * l.cp; ++i) g.dp_cp.push_back(i * l.tp);
  const int stage_size = l.tp * l.cp * l.dp;
  for (int s = 0; s + 1 < l.pp; ++s) g.pp_pairs.emplace_back(s * stage_size, (s + 1) * stage_size);
  // Experts: the stage's ranks 0..stage_size-1 re-indexed as etp_i + etp * (ep_i + ep * edp_i).
  for (int i = 0; i < l.ep; ++i) g.ep.push_back(i * l.etp);
  const int edp = stage_size / (l.ep * l.etp);
  for (int i = 0; i < edp; ++i) g.edp.push_back(i * l.etp * l.ep);
  return g;
}

std::vector<std::vector<int>> concurrent_groups(const std::vector<int>& group, int ranks,
                                                bool every_shift) {
  std::vector<std::vector<int>> out{group};
  if (group.empty()) return out;
  const int low = *std::min_element(group.begin(), group.end());
  const int high = *std::max_element(group.begin(), group.end());
  // A group of one kind varies one digit of the rank (rank_groups): the smallest rank not yet
  // in a group has that digit 0, so it starts the next group.
  std::vector<bool> taken(size_t(ranks), false);
  for (int r : group) taken[size_t(r)] = true;
  for (int start = 0; start < ranks; ++start) {
    const int shift = start - low;
    if (shift == 0 || high + shift >= ranks || (!every_shift && taken[size_t(start)])) continue;
    std::vector<int> g;
    bool free = true;
    for (int r : group) {
      g.push_back(r + shift);
      free = free && !taken[size_t(r + shift)];
    }
    if (!every_shift && !free) continue;
    if (!every_shift) for (int r : g) taken[size_t(r)] = true;
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace linksim::plan_detail
