// SPDX-License-Identifier: Apache-2.0
// Per plan study, one bar per case: the step time by part (compute, exposed communication by
// kind, pipeline bubble) and the memory per GPU against its capacity
// (docs/scenario-format.md#charts).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "charts/charts.hpp"
#include "linksim/units.hpp"
#include "report/scenario_charts.hpp"

namespace linksim::detail {
namespace {

std::vector<const CaseRecord*> chosen_cases(const CaseGroup& group) {
  std::vector<const CaseRecord*> chosen;
  for (size_t i : spread_choice(group.cases.size(), kMaxChartBars)) chosen.push_back(group.cases[i]);
  return chosen;
}

// Communication kinds in order of first appearance ("tp", "pp", "dp", ...).
std::vector<std::string> comm_kinds(const std::vector<const CaseRecord*>& cases) {
  std::vector<std::string> kinds;
  for (const CaseRecord* doc : cases) {
    for (const PlanComm& comm : doc->plan()->comms) {
      const std::string& kind = comm.kind;
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
    }
  }
  return kinds;
}

ScenarioChart step_chart(const CaseGroup& group) {
  const std::vector<const CaseRecord*> cases = chosen_cases(group);
  const std::vector<std::string> kinds = comm_kinds(cases);
  StackedBars bars;
  bars.title = fmt::format("Step time by part ({})", group.study);
  bars.value_axis = {"step time", AxisScale::kLinear, AxisUnit::kSeconds, {}, {}};
  bars.segment_names.push_back("compute");
  for (const std::string& kind : kinds) bars.segment_names.push_back("exposed " + kind + " comm");
  bars.segment_names.push_back("other exposed comm");
  bars.segment_names.push_back("pipeline bubble");
  for (const CaseRecord* doc : cases) {
    const PlanResult& plan = *doc->plan();
    const PlanBreakdown& breakdown = plan.breakdown;
    std::vector<double> values = {breakdown.compute_s};
    double by_kind_s = 0;
    for (const std::string& kind : kinds) {
      double exposed_s = 0;
      for (const PlanComm& comm : plan.comms) {
        if (comm.kind == kind) exposed_s += comm.exposed_s;
      }
      values.push_back(exposed_s);
      by_kind_s += exposed_s;
    }
    // The breakdown is the step's truth; what the per-kind list does not account for (the
    // rounding of the documents, at most) is drawn as its own segment rather than dropped.
    const double rest_s = breakdown.exposed_comm_s - by_kind_s;
    const bool visible = rest_s > 1e-6 * plan.step_time_s;
    values.push_back(visible ? rest_s : 0);
    values.push_back(breakdown.bubble_s);
    bars.bar_labels.push_back(case_label(*doc));
    bars.values.push_back(std::move(values));
  }
  // Segments that are zero in every bar (no bubble without a pipeline) only crowd the legend.
  for (size_t j = bars.segment_names.size(); j-- > 1;) {
    bool used = false;
    for (const std::vector<double>& values : bars.values) used |= values[j] > 0;
    if (used) continue;
    bars.segment_names.erase(bars.segment_names.begin() + static_cast<long>(j));
    for (std::vector<double>& values : bars.values) values.erase(values.begin() + static_cast<long>(j));
  }
  std::string caption =
      "Each bar is one case; segments add up to the step time: compute, the communication "
      "not hidden behind compute by kind (tp tensor, pp pipeline, dp data parallel, ...), "
      "and the pipeline bubble.";
  const std::string note = left_out_note(cases.size(), group.cases.size());
  if (!note.empty()) caption += " " + note;
  return {"step-parts-" + chart_file_part(group.study),
          fmt::format("Step time by part: {}", group.study), caption, svg_stacked_bars(bars)};
}

ScenarioChart memory_chart(const CaseGroup& group) {
  using Part = double MemoryBreakdown::*;
  static constexpr std::pair<Part, const char*> kParts[] = {
      {&MemoryBreakdown::weights, "weights"},
      {&MemoryBreakdown::gradients, "gradients"},
      {&MemoryBreakdown::optimizer, "optimizer states"},
      {&MemoryBreakdown::activations, "activations"},
      {&MemoryBreakdown::kv_cache, "KV cache"},
      {&MemoryBreakdown::workspace, "workspace"}};
  const std::vector<const CaseRecord*> cases = chosen_cases(group);
  StackedBars bars;
  bars.title = fmt::format("Memory per GPU ({})", group.study);
  bars.value_axis = {"memory per GPU", AxisScale::kLinear, AxisUnit::kGigabytes, {}, {}};
  std::vector<Part> keys;
  for (const auto& [key, name] : kParts) {
    bool used = false;
    for (const CaseRecord* doc : cases) used |= doc->plan()->memory.*key > 0;
    if (!used) continue;
    keys.push_back(key);
    bars.segment_names.push_back(name);
  }
  std::set<double> capacities;
  std::set<std::string> models;
  for (const CaseRecord* doc : cases) {
    const MemoryBreakdown& memory = doc->plan()->memory;
    std::vector<double> values;
    for (Part key : keys) values.push_back(memory.*key);
    bars.bar_labels.push_back(case_label(*doc));
    bars.values.push_back(std::move(values));
    capacities.insert(file_number(memory.capacity, kGB));
    models.insert(doc->gpu_model);
  }
  std::string caption = "Each bar is one case's memory per GPU by part.";
  if (capacities.size() == 1 && *capacities.begin() > 0) {
    bars.capacity = *capacities.begin() * kGB;
    bars.capacity_label = fmt::format("{} capacity", fmt::join(models, ", "));
    caption += " The dashed red rule is the GPU's memory; a bar above it does not fit.";
  } else {
    caption += " The cases run on GPUs of different capacities; see the plan table.";
  }
  const std::string note = left_out_note(cases.size(), group.cases.size());
  if (!note.empty()) caption += " " + note;
  return {"memory-" + chart_file_part(group.study), fmt::format("Memory per GPU: {}", group.study),
          caption, svg_stacked_bars(bars)};
}

// Bars of a layout search's chart: its best layouts (the labels are long).
constexpr size_t kMaxRankingBars = 12;

// A layout search: its best layouts, in rank order, by part of the step.
ScenarioChart ranking_chart(const CaseRecord& doc) {
  StackedBars bars;
  bars.title = fmt::format("Step time of the best layouts ({})", doc.id);
  bars.value_axis = {"step time", AxisScale::kLinear, AxisUnit::kSeconds, {}, {}};
  bars.segment_names = {"compute", "exposed communication", "pipeline bubble"};
  const std::vector<SearchCandidate>& ranking = *doc.search();
  const size_t shown = std::min(ranking.size(), kMaxRankingBars);
  for (size_t i = 0; i < shown; ++i) {
    const SearchCandidate& c = ranking[i];
    const ParallelLayout& l = c.layout;
    bars.bar_labels.push_back(fmt::format("#{} tp{} pp{} dp{} mb{}{}", i + 1, l.tp, l.pp, l.dp,
                                          l.micro_batch, c.fits ? "" : " (no fit)"));
    const PlanBreakdown& b = c.breakdown;
    bars.values.push_back({b.compute_s, b.exposed_comm_s, b.bubble_s});
  }
  std::string caption = "Each bar is one layout of the search, best first (the ranking puts "
                        "layouts that fit first, then the most tokens/s); segments add up to "
                        "the step time.";
  if (shown < ranking.size()) {
    caption += fmt::format(" The best {} of {} layouts; all are in results.csv.", shown, ranking.size());
  }
  return {"ranking-" + chart_file_part(doc.id), fmt::format("Layout search: {}", doc.id), caption,
          svg_stacked_bars(bars)};
}

}  // namespace

// Layout searches drawn at most; the rest are in the tables.
constexpr size_t kMaxRankingCharts = 4;

std::vector<ScenarioChart> plan_bar_charts(const std::vector<CaseRecord>& cases) {
  std::vector<ScenarioChart> charts;
  for (const CaseGroup& group : group_cases(cases, plan_key)) {
    charts.push_back(step_chart(group));
    charts.push_back(memory_chart(group));
  }
  std::vector<const CaseRecord*> searches;
  for (const CaseRecord& doc : cases) {
    if (doc.ok() && doc.search() != nullptr && !doc.search()->empty()) searches.push_back(&doc);
  }
  for (size_t i : spread_choice(searches.size(), kMaxRankingCharts)) {
    charts.push_back(ranking_chart(*searches[i]));
  }
  return charts;
}

}  // namespace linksim::detail
