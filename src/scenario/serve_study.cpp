// SPDX-License-Identifier: Apache-2.0
// Serving studies: a plan study's model and layout keys, plus the workload (rate or
// concurrency, lengths, requests, seed), the engine and the SLO; `max_rate: true` also finds
// the highest rate meeting the SLO.
#include "scenario/serve_study.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "linksim/units.hpp"
#include "scenario/plan_study.hpp"
#include "scenario/value_parsers.hpp"

namespace linksim::detail {
namespace {

// Keys a serving study shares with a plan study, applied to its PlanRequest.
const std::vector<std::string>& serve_layout_keys() {
  static const std::vector<std::string> keys = {
      "model", "arch", "tp", "pp", "dp", "cp", "ep", "etp", "dtype", "weight_dtype", "g", "gpus",
      "per_node", "p2p", "p2p_level", "ib_hca", "nvls", "channels", "comm_mode", "nccl_version",
      "gemm_efficiency", "hbm_efficiency"};
  return keys;
}

double serve_duration_value(const YamlValue& value) {
  const std::string text = value.text();
  const std::optional<double> s = parse_duration_s(text);
  if (!s || *s <= 0) value.fail(fmt::format("expected a duration with a unit such as 500ms, got \"{}\"", text));
  return *s;
}

LengthDistribution serve_length_value(const YamlValue& value) {
  const std::string text = value.text();
  const std::optional<LengthDistribution> d = parse_length_distribution(text);
  if (!d || d->a < (d->kind == LengthDistribution::Kind::kLognormal ? 0 : 1)) {
    value.fail(fmt::format("expected a number of tokens or uniform:A:B, normal:MEAN:SD, "
                           "lognormal:MU:SIGMA, got \"{}\"",
                           text));
  }
  return *d;
}

ServeSlo& serve_slo(ServeCaseSpec& spec) {
  if (!spec.request.slo) spec.request.slo = ServeSlo{};
  return *spec.request.slo;
}

}  // namespace

const std::vector<std::string>& serve_study_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = {"name", "machines", "engine", "rate", "concurrency", "input_len",
                                  "output_len", "requests", "seed", "slo_ttft", "slo_tpot",
                                  "slo_pct", "max_rate", "max_model_len", "engine_overhead",
                                  "allreduce"};
    k.insert(k.end(), serve_layout_keys().begin(), serve_layout_keys().end());
    return k;
  }();
  return keys;
}

void check_serve_entry(const YamlValue& entry) {
  check_plan_entry(entry);
  const bool rate = entry.find("rate").has_value(), clients = entry.find("concurrency").has_value();
  if (rate && clients) entry.key_of("concurrency").fail("give either rate or concurrency, not both");
  if (!rate && !clients) entry.fail("missing required key \"rate\" (or \"concurrency\")");
  if (entry.find("max_rate") && !entry.find("slo_ttft") && !entry.find("slo_tpot")) {
    entry.key_of("max_rate").fail("max_rate needs an SLO to meet: slo_ttft and/or slo_tpot");
  }
}

void apply_serve_key(const std::string& key, const YamlValue& value, ServeCaseSpec& spec) {
  ServeRequest& r = spec.request;
  const std::vector<std::string>& layout = serve_layout_keys();
  if (std::find(layout.begin(), layout.end(), key) != layout.end()) {
    PlanCaseSpec plan{r.plan, false};
    apply_plan_key(key, value, plan);
    r.plan = plan.request;
  } else if (key == "engine") {
    std::vector<std::string> names;
    for (const EngineModel& e : engine_catalog()) names.push_back(e.name);
    r.engine = *find_engine(choice_value(value, names));
  } else if (key == "rate") {
    r.rate_per_s = value.to_double(0);
    if (!(*r.rate_per_s > 0)) value.fail(fmt::format("expected requests/s > 0, got {}", value.text()));
  } else if (key == "concurrency") {
    r.concurrency = value.to_int(1);
  } else if (key == "input_len") {
    r.input = serve_length_value(value);
  } else if (key == "output_len") {
    r.output = serve_length_value(value);
  } else if (key == "requests") {
    r.requests = value.to_int(1);
  } else if (key == "seed") {
    r.seed = std::uint64_t(value.to_int(0));
  } else if (key == "slo_ttft") {
    serve_slo(spec).ttft_s = serve_duration_value(value);
  } else if (key == "slo_tpot") {
    serve_slo(spec).tpot_s = serve_duration_value(value);
  } else if (key == "slo_pct") {
    serve_slo(spec).percentile = value.to_double(0);
  } else if (key == "max_rate") {
    spec.max_rate = value.to_bool();
  } else if (key == "max_model_len") {
    r.max_model_len = value.to_int(2);
  } else if (key == "engine_overhead") {
    spec.engine_overhead_s = serve_duration_value(value);
  } else if (key == "allreduce") {
    spec.allreduce = choice_value(value, {"nccl", "custom"}) == "custom" ? AllReduceImpl::kCustom
                                                                          : AllReduceImpl::kNccl;
  }
}

}  // namespace linksim::detail
