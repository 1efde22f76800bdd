// SPDX-License-Identifier: Apache-2.0
// The renderings of scenario_report.hpp from texts: each text read into its record, then
// rendered from the records.
#include "report/scenario_documents.hpp"

#include <fmt/format.h>

#include "linksim/scenario_report.hpp"

namespace linksim {
namespace detail {

ScenarioManifest parse_manifest_text(std::string_view text) { return parse_manifest(text, "the manifest"); }

std::vector<CaseRecord> parse_case_texts(const std::vector<std::string>& documents) {
  std::vector<CaseRecord> cases;
  cases.reserve(documents.size());
  for (size_t i = 0; i < documents.size(); ++i) {
    cases.push_back(parse_case_record(documents[i], fmt::format("case file {}", i + 1)));
  }
  return cases;
}

}  // namespace detail

std::string render_results_json(std::string_view manifest, const std::vector<std::string>& documents) {
  return render_results_json(detail::parse_manifest_text(manifest), detail::parse_case_texts(documents));
}

std::string render_results_csv(std::string_view manifest, const std::vector<std::string>& documents) {
  return render_results_csv(detail::parse_manifest_text(manifest), detail::parse_case_texts(documents));
}

std::string render_results_table(std::string_view manifest, const std::vector<std::string>& documents) {
  return render_results_table(detail::parse_manifest_text(manifest), detail::parse_case_texts(documents));
}

std::string render_answers(std::string_view manifest, const std::vector<std::string>& documents) {
  return render_answers(detail::parse_manifest_text(manifest), detail::parse_case_texts(documents));
}

std::vector<ScenarioChart> render_scenario_charts(std::string_view manifest,
                                                  const std::vector<std::string>& documents) {
  detail::parse_manifest_text(manifest);
  return render_scenario_charts(detail::parse_case_texts(documents));
}

}  // namespace linksim
