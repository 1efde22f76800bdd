// SPDX-License-Identifier: Apache-2.0
// The chart builders of a scenario report, one file per chart family, sharing the grouping
// of cases and the bounded choice of what to draw (docs/scenario-format.md#charts).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "linksim/scenario_report.hpp"
#include "linksim/scenario_results.hpp"

namespace linksim::detail {

/// Cases of one study (or study and operation) in case order.
struct CaseGroup {
  std::string study;
  std::string key;  ///< the study, or "<study>/<operation>"
  std::vector<const CaseRecord*> cases;
};

/// Groups `cases` by key(case) in order of first appearance; an empty key leaves a case out.
template <typename KeyOf>
std::vector<CaseGroup> group_cases(const std::vector<CaseRecord>& cases, KeyOf key_of) {
  std::vector<CaseGroup> groups;
  for (const CaseRecord& doc : cases) {
    const std::string key = key_of(doc);
    if (key.empty()) continue;
    CaseGroup* group = nullptr;
    for (CaseGroup& g : groups) {
      if (g.key == key) group = &g;
    }
    if (group == nullptr) {
      groups.push_back({doc.study, key, {}});
      group = &groups.back();
    }
    group->cases.push_back(&doc);
  }
  return groups;
}


/// The study of a plan case answered without error; "" for any other case (charts group by it).
std::string plan_key(const CaseRecord& doc);

/// The case id without its study: "dgx-h100", "cluster/nodes=4".
std::string case_label(const CaseRecord& doc);

/// At most `limit` of `count` positions, evenly spread, first and last included, ascending.
std::vector<size_t> spread_choice(size_t count, size_t limit);

/// "<shown> of <count> cases shown, evenly spread in case order; all are in results.csv." or
/// "" when nothing was left out.
std::string left_out_note(size_t shown, size_t count);

/// `text` as a file-name part: letters, digits, '.', '-' and '_' kept, others as '-'.
std::string chart_file_part(std::string_view text);

/// "AllReduce" for "allreduce" (the collective-name table's title); the name itself else.
std::string collective_title(const std::string& name);

std::vector<ScenarioChart> busbw_charts(const std::vector<CaseRecord>& cases);
std::vector<ScenarioChart> plan_scaling_charts(const std::vector<CaseRecord>& cases);
std::vector<ScenarioChart> plan_bar_charts(const std::vector<CaseRecord>& cases);
std::vector<ScenarioChart> machine_charts(const std::vector<CaseRecord>& cases);
std::vector<ScenarioChart> serve_latency_charts(const std::vector<CaseRecord>& cases);

}  // namespace linksim::detail
