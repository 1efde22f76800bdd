// SPDX-License-Identifier: Apache-2.0
// render_scenario_charts: every chart of a scenario run, from its documents alone, and the
// helpers its chart families share.
#include "report/scenario_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "linksim/collectives.hpp"

namespace linksim {
namespace detail {

std::string plan_key(const CaseRecord& doc) {
  return doc.ok() && doc.plan() != nullptr ? doc.study : "";
}

std::string case_label(const CaseRecord& doc) {
  const std::string& id = doc.id;
  const std::string study = doc.study + "/";
  return id.rfind(study, 0) == 0 && id.size() > study.size() ? id.substr(study.size()) : id;
}

std::vector<size_t> spread_choice(size_t count, size_t limit) {
  std::vector<size_t> chosen;
  if (count <= limit || limit < 2) {
    for (size_t i = 0; i < std::min(count, std::max<size_t>(limit, 1)); ++i) chosen.push_back(i);
    return chosen;
  }
  // Integer arithmetic keeps the choice exact: i * (count - 1) / (limit - 1) for i < limit.
  for (size_t i = 0; i < limit; ++i) chosen.push_back(i * (count - 1) / (limit - 1));
  return chosen;
}

std::string left_out_note(size_t shown, size_t count) {
  if (shown >= count) return "";
  return fmt::format("{} of {} cases shown, evenly spread in case order; all are in results.csv.",
                     shown, count);
}

std::string chart_file_part(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '_';
    out += keep ? c : '-';
  }
  return out;
}

std::string collective_title(const std::string& name) {
  if (std::optional<CollectiveOp> op = parse_collective(name)) {
    for (const CollectiveName& entry : collective_names()) {
      if (entry.op == *op) return std::string(entry.title);
    }
  }
  return name;
}

}  // namespace detail

std::vector<ScenarioChart> render_scenario_charts(const std::vector<CaseRecord>& cases) {
  std::vector<ScenarioChart> charts;
  for (auto* family : {&detail::busbw_charts, &detail::plan_scaling_charts,
                       &detail::plan_bar_charts, &detail::serve_latency_charts,
                       &detail::machine_charts}) {
    for (ScenarioChart& chart : (*family)(cases)) charts.push_back(std::move(chart));
  }
  // Two studies whose names differ only in characters a file name cannot hold would share a
  // file; a counter keeps every file apart.
  std::set<std::string> stems;
  for (ScenarioChart& chart : charts) {
    std::string stem = chart.file_stem;
    for (int n = 2; !stems.insert(stem).second; ++n) stem = fmt::format("{}-{}", chart.file_stem, n);
    chart.file_stem = stem;
  }
  return charts;
}

}  // namespace linksim
