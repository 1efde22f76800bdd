// SPDX-License-Identifier: Apache-2.0
// One serving run as a JSON object (the contract of docs/cli.md#serve-json), shared by
// `serve --json` and a scenario's case files, and read back from a case file.
#pragma once

#include <nlohmann/json.hpp>

#include "common/json_fields.hpp"
#include "linksim/serve.hpp"

namespace linksim::serve_json {

/// Every key of one run, timeline and assumptions included; numbers to 10 significant
/// digits, non-finite ones as null.
nlohmann::ordered_json serve_result_json(const ServeResult& result);

/// What serve_result_json wrote, read back (assumptions when present). Non-finite numbers
/// read as NaN; wall_s, records and distinct_iterations are not in the file and stay zero.
/// Throws ConfigError naming the field (json_fields.hpp).
ServeResult serve_result_from_json(const json_fields::FieldReader& fields);

}  // namespace linksim::serve_json
