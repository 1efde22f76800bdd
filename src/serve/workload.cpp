// SPDX-License-Identifier: Apache-2.0
// The requests of a run: Poisson arrivals or a trace, lengths drawn per request
// (docs/serving.md#workload). One generator, drawn in a fixed order (gap, input, output per
// request), so a seed always gives the same requests.
#include <fmt/core.h>

#include "linksim/error.hpp"
#include "serve/run_state.hpp"
#include "serve/sampling.hpp"

namespace linksim::serve_detail {
namespace {

void check_fits_pool(const Sequence& s, const KvPool& pool) {
  const long tokens = long(s.input_tokens) + s.output_tokens;
  const long blocks = (tokens + pool.block_size_tokens - 1) / pool.block_size_tokens;
  if (blocks > pool.blocks) {
    throw ConfigError(fmt::format(
        "request {} needs {} KV blocks ({} prompt + {} output tokens), but the pool holds {} "
        "blocks of {} tokens",
        s.id, blocks, s.input_tokens, s.output_tokens, pool.blocks, pool.block_size_tokens));
  }
}

// A trace row the run cannot take: at the row's input tokens when the trace came from a file.
[[noreturn]] void refuse_trace_row(const ServeRequest& r, const TraceRequest& row, int index,
                                   const std::string& what) {
  if (!r.trace_file.empty() && row.line > 0) {
    throw ConfigError(SourceLocation{r.trace_file, row.line, row.input_column}, what);
  }
  throw ConfigError(fmt::format("trace row {}: {}", index + 1, what));
}

}  // namespace

std::vector<Sequence> make_sequences(const ServeRequest& r, const std::optional<double>& rate,
                                     const KvPool& pool) {
  std::vector<Sequence> out;
  if (!r.trace.empty()) {
    out.reserve(r.trace.size());
    for (const TraceRequest& t : r.trace) {
      Sequence s;
      s.id = int(out.size());
      s.arrival_s = t.arrival_s;
      s.input_tokens = t.input_tokens;
      s.output_tokens = t.output_tokens;
      s.prefill_target = s.input_tokens;
      if (long(s.input_tokens) + s.output_tokens > r.max_model_len) {
        refuse_trace_row(r, t, s.id,
                         fmt::format("{} prompt + {} output tokens exceed the context of {} "
                                     "tokens (max_model_len)",
                                     s.input_tokens, s.output_tokens, r.max_model_len));
      }
      try {
        check_fits_pool(s, pool);
      } catch (const ConfigError& e) {
        refuse_trace_row(r, t, s.id, e.message());
      }
      out.push_back(s);
    }
    return out;
  }
  WorkloadRandom random(r.seed);
  out.reserve(size_t(r.requests));
  double t = 0;
  for (int i = 0; i < r.requests; ++i) {
    Sequence s;
    s.id = i;
    if (rate) {
      t += random.exponential(*rate);
      s.arrival_s = t;
    }
    s.input_tokens = random.length(r.input, r.max_model_len - 1);
    s.output_tokens = random.length(r.output, r.max_model_len - s.input_tokens);
    s.prefill_target = s.input_tokens;
    check_fits_pool(s, pool);
    out.push_back(s);
  }
  return out;
}

}  // namespace linksim::serve_detail
