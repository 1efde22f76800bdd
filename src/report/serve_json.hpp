// SPDX-License-Identifier: Apache-2.0
// One serving run as a JSON object (the contract of docs/cli.md#serve-json), shared by
// `serve --json` and a scenario's per-case documents. Internal to src/report/.
#pragma once

#include <nlohmann/json.hpp>

#include "linksim/serve.hpp"

namespace linksim::report_json {

/// Every key of one run, timeline and assumptions included.
nlohmann::ordered_json serve_result_json(const ServeResult& result);

}  // namespace linksim::report_json
