// SPDX-License-Identifier: Apache-2.0
// A case record as a JSON object, for documents that embed case records (results.json).
#pragma once

#include <nlohmann/json.hpp>

#include "linksim/scenario_results.hpp"

namespace linksim::scenario_json {

/// What a case file holds (kCaseFile), or what results.json lists per case (kResult: the
/// same without the fingerprint and the link usage, an input of the machine picture).
enum class CaseFields { kCaseFile, kResult };

nlohmann::ordered_json case_record_object(const CaseRecord& record, CaseFields fields);

}  // namespace linksim::scenario_json
