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

std::string serve_key(const CaseRecord& doc) {
  return doc.ok() && doc.serve() != nullptr ? doc.study : "";
}

double rate_of(const CaseRecord* doc) { return doc->serve()->run.rate_requests_per_s; }

struct RateSeries {
  std::string name;
  std::vector<const CaseRecord*> cases;  ///< ascending rate
};

// One series per machine and value of the parameters other than the rate.
std::vector<RateSeries> rate_series(const CaseGroup& group) {
  std::vector<RateSeries> series;
  for (const CaseRecord* doc : group.cases) {
    std::string name = doc->machine;
    for (const auto& [key, value] : doc->parameters) {
      if (key == "rate") continue;
      name += " " + key + "=" + value;
    }
    auto it = std::find_if(series.begin(), series.end(), [&](const RateSeries& s) { return s.name == name; });
    if (it == series.end()) it = series.insert(series.end(), RateSeries{name, {}});
    it->cases.push_back(doc);
  }
  for (RateSeries& s : series) {
    std::stable_sort(s.cases.begin(), s.cases.end(), [](const CaseRecord* a, const CaseRecord* b) {
      return rate_of(a) < rate_of(b);
    });
  }
  std::erase_if(series, [](const RateSeries& s) { return s.cases.size() < 2; });
  return series;
}

ScenarioChart latency_chart(const CaseGroup& group, const std::vector<RateSeries>& all,
                            LatencyStats ServeResult::*metric, const char* file_prefix,
                            const char* title) {
  LineChart chart;
  chart.title = fmt::format("{} against request rate ({})", title, group.study);
  chart.x = {"requests/s", AxisScale::kLinear, AxisUnit::kNumber, {}, {}};
  chart.y = {title, AxisScale::kLog10, AxisUnit::kSeconds, {}, {}};
  const std::vector<size_t> chosen = spread_choice(all.size(), kMaxChartSeries / 2);
  for (size_t i : chosen) {
    for (const auto& [percentile, field] :
         {std::pair{"p50", &LatencyStats::p50}, std::pair{"p99", &LatencyStats::p99}}) {
      ChartSeries series{fmt::format("{} {}", all[i].name, percentile), {}};
      for (const CaseRecord* doc : all[i].cases) {
        const double value = (doc->serve()->run.*metric).*field;
        if (!(value > 0)) continue;  // NaN (null in the file) too
        series.points.push_back({rate_of(doc), value});
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

std::vector<ScenarioChart> serve_latency_charts(const std::vector<CaseRecord>& cases) {
  std::vector<ScenarioChart> charts;
  for (const CaseGroup& group : group_cases(cases, serve_key)) {
    const std::vector<RateSeries> series = rate_series(group);
    if (series.empty()) continue;
    charts.push_back(
        latency_chart(group, series, &ServeResult::ttft_s, "ttft", "time to first token"));
    charts.push_back(
        latency_chart(group, series, &ServeResult::tpot_s, "tpot", "time per output token"));
  }
  return charts;
}

}  // namespace linksim::detail
