// SPDX-License-Identifier: Apache-2.0
#include "serve/iteration_cache.hpp"

#include <cmath>
#include <functional>

namespace linksim::serve_detail {
namespace {

constexpr int kTokenBits = 8;
constexpr int kSequenceBits = 6;
constexpr int kAttentionBits = 6;

}  // namespace

double quantise_significant(double x, int bits) {
  if (x <= 0) return 0;
  const double exact_below = std::ldexp(1.0, bits + 1);
  if (x < exact_below) return std::round(x);
  const int exponent = std::ilogb(x);
  const double step = std::ldexp(1.0, exponent - bits);
  return std::round(x / step) * step;
}

IterationBatch quantised_batch(const IterationBatch& b) {
  // Only tokens, sequences, attention pairs, keys read and whether prompt tokens are among
  // them enter the step model (work_shape, the launch mode): the representative batch is one
  // group of decode rows, or of prompt rows.
  IterationBatch q;
  const double tokens = quantise_significant(b.tokens(), kTokenBits);
  const double pairs = quantise_significant(b.decode_context_tokens + b.prefill_attention_pairs, kAttentionBits);
  const double keys = quantise_significant(b.decode_context_tokens + b.prefill_context_tokens, kAttentionBits);
  if (b.prefill_tokens <= 0) {
    // Decode only: one row per sequence, and pairs = keys (each query reads its context once).
    q.decode_sequences = int(tokens);
    q.decode_context_tokens = keys;
    return q;
  }
  q.prefill_tokens = tokens;
  q.prefill_sequences = int(quantise_significant(b.decode_sequences + b.prefill_sequences, kSequenceBits));
  q.prefill_attention_pairs = pairs;
  q.prefill_context_tokens = keys;
  return q;
}

std::size_t IterationCache::ShapeHash::operator()(const ShapeKey& k) const {
  std::size_t h = std::hash<double>()(k.tokens);
  for (double v : {k.sequences, k.pairs, k.keys}) h = h * 1000003u ^ std::hash<double>()(v);
  h = h * 1000003u ^ std::size_t(k.prefill);
  return h;
}

IterationTime IterationCache::time(const IterationBatch& batch) {
  const IterationBatch q = quantised_batch(batch);
  const ShapeKey key{q.tokens(), double(q.decode_sequences + q.prefill_sequences),
                     q.decode_context_tokens + q.prefill_attention_pairs,
                     q.decode_context_tokens + q.prefill_context_tokens, q.prefill_tokens > 0};
  if (auto it = times_.find(key); it != times_.end()) return it->second;
  ++misses_;
  const IterationTime t = timer_.time(q);
  times_.emplace(key, t);
  return t;
}

}  // namespace linksim::serve_detail
