// SPDX-License-Identifier: Apache-2.0
// Latency against request rate for serving studies: p50 and p99 of TTFT and of TPOT, one line
// per machine (and setting other than the rate) and percentile (docs/scenario-format.md#charts).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "charts/charts.hpp"
#include "report/scenario_charts.hpp"

namespace linksim::detail {
namespace {

std::string serve_key(const ScenarioJson& doc) {
  return case_ok(doc) && json_field(doc, "serve").is_object() ? doc["study"].get<std::string>() : "";
}

struct RateSeries {
  std::string name;
  std::vector<const ScenarioJson*> cases;  ///< ascending rate
};

// One series per machine and value of the parameters other than the rate.
std::vector<RateSeries> rate_series(const CaseGroup& group) {
  std::vector<RateSeries> series;
  for (const ScenarioJson* doc : group.cases) {
    std::string name = (*doc)["machine"].get<std::string>();
    for (const auto& item : (*doc)["parameters"].items()) {
      if (item.key() == "rate") continue;
      name += " " + item.key() + "=" + (item.value().is_string() ? item.value().get<std::string>() : item.value().dump());
    }
    auto it = std::find_if(series.begin(), series.end(), [&](const RateSeries& s) { return s.name == name; });
    if (it == series.end()) it = series.insert(series.end(), RateSeries{name, {}});
    it->cases.push_back(doc);
  }
  for (RateSeries& s : series) {
    std::stable_sort(s.cases.begin(), s.cases.end(), [](const ScenarioJson* a, const ScenarioJson* b) {
      return (*a)["serve"]["rate_requests_per_s"].get<double>() < (*b)["serve"]["rate_requests_per_s"].get<double>();
    });
  }
  std::erase_if(series, [](const RateSeries& s) { return s.cases.size() < 2; });
  return series;
}

ScenarioChart latency_chart(const CaseGroup& group, const std::vector<RateSeries>& all,
                            const char* metric, const char* file_prefix, const char* title) {
  LineChart chart;
  chart.title = fmt::format("{} against request rate ({})", title, group.study);
  chart.x = {"requests/s", AxisScale::kLinear, AxisUnit::kNumber, {}, {}};
  chart.y = {title, AxisScale::kLog10, AxisUnit::kSeconds, {}, {}};
  const std::vector<size_t> chosen = spread_choice(all.size(), kMaxChartSeries / 2);
  for (size_t i : chosen) {
    for (const char* percentile : {"p50", "p99"}) {
      ChartSeries series{fmt::format("{} {}", all[i].name, percentile), {}};
      for (const ScenarioJson* doc : all[i].cases) {
        const ScenarioJson& s = (*doc)["serve"];
        const ScenarioJson value = json_field(json_field(s, metric), percentile);
        if (!value.is_number() || !(value.get<double>() > 0)) continue;
        series.points.push_back({s["rate_requests_per_s"].get<double>(), value.get<double>()});
      }
      if (!series.points.empty()) chart.series.push_back(std::move(series));
    }
  }
  std::string caption = fmt::format("p50 and p99 of {} per machine, on a log scale; the latency "
                                    "turns up where the rate nears the replica's capacity.",
                                    title);
  const std::string note = left_out_note(chosen.size(), all.size());
  if (!note.empty()) caption += " " + note;
  return {fmt::format("{}-{}", file_prefix, chart_file_part(group.study)),
          fmt::format("{}: {}", title, group.study), caption, svg_line_chart(chart)};
}

}  // namespace

std::vector<ScenarioChart> serve_latency_charts(const std::vector<ScenarioJson>& cases) {
  std::vector<ScenarioChart> charts;
  for (const CaseGroup& group : group_cases(cases, serve_key)) {
    const std::vector<RateSeries> series = rate_series(group);
    if (series.empty()) continue;
    charts.push_back(latency_chart(group, series, "ttft_s", "ttft", "time to first token"));
    charts.push_back(latency_chart(group, series, "tpot_s", "tpot", "time per output token"));
  }
  return charts;
}

}  // namespace linksim::detail
