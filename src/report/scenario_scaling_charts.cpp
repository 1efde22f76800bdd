// SPDX-License-Identifier: Apache-2.0
// Step time, tokens/s and speedup against GPU count for plan studies whose cases differ in
// size, each with the ideal line of linear scaling (docs/scenario-format.md#charts).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "charts/charts.hpp"
#include "report/scenario_charts.hpp"

namespace linksim::detail {
namespace {


// The parameters that set the GPU count: a key is one when two cases alike in every other
// parameter (and machine) but this one use different numbers of GPUs.
std::set<std::string> size_parameters(const CaseGroup& group) {
  std::set<std::string> keys;
  for (const CaseRecord* doc : group.cases) {
    for (const auto& [key, value] : doc->parameters) keys.insert(key);
  }
  std::set<std::string> sizing;
  for (const std::string& key : keys) {
    std::map<std::string, std::set<int>> gpus_of_rest;
    for (const CaseRecord* doc : group.cases) {
      std::string rest = doc->machine;
      for (const auto& [other, value] : doc->parameters) {
        if (other != key) rest += "|" + other + "=" + value;
      }
      gpus_of_rest[rest].insert(doc->gpus);
    }
    for (const auto& [rest, gpus] : gpus_of_rest) {
      if (gpus.size() > 1) sizing.insert(key);
    }
  }
  return sizing;
}

struct ScalingSeries {
  std::string name;
  std::vector<const CaseRecord*> cases;  ///< ascending GPU count, one case per count
};

// One series per machine and value of the parameters that do not set the size.
std::vector<ScalingSeries> scaling_series(const CaseGroup& group) {
  const std::set<std::string> sizing = size_parameters(group);
  std::vector<ScalingSeries> series;
  for (const CaseRecord* doc : group.cases) {
    std::vector<std::string> words = {doc->machine};
    for (const auto& [key, value] : doc->parameters) {
      if (!sizing.count(key)) words.push_back(key + "=" + value);
    }
    const std::string name = fmt::format("{}", fmt::join(words, " "));
    ScalingSeries* s = nullptr;
    for (ScalingSeries& candidate : series) {
      if (candidate.name == name) s = &candidate;
    }
    if (s == nullptr) s = &series.emplace_back(ScalingSeries{name, {}});
    const int gpus = doc->gpus;
    bool present = false;
    for (const CaseRecord* other : s->cases) present |= other->gpus == gpus;
    if (!present) s->cases.push_back(doc);
  }
  for (ScalingSeries& s : series) {
    std::stable_sort(s.cases.begin(), s.cases.end(), [](const CaseRecord* a, const CaseRecord* b) {
      return a->gpus < b->gpus;
    });
  }
  std::erase_if(series, [](const ScalingSeries& s) { return s.cases.size() < 2; });
  return series;
}

// kSpeedup is the planner's own (against its baseline); without one, kRelativeSpeedup is the
// tokens/s of a case over those of its series' smallest case.
enum class Measure { kStepTime, kTokens, kSpeedup, kRelativeSpeedup };

double value_of(const CaseRecord& doc, const CaseRecord& first, Measure measure) {
  const PlanResult& plan = *doc.plan();
  switch (measure) {
    case Measure::kStepTime: return plan.step_time_s;
    case Measure::kTokens: return plan.tokens_per_s;
    case Measure::kSpeedup: return plan.speedup.value_or(NAN);
    case Measure::kRelativeSpeedup: return plan.tokens_per_s / first.plan()->tokens_per_s;
  }
  return 0;
}

// Linear scaling from the first point: step time falls as 1/GPUs, tokens/s grows with GPUs;
// the planner's ideal speedup is GPUs / baseline GPUs = speedup / scaling efficiency.
std::optional<double> ideal_of(const CaseRecord& doc, const CaseRecord& first, Measure measure) {
  const double gpus = doc.gpus;
  const double gpus0 = first.gpus;
  switch (measure) {
    case Measure::kSpeedup: {
      const PlanResult& plan = *doc.plan();
      if (!plan.scaling_efficiency || !(*plan.scaling_efficiency > 0)) return std::nullopt;
      return plan.speedup.value_or(NAN) / *plan.scaling_efficiency;
    }
    case Measure::kRelativeSpeedup: return gpus / gpus0;
    case Measure::kStepTime: return value_of(first, first, measure) * gpus0 / gpus;
    case Measure::kTokens: return value_of(first, first, measure) * gpus / gpus0;
  }
  return std::nullopt;
}

ScenarioChart scaling_chart(const CaseGroup& group, const std::vector<ScalingSeries>& all,
                            Measure measure) {
  static constexpr const char* kName[] = {"step time", "tokens/s", "speedup", "speedup"};
  static constexpr const char* kFile[] = {"step-time", "tokens", "speedup", "speedup"};
  const int m = static_cast<int>(measure);
  const bool relative = measure == Measure::kRelativeSpeedup;
  LineChart chart;
  chart.title = fmt::format("{} against GPU count ({})", kName[m], group.study);
  chart.x = {"GPUs", AxisScale::kLog2, AxisUnit::kNumber, {}, {}};
  chart.y = {relative ? "speedup over the smallest case" : kName[m],
             measure == Measure::kStepTime ? AxisScale::kLog10 : AxisScale::kLinear,
             measure == Measure::kStepTime ? AxisUnit::kSeconds : AxisUnit::kNumber, {}, {}};
  const std::vector<size_t> chosen = spread_choice(all.size(), kMaxChartSeries);
  for (size_t i : chosen) {
    ChartSeries series{all[i].name, {}};
    for (const CaseRecord* doc : all[i].cases) {
      series.points.push_back(
          {static_cast<double>(doc->gpus), value_of(*doc, *all[i].cases.front(), measure)});
    }
    chart.series.push_back(std::move(series));
  }
  const ScalingSeries& reference = all[chosen.front()];
  ChartSeries ideal{"ideal (linear scaling)", {}};
  for (const CaseRecord* doc : reference.cases) {
    if (auto y = ideal_of(*doc, *reference.cases.front(), measure)) {
      ideal.points.push_back({static_cast<double>(doc->gpus), *y});
    }
  }
  if (!ideal.points.empty()) chart.ideal = std::move(ideal);
  std::string caption = fmt::format(
      "One line per {}; dashed: linear scaling {} of '{}'.",
      all.size() > 1 ? "machine and setting" : "machine",
      measure == Measure::kSpeedup ? "against the planner's baseline" : "from the first point",
      reference.name);
  if (measure == Measure::kStepTime) caption += " Step time on a log scale.";
  if (relative) {
    caption += " The planner gave no speedup (its baseline does not fit or was not asked for), "
               "so each line is tokens/s over that of its smallest case.";
  }
  const std::string note = left_out_note(chart.series.size(), all.size());
  if (!note.empty()) caption += " " + note;
  return {fmt::format("{}-{}", kFile[m], chart_file_part(group.study)),
          fmt::format("{}: {}", kName[m], group.study), caption, svg_line_chart(chart)};
}

bool has_speedup(const std::vector<ScalingSeries>& all) {
  for (const ScalingSeries& s : all) {
    for (const CaseRecord* doc : s.cases) {
      const std::optional<double>& speedup = doc->plan()->speedup;
      if (!speedup || !(*speedup > 0)) return false;
    }
  }
  return true;
}

}  // namespace

std::vector<ScenarioChart> plan_scaling_charts(const std::vector<CaseRecord>& cases) {
  std::vector<ScenarioChart> charts;
  for (const CaseGroup& group : group_cases(cases, plan_key)) {
    const std::vector<ScalingSeries> series = scaling_series(group);
    if (series.empty()) continue;
    charts.push_back(scaling_chart(group, series, Measure::kStepTime));
    charts.push_back(scaling_chart(group, series, Measure::kTokens));
    charts.push_back(scaling_chart(
        group, series, has_speedup(series) ? Measure::kSpeedup : Measure::kRelativeSpeedup));
  }
  return charts;
}

}  // namespace linksim::detail
