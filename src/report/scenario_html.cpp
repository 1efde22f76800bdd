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
using detail::case_ok;
using detail::json_field;
using detail::tokens_text;
using Json = detail::ScenarioJson;

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

std::vector<std::pair<std::string, std::string>> assumptions(const std::vector<Json>& cases) {
  std::vector<std::pair<std::string, std::string>> list;
  std::set<std::string> gpus;
  for (const Json& doc : cases) {
    const std::string model = json_field(doc, "gpu_model").is_string() ? doc["gpu_model"].get<std::string>() : "";
    if (!model.empty()) gpus.insert(model);
  }
  if (!gpus.empty()) {
    list.emplace_back("GPUs (catalog keys)", fmt::format("{}", fmt::join(gpus, ", ")));
  }
  std::map<std::string, size_t> per_study;
  for (const Json& doc : cases) {
    const std::string study = doc["study"].get<std::string>();
    const Json c = json_field(doc, "collective");
    if (c.is_object()) {
      add_assumption(list, study + ": NCCL switches",
                     fmt::format("NCCL_P2P_DISABLE={} NCCL_NVLS_ENABLE={}", c["p2p"].get<bool>() ? 0 : 1,
                                 c["nvls"].get<bool>() ? 1 : 0));
      add_assumption(list, study + ": algorithm, protocol, mode",
                     fmt::format("{}, {}, {}", c["algo"].get<std::string>(),
                                 c["proto"].get<std::string>(), c["mode"].get<std::string>()));
    }
    const Json p = json_field(doc, "plan");
    if (!p.is_object()) continue;
    for (const Json& a : p["assumptions"]) {
      if (per_study[study] >= kMaxAssumptionsPerStudy) break;
      const size_t before = list.size();
      add_assumption(list, study + ": planner", a.get<std::string>());
      if (list.size() > before) ++per_study[study];
    }
  }
  for (const Json& doc : cases) {
    if (!json_field(doc, "link_usage").is_object()) continue;
    list.emplace_back("link utilisation (machine pictures)",
                      "at the largest size of each machine's last case in a collective study");
    break;
  }
  return list;
}

std::vector<std::string> summary(const Json& manifest, const std::vector<Json>& cases) {
  size_t collective = 0, plans = 0, searches = 0, failed = 0;
  for (const Json& doc : cases) {
    if (!case_ok(doc)) ++failed;
    else if (json_field(doc, "collective").is_object()) ++collective;
    else if (json_field(doc, "plan").is_object()) ++plans;
    else if (json_field(doc, "search").is_array()) ++searches;
  }
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "Scenario {}: {} of {} cases present: {} collective curves, {} plans, {} layout searches; "
      "{} could not be answered (their errors are under Tables).",
      manifest["scenario"].get<std::string>(), cases.size(), manifest["cases_total"].get<size_t>(),
      collective, plans, searches, failed));
  // Per study and operation, the best and worst peak busbw.
  for (const detail::CaseGroup& group : detail::group_cases(cases, [](const Json& doc) {
         const Json c = json_field(doc, "collective");
         return case_ok(doc) && c.is_object() && !c["rows"].empty()
                    ? doc["study"].get<std::string>() + "/" + c["collective"].get<std::string>()
                    : std::string();
       })) {
    const Json* best = nullptr;
    const Json* worst = nullptr;
    double best_GBps = -1, worst_GBps = 0;
    for (const Json* doc : group.cases) {
      double peak = 0;
      for (const Json& row : (*doc)["collective"]["rows"]) peak = std::max(peak, row["busbw_GBps"].get<double>());
      if (peak > best_GBps) best_GBps = peak, best = doc;
      if (worst == nullptr || peak < worst_GBps) worst_GBps = peak, worst = doc;
    }
    const std::string op = detail::collective_title((*best)["collective"]["collective"].get<std::string>());
    std::string text = fmt::format("{} ({}): the highest peak busbw is {:.1f} GB/s on {}", op,
                                   group.study, best_GBps, case_label(*best));
    if (worst != best) text += fmt::format(", the lowest {:.1f} GB/s on {}", worst_GBps, case_label(*worst));
    out.push_back(text + ".");
  }
  for (const detail::CaseGroup& group : detail::group_cases(cases, [](const Json& doc) {
         return case_ok(doc) && json_field(doc, "plan").is_object() ? doc["study"].get<std::string>()
                                                                    : std::string();
       })) {
    const Json* best = group.cases.front();
    for (const Json* doc : group.cases) {
      if ((*doc)["plan"]["tokens_per_s"].get<double>() > (*best)["plan"]["tokens_per_s"].get<double>()) best = doc;
    }
    const Json& p = (*best)["plan"];
    const std::string count_and_lead = group.cases.size() == 1
                                           ? std::string("1 plan): tokens/s")
                                           : fmt::format("{} plans): the most tokens/s", group.cases.size());
    out.push_back(fmt::format("{} ({}, {}, on {} ({} GPUs, step {}{}).",
                              group.study, count_and_lead, tokens_text(p["tokens_per_s"].get<double>()),
                              case_label(*best), (*best)["gpus"].get<int>(),
                              format_duration(p["step_time_s"].get<double>()),
                              p["memory"]["fits"].get<bool>() ? "" : ", does not fit in memory"));
  }
  out.push_back("Hover over a point, a bar segment or a link to see its values.");
  return out;
}

}  // namespace

std::string render_scenario_html(std::string_view manifest_text,
                                 const std::vector<std::string>& case_documents,
                                 const std::vector<ScenarioChart>& charts,
                                 const ScenarioReportInfo& info) {
  const Json manifest = detail::parse_scenario_document(manifest_text, "the manifest");
  const std::vector<Json> cases = detail::parse_case_documents(case_documents);
  HtmlReport report;
  report.title = manifest["title"].get<std::string>();
  report.summary = summary(manifest, cases);
  for (const ScenarioChart& chart : charts) report.charts.push_back({chart.title, chart.caption, chart.svg});
  report.tables = detail::scenario_tables(cases);
  report.assumptions = assumptions(cases);
  report.command = info.command;
  report.linksim_version = info.version;
  return render_html_report(report);
}

}  // namespace linksim
