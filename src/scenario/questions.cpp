// SPDX-License-Identifier: Apache-2.0
// Reading the questions a scenario answers: the text asked, the studies that answer it and
// the metric compared across their cases.
#include "scenario/questions.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/text.hpp"
#include "linksim/units.hpp"
#include "scenario/value_parsers.hpp"

namespace linksim::detail {
namespace {

const std::string* kind_of(const std::string& study,
                           const std::vector<std::pair<std::string, std::string>>& kinds) {
  for (const auto& [name, kind] : kinds) {
    if (name == study) return &kind;
  }
  return nullptr;
}

std::string study_of(const YamlValue& item,
                     const std::vector<std::pair<std::string, std::string>>& kinds) {
  const std::string name = item.text();
  if (kind_of(name, kinds) != nullptr) return name;
  std::vector<std::string> names;
  for (const auto& entry : kinds) names.push_back(entry.first);
  const std::string close = closest_match(name, names);
  item.fail(close.empty() ? fmt::format("unknown study \"{}\"; expected one of {}", name,
                                        text::join(names, ", "))
                          : fmt::format("unknown study \"{}\"; did you mean \"{}\"?", name, close));
}

}  // namespace

const std::vector<std::string>& plan_question_metrics() {
  static const std::vector<std::string> metrics = {"tpot", "ttft", "step_time", "tokens_per_s",
                                                   "scaling"};
  return metrics;
}

const std::vector<std::string>& collective_question_metrics() {
  static const std::vector<std::string> metrics = {"busbw"};
  return metrics;
}

const std::vector<std::string>& serve_question_metrics() {
  static const std::vector<std::string> metrics = {"ttft_p50", "ttft_p99", "tpot_p50",
                                                   "tpot_p99", "goodput", "max_rate"};
  return metrics;
}

namespace {

/// "collective", "plan" or "serve": the kind of study a metric compares.
std::string metric_kind(const std::string& metric) {
  if (metric == "busbw") return "collective";
  const std::vector<std::string>& serve = serve_question_metrics();
  return std::find(serve.begin(), serve.end(), metric) != serve.end() ? "serve" : "plan";
}

}  // namespace

std::vector<ScenarioQuestion> read_questions(
    const YamlValue& list, const std::vector<std::pair<std::string, std::string>>& study_kinds) {
  std::vector<YamlValue> items = list.items();
  if (items.empty()) list.fail("expected at least one question, got an empty list");
  std::vector<std::string> all_metrics = plan_question_metrics();
  for (const std::string& m : collective_question_metrics()) all_metrics.push_back(m);
  for (const std::string& m : serve_question_metrics()) all_metrics.push_back(m);
  std::vector<ScenarioQuestion> questions;
  for (const YamlValue& entry : items) {
    entry.check_keys({"ask", "studies", "metric", "size"});
    ScenarioQuestion q;
    q.ask = entry.at("ask").text();
    if (q.ask.empty()) entry.at("ask").fail("expected the question's text, got an empty string");
    const YamlValue metric = entry.at("metric");
    q.metric = choice_value(metric, all_metrics);
    const bool collective_metric = q.metric == "busbw";
    const YamlValue studies = entry.at("studies");
    std::vector<YamlValue> names = studies.scalar_or_items();
    if (names.empty()) studies.fail("expected at least one study, got an empty list");
    for (const YamlValue& item : names) {
      const std::string name = study_of(item, study_kinds);
      const std::string& kind = *kind_of(name, study_kinds);
      const std::string wanted = metric_kind(q.metric);
      if (kind != wanted) {
        item.fail(fmt::format("metric \"{}\" compares {} studies, but \"{}\" is a {} study",
                              q.metric, wanted, name, kind));
      }
      q.studies.push_back(name);
    }
    if (auto size = entry.find("size")) {
      if (!collective_metric) size->fail(fmt::format("size applies to busbw, not to \"{}\"", q.metric));
      const std::string text = size->text();
      std::optional<double> bytes = parse_size_bytes(text);
      if (!bytes || *bytes <= 0) size->fail(fmt::format("expected a size such as 64M or 1G, got \"{}\"", text));
      q.size_bytes = *bytes;
    }
    questions.push_back(std::move(q));
  }
  return questions;
}

}  // namespace linksim::detail
