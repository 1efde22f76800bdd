// SPDX-License-Identifier: Apache-2.0
// The derivations as JSON (render_explain_json, render_plan_explain_json).
#include <nlohmann/json.hpp>

#include "linksim/explain_report.hpp"
#include "linksim/report.hpp"
#include "linksim/units.hpp"
#include "report/data_format.hpp"
#include "report/explain_parts.hpp"
#include "common/json_numbers.hpp"

namespace linksim {
namespace {

using report_data::round_to_10_digits;
using json_numbers::rounded;

// The units and rounding of coll --json's rows, so the two compare equal.
nlohmann::ordered_json prediction_json(const CollectiveResult& r, const Topology& topology) {
  nlohmann::ordered_json j;
  j["time_us"] = round_to_10_digits(r.time_s / kMicrosecond);
  j["algbw_GBps"] = round_to_10_digits(r.algbw_Bps / kGB);
  j["busbw_GBps"] = round_to_10_digits(r.busbw_Bps / kGB);
  j["algorithm"] = std::string(to_string(r.algorithm));
  j["protocol"] = std::string(to_string(r.protocol));
  j["bottleneck"] = describe_bottleneck(r, topology);
  return j;
}

nlohmann::ordered_json steps_json(const std::vector<ExplainStep>& steps) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const ExplainStep& s : steps) j.push_back(report_explain::step_json(s));
  return j;
}

}  // namespace

std::string render_explain_json(const CollectiveExplanation& e, const Topology& topology) {
  nlohmann::ordered_json j;
  j["collective"] = std::string(to_string(e.op));
  j["ranks"] = e.ranks;
  j["nodes"] = e.nodes;
  j["nccl_version"] = to_string(e.nccl_version);
  j["size_bytes"] = report_data::count_value<nlohmann::ordered_json>(e.size_bytes);
  j["bus_factor"] = rounded(e.bus_factor);
  j["analytic"] = prediction_json(e.analytic, topology);
  j["flow"] = e.flow ? prediction_json(*e.flow, topology) : nlohmann::ordered_json(nullptr);
  if (!e.flow) j["flow_skipped"] = e.flow_skipped;
  j["candidates"] = nlohmann::ordered_json::array();
  for (const TunerCandidate& c : e.candidates) {
    nlohmann::ordered_json cj;
    cj["algorithm"] = std::string(to_string(c.algorithm));
    cj["protocol"] = std::string(to_string(c.protocol));
    cj["eligible"] = c.eligible;
    cj["why_not"] = c.why_not;
    cj["latency_us"] = rounded(c.latency_s / kMicrosecond);
    cj["fill_us"] = rounded(c.fill_s / kMicrosecond);
    cj["wire_factor"] = rounded(c.wire_factor);
    cj["bw_GBps"] = rounded(c.bw_Bps / kGB);
    cj["time_us"] = rounded(c.time_s / kMicrosecond);
    cj["nccl_estimate_us"] = c.eligible ? nlohmann::ordered_json(rounded(c.nccl_estimate_s / kMicrosecond))
                                        : nlohmann::ordered_json(nullptr);
    cj["chosen"] = c.chosen;
    j["candidates"].push_back(cj);
  }
  j["steps"] = steps_json(e.steps);
  return j.dump(2) + "\n";
}

std::string render_plan_explain_json(const PlanExplanation& e) {
  nlohmann::ordered_json j;
  j["model"] = e.plan.model;
  j["topology"] = e.plan.topology;
  j["mode"] = std::string(to_string(e.plan.mode));
  j["gpus"] = e.plan.gpus;
  j["step_time_s"] = rounded(e.plan.step_time_s);
  j["exposed_fraction"] = rounded(e.exposed_fraction);
  j["compute_speedup_bound"] = rounded(e.compute_speedup_bound);
  j["comm_free_speedup"] = rounded(e.comm_free_speedup);
  j["speedup_comm_hidden"] = rounded(e.speedup_comm_hidden);
  j["speedup"] = rounded(e.plan.speedup);
  j["steps"] = steps_json(e.steps);
  return j.dump(2) + "\n";
}

}  // namespace linksim
