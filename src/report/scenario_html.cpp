// SPDX-License-Identifier: Apache-2.0
// render_scenario_html: report.html of a scenario run, from its documents and charts alone
// (docs/scenario-format.md#report-html).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "linksim/charts.hpp"
#include "linksim/units.hpp"
#include "report/scenario_charts.hpp"
#include "report/scenario_tables.hpp"

namespace linksim {
namespace {

using detail::case_label;
using detail::tokens_text;

// Adds `value` under `key` unless that pair is already listed.
void add_assumption(std::vector<std::pair<std::string, std::string>>& list, std::string key,
                    std::string value) {
  for (const auto& [k, v] : list) {
    if (k == key && v == value) return;
  }
  list.emplace_back(std::move(key), std::move(value));
}

// Planner assumptions listed per study at most; the rest are in the case documents.
constexpr size_t kMaxAssumptionsPerStudy = 24;

std::vector<std::pair<std::string, std::string>> assumptions(const std::vector<CaseRecord>& cases) {
  std::vector<std::pair<std::string, std::string>> list;
  std::set<std::string> gpus;
  for (const CaseRecord& doc : cases) {
    if (!doc.gpu_model.empty()) gpus.insert(doc.gpu_model);
  }
  if (!gpus.empty()) {
    list.emplace_back("GPUs (catalog keys)", fmt::format("{}", fmt::join(gpus, ", ")));
  }
  std::map<std::string, size_t> per_study;
  for (const CaseRecord& doc : cases) {
    const std::string& study = doc.study;
    if (const CollectiveSweepRecord* c = doc.collective()) {
      add_assumption(list, study + ": NCCL switches",
                     fmt::format("NCCL_P2P_DISABLE={} NCCL_NVLS_ENABLE={}", c->p2p ? 0 : 1,
                                 c->nvls ? 1 : 0));
      add_assumption(list, study + ": algorithm, protocol, mode",
                     fmt::format("{}, {}, {}", c->algorithm, c->protocol, c->mode));
    }
    const PlanResult* p = doc.plan();
    if (p == nullptr) continue;
    for (const std::string& a : p->assumptions) {
      if (per_study[study] >= kMaxAssumptionsPerStudy) break;
      const size_t before = list.size();
      add_assumption(list, study + ": planner", a);
      if (list.size() > before) ++per_study[study];
    }
  }
  for (const CaseRecord& doc : cases) {
    if (doc.collective() == nullptr || !doc.collective()->link_usage) continue;
    list.emplace_back("link utilisation (machine pictures)",
                      "at the largest size of each machine's last case in a collective study");
    break;
  }
  return list;
}

std::vector<std::string> summary(const ScenarioManifest& manifest,
                                 const std::vector<CaseRecord>& cases) {
  size_t collective = 0, plans = 0, searches = 0, failed = 0;
  for (const CaseRecord& doc : cases) {
    if (!doc.ok()) ++failed;
    else if (doc.collective() != nullptr) ++collective;
    else if (doc.plan() != nullptr) ++plans;
    else if (doc.search() != nullptr) ++searches;
  }
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "Scenario {}: {} of {} cases present: {} collective curves, {} plans, {} layout searches; "
      "{} could not be answered (their errors are under Tables).",
      manifest.scenario, cases.size(), manifest.cases_total,
      collective, plans, searches, failed));
  // Per study and operation, the best and worst peak busbw.
  for (const detail::CaseGroup& group : detail::group_cases(cases, [](const CaseRecord& doc) {
         const CollectiveSweepRecord* c = doc.collective();
         return doc.ok() && c != nullptr && !c->rows.empty() ? doc.study + "/" + c->collective
                                                             : std::string();
       })) {
    const CaseRecord* best = nullptr;
    const CaseRecord* worst = nullptr;
    double best_GBps = -1, worst_GBps = 0;
    for (const CaseRecord* doc : group.cases) {
      double peak = 0;
      for (const CollectiveRow& row : doc->collective()->rows) {
        peak = std::max(peak, file_number(row.busbw_Bps, kGB));
      }
      if (peak > best_GBps) best_GBps = peak, best = doc;
      if (worst == nullptr || peak < worst_GBps) worst_GBps = peak, worst = doc;
    }
    const std::string op = detail::collective_title(best->collective()->collective);
    std::string text = fmt::format("{} ({}): the highest peak busbw is {:.1f} GB/s on {}", op,
                                   group.study, best_GBps, case_label(*best));
    if (worst != best) text += fmt::format(", the lowest {:.1f} GB/s on {}", worst_GBps, case_label(*worst));
    out.push_back(text + ".");
  }
  for (const detail::CaseGroup& group : detail::group_cases(cases, detail::plan_key)) {
    const CaseRecord* best = group.cases.front();
    for (const CaseRecord* doc : group.cases) {
      if (doc->plan()->tokens_per_s > best->plan()->tokens_per_s) best = doc;
    }
    const PlanResult& p = *best->plan();
    const std::string count_and_lead = group.cases.size() == 1
                                           ? std::string("1 plan): tokens/s")
                                           : fmt::format("{} plans): the most tokens/s", group.cases.size());
    out.push_back(fmt::format("{} ({}, {}, on {} ({} GPUs, step {}{}).",
                              group.study, count_and_lead, tokens_text(p.tokens_per_s),
                              case_label(*best), best->gpus, format_duration(p.step_time_s),
                              p.memory.fits ? "" : ", does not fit in memory"));
  }
  out.push_back("Hover over a point, a bar segment or a link to see its values.");
  return out;
}

}  // namespace

std::string render_scenario_html(const ScenarioManifest& manifest,
                                 const std::vector<CaseRecord>& cases,
                                 const std::vector<ScenarioChart>& charts,
                                 const ScenarioReportInfo& info) {
  HtmlReport report;
  report.title = manifest.title;
  report.summary = summary(manifest, cases);
  for (const ScenarioChart& chart : charts) report.charts.push_back({chart.title, chart.caption, chart.svg});
  report.tables = detail::scenario_tables(cases);
  report.assumptions = assumptions(cases);
  report.command = info.command;
  report.linksim_version = info.version;
  return render_html_report(report);
}

}  // namespace linksim
