// SPDX-License-Identifier: Apache-2.0
// linksim.serve (docs/python.md#serving): the serving simulation as `linksim serve --json`
// prints it. The layout and machine keywords are plan()'s (plan_keywords.hpp); the serving
// keywords are serve's flags with Python names, checked by the library's one parser of them
// (linksim/serve_options.hpp) and run and rendered as the CLI runs and renders them.
#include <pybind11/pybind11.h>

#include <fmt/core.h>

#include <algorithm>
#include <memory>

#include "linksim/error.hpp"
#include "linksim/serve.hpp"
#include "linksim/serve_options.hpp"
#include "linksim/serve_report.hpp"
#include "python/bindings.hpp"
#include "python/plan_keywords.hpp"

namespace py = pybind11;

namespace linksim::python {
namespace {

/// The keywords of serve's own flags (the rest are plan()'s).
const std::vector<std::string>& serving_keyword_names() {
  static const std::vector<std::string> names = {
      "rate",         "concurrency",   "input_len",       "output_len",     "trace",
      "requests",     "seed",          "slo",             "rate_sweep",     "max_rate",
      "engine",       "engine_overhead", "allreduce",     "max_num_seqs",   "max_num_batched_tokens",
      "block_size",   "chunked_prefill", "preemption",    "kv_blocks",      "max_model_len",
      "routing"};
  return names;
}

bool is_serving_keyword(const std::string& key) {
  const std::vector<std::string>& names = serving_keyword_names();
  return std::find(names.begin(), names.end(), key) != names.end();
}

/// plan()'s keywords that mean nothing for serving, refused as the CLI refuses their flags.
void refuse_plan_only_keywords(const KeywordOptions& options) {
  auto refuse_keyword = [&options](const char* key, const char* why) {
    if (options.has(key)) throw ConfigError(fmt::format("{}: {}", key, why));
  };
  constexpr const char* kBatches =
      "serve sizes its own batches (max_num_seqs, max_num_batched_tokens, input_len)";
  refuse_keyword("mode", "serve runs prefill and decode together; expected no mode");
  refuse_keyword("batch", kBatches);
  refuse_keyword("seq", kBatches);
  refuse_keyword("kv_len", kBatches);
  refuse_keyword("micro_batch", "training only");
  refuse_keyword("global_batch", "training only");
  refuse_keyword("baseline", "plan only (search, sensitivity, baseline)");
}

/// input_len= / output_len=: a number of tokens (an int) or a distribution's text.
std::optional<std::string> serving_length_keyword(const py::dict& kwargs, const char* key) {
  if (!kwargs.contains(key) || kwargs[key].is_none()) return std::nullopt;
  const py::object v = kwargs[key];
  if (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v)) {
    return std::to_string(v.cast<long long>());
  }
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  throw ConfigError(fmt::format("{}: expected a number of tokens or uniform:A:B, normal:MEAN:SD, "
                                "lognormal:MU:SIGMA, got {}",
                                key, py::repr(v).cast<std::string>()));
}

/// seed=: an integer from 0 to 2^64 - 1.
std::optional<std::uint64_t> serving_seed_keyword(const py::dict& kwargs) {
  if (!kwargs.contains("seed") || kwargs["seed"].is_none()) return std::nullopt;
  const py::object v = kwargs["seed"];
  if (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v)) {
    try {
      return v.cast<std::uint64_t>();
    } catch (const py::cast_error&) {
      // refused below
    }
  }
  throw ConfigError(fmt::format("seed: expected an integer from 0 to 2^64 - 1, got {}",
                                py::repr(v).cast<std::string>()));
}

ServeOptions serving_options_from(const py::dict& kwargs, const KeywordOptions& options) {
  ServeOptions o;
  o.rate = options.real_option("rate");
  o.concurrency = options.int_option("concurrency");
  o.requests = options.int_option("requests");
  o.max_model_len = options.int_option("max_model_len");
  o.max_num_seqs = options.int_option("max_num_seqs");
  o.max_num_batched_tokens = options.int_option("max_num_batched_tokens");
  o.block_size = options.int_option("block_size");
  if (const std::optional<int> blocks = options.int_option("kv_blocks")) o.kv_blocks = *blocks;
  o.input_len = serving_length_keyword(kwargs, "input_len");
  o.output_len = serving_length_keyword(kwargs, "output_len");
  o.trace = options.text_option("trace");
  o.slo = options.text_option("slo");
  o.rate_sweep = options.text_option("rate_sweep");
  o.engine_overhead = options.text_option("engine_overhead");
  o.allreduce = options.text_option("allreduce");
  if (const std::optional<bool> chunked = options.switch_option("chunked_prefill")) {
    o.chunked_prefill = *chunked ? "on" : "off";
  }
  o.preemption = options.text_option("preemption");
  o.seed = serving_seed_keyword(kwargs);
  o.engine = options.text_option("engine").value_or(o.engine);
  o.routing = options.text_option("routing").value_or(o.routing);
  o.max_rate = options.switch_option("max_rate").value_or(false);
  return o;
}

std::string serve_json(const PyTopology& topo, py::dict kwargs) {
  std::vector<std::string> known = plan_keyword_names();
  known.insert(known.end(), serving_keyword_names().begin(), serving_keyword_names().end());
  const KeywordOptions all(kwargs, "serve", known);
  all.check_known();
  refuse_plan_only_keywords(all);
  py::dict plan_part;
  for (const auto& item : kwargs) {
    if (!is_serving_keyword(py::str(item.first).cast<std::string>())) plan_part[item.first] = item.second;
  }
  plan_part["mode"] = "decode";
  const PlanRequest plan = plan_request_from(KeywordOptions(plan_part, "serve", plan_keyword_names()));
  const ServeOptions options = serving_options_from(kwargs, all);
  const ServeRequest request = serve_request_from(options, plan, OptionSpelling::kKeyword);
  std::optional<RateSweep> sweep;
  if (options.rate_sweep) sweep = parse_rate_sweep(*options.rate_sweep, OptionSpelling::kKeyword);
  const std::shared_ptr<const Topology> topology = topo.topology;
  py::gil_scoped_release unlocked;
  ServeSimulator simulator(*topology, request);
  ServeReport report;
  report.slo = request.slo;
  if (has_own_workload(options)) report.run = simulator.run();
  if (sweep) report.sweep = simulator.sweep(sweep->from, sweep->to, sweep->step);
  if (options.max_rate) report.max_rate = simulator.max_rate();
  return render_serve_json(report);
}

}  // namespace

void bind_serve(py::module_& m) {
  m.def("serve_json", &serve_json, py::arg("topology"), py::arg("options"));
}

}  // namespace linksim::python
