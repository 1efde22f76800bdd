// SPDX-License-Identifier: Apache-2.0
// DIR/manifest.json both ways (field names are a contract: docs/scenario-format.md#outputs).
#include <nlohmann/json.hpp>

#include "common/json_fields.hpp"
#include "common/json_numbers.hpp"
#include "linksim/scenario_results.hpp"

namespace linksim {

using Json = nlohmann::ordered_json;
using json_fields::FieldReader;

ScenarioManifest make_manifest(const Scenario& s) {
  ScenarioManifest m;
  m.scenario = s.name;
  m.title = s.title;
  m.parameters = s.parameter_columns;
  m.cases_total = s.cases.size();
  for (const ScenarioCase& c : s.cases) {
    m.cases.push_back({c.index, c.id, c.file_stem + ".json", c.fingerprint});
  }
  for (const ScenarioQuestion& q : s.questions) {
    m.questions.push_back({q.ask, q.studies, q.metric, q.size_bytes});
  }
  return m;
}

std::string manifest_json(const ScenarioManifest& m) {
  Json cases = Json::array();
  for (const ManifestCase& c : m.cases) {
    cases.push_back(
        Json{{"index", c.index}, {"id", c.id}, {"file", c.file}, {"fingerprint", c.fingerprint}});
  }
  Json doc{{"scenario", m.scenario},
           {"title", m.title},
           {"parameters", m.parameters},
           {"cases_total", m.cases_total},
           {"cases", std::move(cases)}};
  if (!m.questions.empty()) {
    Json questions = Json::array();
    for (const ManifestQuestion& q : m.questions) {
      questions.push_back(Json{{"ask", q.ask},
                               {"studies", q.studies},
                               {"metric", q.metric},
                               {"size_bytes", json_numbers::count_value(q.size_bytes)}});
    }
    doc["questions"] = std::move(questions);
  }
  return doc.dump(2) + "\n";
}

ScenarioManifest parse_manifest(std::string_view text, const std::string& file) {
  const Json doc = json_fields::parse_document(text, file);
  const FieldReader f(doc, file);
  ScenarioManifest m;
  m.scenario = f.text("scenario");
  m.title = f.text("title");
  m.parameters = f.texts("parameters");
  const std::int64_t total = f.integer("cases_total");
  if (total < 0) f.fail("cases_total", "expected a count, found a negative integer");
  m.cases_total = static_cast<size_t>(total);
  for (const FieldReader& c : f.objects("cases")) {
    m.cases.push_back({static_cast<int>(c.integer("index")), c.text("id"), c.text("file"),
                       c.text("fingerprint")});
  }
  if (f.has("questions")) {
    for (const FieldReader& q : f.objects("questions")) {
      m.questions.push_back(
          {q.text("ask"), q.texts("studies"), q.text("metric"), q.number("size_bytes")});
    }
  }
  return m;
}

std::string render_manifest(const Scenario& scenario) {
  return manifest_json(make_manifest(scenario));
}

}  // namespace linksim
