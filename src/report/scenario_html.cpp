// SPDX-License-Identifier: Apache-2.0
// render_scenario_html: report.html of a scenario run, from its documents and charts alone
// (docs/scenario-format.md#report-html).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "linksim/charts.hpp"
#include "linksim/units.hpp"
#include "report/scenario_charts.hpp"

namespace linksim {
namespace {

using detail::case_label;
using detail::case_ok;
using detail::json_field;
using Json = detail::ScenarioJson;

std::string number(const Json& value, const char* format = "{:.4g}") {
  return value.is_number() ? fmt::format(fmt::runtime(format), value.get<double>()) : "";
}

std::string tokens_text(double tokens_per_s) {
  return tokens_per_s >= 100 ? fmt::format("{:.0f}", tokens_per_s) : fmt::format("{:.3g}", tokens_per_s);
}

// A table with at most kMaxHtmlTableRows rows; the title says when rows were left out.
struct TableBuilder {
  HtmlTable table;
  size_t total = 0;
  void add(std::vector<std::string> row) {
    if (total++ < static_cast<size_t>(kMaxHtmlTableRows)) table.rows.push_back(std::move(row));
  }
  std::optional<HtmlTable> done() {
    if (total == 0) return std::nullopt;
    if (total > table.rows.size()) {
      table.title += fmt::format(" (first {} of {} cases; all are in results.csv)",
                                 table.rows.size(), total);
    }
    return std::move(table);
  }
};

std::vector<std::string> collective_row(const Json& doc) {
  const Json& c = doc["collective"];
  const Json& rows = c["rows"];
  if (rows.empty()) return {doc["id"].get<std::string>(), std::to_string(doc["gpus"].get<int>())};
  const Json* peak = &rows.front();
  for (const Json& row : rows) {
    if (row["busbw_GBps"].get<double>() > (*peak)["busbw_GBps"].get<double>()) peak = &row;
  }
  const Json& last = rows.back();
  return {doc["id"].get<std::string>(), std::to_string(doc["gpus"].get<int>()),
          doc["gpu_model"].get<std::string>(), c["collective"].get<std::string>(),
          fmt::format("{:.2f}", (*peak)["busbw_GBps"].get<double>()),
          format_size((*peak)["size_bytes"].get<double>()),
          format_size(last["size_bytes"].get<double>()),
          fmt::format("{:.2f}", last["time_us"].get<double>()),
          fmt::format("{:.2f}", last["busbw_GBps"].get<double>()),
          last["algorithm"].get<std::string>(), last["protocol"].get<std::string>(),
          last["bottleneck"].get<std::string>()};
}

std::vector<std::string> plan_row(const Json& doc) {
  const Json& p = doc["plan"];
  const Json& l = p["layout"];
  const Json& b = p["breakdown"];
  const Json& m = p["memory"];
  return {doc["id"].get<std::string>(), std::to_string(doc["gpus"].get<int>()),
          doc["gpu_model"].get<std::string>(), p["model"].get<std::string>(),
          p["mode"].get<std::string>(),
          fmt::format("{}/{}/{}", l["tp"].get<int>(), l["pp"].get<int>(), l["dp"].get<int>()),
          format_duration(p["step_time_s"].get<double>()),
          tokens_text(p["tokens_per_s"].get<double>()),
          fmt::format("{:.1f}%", 100 * p["mfu"].get<double>()),
          format_duration(b["exposed_comm_s"].get<double>()),
          format_duration(b["bubble_s"].get<double>()),
          fmt::format("{:.1f}", m["total_GB"].get<double>()),
          fmt::format("{:.0f}", m["capacity_GB"].get<double>()),
          m["fits"].get<bool>() ? "yes" : "no", number(p["speedup"], "{:.2f}x"),
          p["scaling_efficiency"].is_number()
              ? fmt::format("{:.1f}%", 100 * p["scaling_efficiency"].get<double>())
              : ""};
}

std::vector<std::string> search_row(const Json& doc) {
  const Json& ranking = doc["search"];
  if (ranking.empty()) return {doc["id"].get<std::string>(), "0"};
  const Json& best = ranking.front();
  const Json& l = best["layout"];
  return {doc["id"].get<std::string>(), std::to_string(ranking.size()),
          fmt::format("tp={} pp={} dp={} mb={}", l["tp"].get<int>(), l["pp"].get<int>(),
                      l["dp"].get<int>(), l["micro_batch"].get<int>()),
          tokens_text(best["tokens_per_s"].get<double>()),
          format_duration(best["step_time_s"].get<double>()),
          fmt::format("{:.1f}", best["memory_GB"].get<double>()), best["fits"].get<bool>() ? "yes" : "no",
          best["verdict"].get<std::string>()};
}

std::vector<HtmlTable> tables(const std::vector<Json>& cases) {
  TableBuilder collective{{"Collective cases", {"case", "GPUs", "GPU", "collective", "peak busbw (GB/s)",
      "at", "largest size", "time (us)", "busbw (GB/s)", "algorithm", "protocol", "bottleneck"}, {}}};
  TableBuilder plan{{"Plans", {"case", "GPUs", "GPU", "model", "mode", "tp/pp/dp", "step time",
      "tokens/s", "MFU", "exposed comm", "bubble", "memory (GB)", "capacity (GB)", "fits",
      "speedup", "scaling efficiency"}, {}}};
  TableBuilder search{{"Layout searches (best layout)", {"case", "layouts", "best", "tokens/s",
      "step time", "memory (GB)", "fits", "verdict"}, {}}};
  TableBuilder failed{{"Cases without an answer", {"case", "error"}, {}}};
  for (const Json& doc : cases) {
    if (!case_ok(doc)) failed.add({doc["id"].get<std::string>(), json_field(doc, "error").get<std::string>()});
    else if (json_field(doc, "collective").is_object()) collective.add(collective_row(doc));
    else if (json_field(doc, "plan").is_object()) plan.add(plan_row(doc));
    else if (json_field(doc, "search").is_array()) search.add(search_row(doc));
  }
  std::vector<HtmlTable> out;
  for (TableBuilder* t : {&collective, &plan, &search, &failed}) {
    if (std::optional<HtmlTable> table = t->done()) out.push_back(std::move(*table));
  }
  return out;
}

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
    out.push_back(fmt::format("{} ({} plans): the most tokens/s, {}, on {} ({} GPUs, step {}{}).",
                              group.study, group.cases.size(), tokens_text(p["tokens_per_s"].get<double>()),
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
  report.tables = tables(cases);
  report.assumptions = assumptions(cases);
  report.command = info.command;
  report.linksim_version = info.version;
  return render_html_report(report);
}

}  // namespace linksim
