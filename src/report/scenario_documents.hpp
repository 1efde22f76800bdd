// SPDX-License-Identifier: Apache-2.0
// Reading the manifest and case documents of a scenario run back (render_manifest and
// render_case_json's output): every output assembled from them shares these helpers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace linksim::detail {

using ScenarioJson = nlohmann::ordered_json;

/// `text` parsed; throws ConfigError "<what> is not a linksim scenario document: ...".
ScenarioJson parse_scenario_document(std::string_view text, std::string_view what);

/// Every case document parsed, in order; throws ConfigError for one without id or index.
std::vector<ScenarioJson> parse_case_documents(const std::vector<std::string>& documents);

/// object[key], or null when `object` is not an object or has no such key.
ScenarioJson json_field(const ScenarioJson& object, const char* key);

}  // namespace linksim::detail
