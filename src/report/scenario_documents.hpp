// SPDX-License-Identifier: Apache-2.0
// The texts of a scenario run's manifest and case files read into their records, for the
// renderings that take texts (scenario_report.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "linksim/scenario_results.hpp"

namespace linksim::detail {

/// parse_manifest of `text`, named "the manifest" in errors.
ScenarioManifest parse_manifest_text(std::string_view text);

/// parse_case_record of every text, in order, each named "case file <n>" (1-based) in errors.
std::vector<CaseRecord> parse_case_texts(const std::vector<std::string>& documents);

}  // namespace linksim::detail
