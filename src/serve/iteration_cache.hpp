// SPDX-License-Identifier: Apache-2.0
// Iteration times by batch shape: the step model is asked once per quantised shape
// (docs/serving.md#iteration-cache), so a run of 100,000 requests costs a few thousand
// evaluations of the planner, not one per iteration.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "linksim/plan.hpp"

namespace linksim::serve_detail {

/// x rounded to `bits` significant bits (exact below 2^(bits + 1)): relative error at most
/// 2^-(bits + 1).
double quantise_significant(double x, int bits);

/// The shape a batch is timed as: tokens to 8 significant bits (0.2 %), sequences to 6,
/// attention pairs and keys read to 6 (0.8 %); a decode-only batch stays decode-only (one
/// row per sequence), a batch with prompt tokens keeps them.
IterationBatch quantised_batch(const IterationBatch& batch);

class IterationCache {
 public:
  explicit IterationCache(IterationTimer& timer) : timer_(timer) {}
  /// The time of `batch`'s quantised shape.
  IterationTime time(const IterationBatch& batch);
  long misses() const { return misses_; }

 private:
  struct ShapeKey {
    double tokens, sequences, pairs, keys;
    bool prefill;
    bool operator==(const ShapeKey&) const = default;
  };
  struct ShapeHash {
    std::size_t operator()(const ShapeKey& k) const;
  };
  IterationTimer& timer_;
  std::unordered_map<ShapeKey, IterationTime, ShapeHash> times_;
  long misses_ = 0;
};

}  // namespace linksim::serve_detail
