// SPDX-License-Identifier: Apache-2.0
// The JSON rendering of serving results (render_serve_json). Field names and units are a
// contract (docs/cli.md#serve-json): add fields, never rename or remove them.
#include <nlohmann/json.hpp>

#include "linksim/serve_report.hpp"
#include "common/json_numbers.hpp"
#include "serve/serve_json.hpp"

namespace linksim {
namespace {

using Json = nlohmann::ordered_json;
using json_numbers::rounded;
using serve_json::serve_result_json;

}  // namespace

std::string render_serve_json(const ServeReport& report) {
  Json j = report.run ? serve_result_json(*report.run) : Json::object();
  if (report.slo) {
    j["slo"] = Json{{"ttft_s", rounded(report.slo->ttft_s)}, {"tpot_s", rounded(report.slo->tpot_s)},
                    {"percentile", rounded(report.slo->percentile)}};
  }
  if (report.max_rate) {
    j["max_rate_requests_per_s"] = rounded(report.max_rate->rate_requests_per_s);
    j["max_rate_probes"] = report.max_rate->probes;
  }
  if (!report.sweep.empty()) {
    Json sweep = Json::array();
    for (const ServeResult& r : report.sweep) {
      Json point = serve_result_json(r);
      point.erase("timeline");
      point.erase("assumptions");
      sweep.push_back(point);
    }
    j["sweep"] = sweep;
  }
  return j.dump(2) + "\n";
}

}  // namespace linksim
