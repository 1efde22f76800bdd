// SPDX-License-Identifier: Apache-2.0
// Parsing the documents of a scenario run directory.
#include "report/scenario_documents.hpp"

#include <fmt/format.h>

#include "linksim/error.hpp"

namespace linksim::detail {

ScenarioJson parse_scenario_document(std::string_view text, std::string_view what) {
  try {
    return ScenarioJson::parse(text);
  } catch (const ScenarioJson::exception& e) {
    throw ConfigError(fmt::format("{} is not a linksim scenario document: {}", what, e.what()));
  }
}

std::vector<ScenarioJson> parse_case_documents(const std::vector<std::string>& documents) {
  std::vector<ScenarioJson> cases;
  cases.reserve(documents.size());
  for (const std::string& text : documents) {
    ScenarioJson doc = parse_scenario_document(text, "a case file");
    if (!doc.is_object() || !doc.contains("id") || !doc.contains("index")) {
      throw ConfigError("a case file is not a linksim case document (no id or index)");
    }
    cases.push_back(std::move(doc));
  }
  return cases;
}

ScenarioJson json_field(const ScenarioJson& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? ScenarioJson(nullptr) : *it;
}

}  // namespace linksim::detail
