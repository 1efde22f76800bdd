// SPDX-License-Identifier: Apache-2.0
// Serving workloads as `linksim serve` takes them (docs/cli.md#linksim-serve). The first line
// holds option values separated by blanks, read as --input-len, --slo, --rate-sweep and
// --engine-overhead in that order: each is accepted or refused with a message naming its
// flag. The rest is a --trace CSV: refused at trace.csv:line:column, or read into requests
// with finite, ordered arrivals and lengths of at least one token; a short trace is then
// simulated on one H100 (Llama 3.1 8B, vLLM) and must give finite, ordered percentiles.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "linksim/model.hpp"
#include "linksim/serve.hpp"
#include "linksim/serve_options.hpp"
#include "linksim/topology_yaml.hpp"

namespace {

using namespace linksim;

constexpr int kMaxModelLen = 8192;      // tokens; a small model window keeps runs short
constexpr size_t kMaxSimulatedRows = 32;

std::vector<std::string> words_of(std::string_view line) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.emplace_back(line.substr(start, i - start));
  }
  return words;
}

// A refusal of one option names its flag and says something after it.
void check_option_refusal(const ConfigError& error, std::string_view flag, std::string_view text) {
  const std::string what = error.what();
  if (what.find(std::string(flag) + ":") == std::string::npos || error.message().empty()) {
    fuzz::finding("an option refusal that does not name its flag", what + "\n" + std::string(text));
  }
}

void fuzz_options(std::string_view line) {
  const std::vector<std::string> words = words_of(line);
  if (words.size() > 0) {
    try {
      const LengthDistribution d =
          parse_serve_length(words[0], "input-len", kMaxModelLen, OptionSpelling::kFlag);
      if (!std::isfinite(d.a) || !std::isfinite(d.b)) fuzz::finding("a non-finite length", line);
    } catch (const ConfigError& e) {
      check_option_refusal(e, "--input-len", line);
    }
  }
  if (words.size() > 1) {
    try {
      const ServeSlo slo = parse_serve_slo(words[1], OptionSpelling::kFlag);
      if (!(slo.percentile > 0 && slo.percentile <= 100)) fuzz::finding("an SLO percentile outside 0..100", line);
    } catch (const ConfigError& e) {
      check_option_refusal(e, "--slo", line);
    }
  }
  if (words.size() > 2) {
    try {
      const RateSweep sweep = parse_rate_sweep(words[2], OptionSpelling::kFlag);
      if (!(sweep.from > 0 && sweep.from <= sweep.to && sweep.step > 0) ||
          (sweep.to - sweep.from) / sweep.step > 10000.5) {
        fuzz::finding("a rate sweep outside its documented bounds", line);
      }
    } catch (const ConfigError& e) {
      check_option_refusal(e, "--rate-sweep", line);
    }
  }
  if (words.size() > 3) {
    try {
      const EngineModel engine =
          serving_engine_option("vllm", words[3], std::nullopt, OptionSpelling::kFlag);
      if (!std::isfinite(engine.iteration_overhead_s) || engine.iteration_overhead_s < 0) {
        fuzz::finding("an engine overhead that is not a finite duration", line);
      }
    } catch (const ConfigError& e) {
      check_option_refusal(e, "--engine-overhead", line);
    }
  }
}

void check_stats(const LatencyStats& s, std::string_view name, std::string_view text) {
  const bool finite = std::isfinite(s.mean) && std::isfinite(s.p50) && std::isfinite(s.p90) &&
                      std::isfinite(s.p99);
  if (!finite || s.p50 < 0 || s.p50 > s.p90 || s.p90 > s.p99) {
    fuzz::finding(std::string("percentiles not finite and ordered: ") + std::string(name), text);
  }
}

void simulate(std::vector<TraceRequest> trace, std::string_view text) {
  static const Topology topology = load_topology(fuzz::source_path("topologies/dgx-h100.yaml"));
  ServeRequest request;
  request.plan.model = ModelCatalog::builtin().get("llama3.1-8b");
  request.plan.tp = 1;
  request.plan.dp = 1;
  request.engine = *find_engine("vllm");
  request.max_model_len = kMaxModelLen;
  request.trace = std::move(trace);
  request.trace_file = "trace.csv";
  try {
    const ServeResult result = ServeSimulator(topology, request).run();
    if (result.requests != int(request.trace.size())) fuzz::finding("requests lost by the simulation", text);
    check_stats(result.ttft_s, "ttft", text);
    check_stats(result.e2e_s, "e2e", text);
    if (!std::isfinite(result.duration_s) || result.duration_s < 0) fuzz::finding("a non-finite duration", text);
  } catch (const ConfigError& e) {
    // A trace row longer than the model window is refused with the row's position.
    fuzz::check_refusal(e, text, "trace.csv");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = fuzz::as_text(data, size);
  const size_t newline = input.find('\n');
  fuzz_options(input.substr(0, newline));
  if (newline == std::string_view::npos) return 0;
  const std::string_view text = input.substr(newline + 1);
  std::vector<TraceRequest> trace;
  try {
    trace = parse_trace_csv(text, "trace.csv");
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "trace.csv");
    return 0;
  }
  double previous = 0;
  for (const TraceRequest& r : trace) {
    if (!std::isfinite(r.arrival_s) || r.arrival_s < previous || r.input_tokens < 1 ||
        r.output_tokens < 1) {
      fuzz::finding("a trace row out of order, non-finite or without tokens", text);
    }
    previous = r.arrival_s;
  }
  if (!trace.empty() && trace.size() <= kMaxSimulatedRows) simulate(std::move(trace), text);
  return 0;
}
