// SPDX-License-Identifier: Apache-2.0
// Pieces shared by the explanation renderings: a value in its display unit, a step as text
// and as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "linksim/explain.hpp"

namespace linksim::report_explain {

/// `value` (SI, as ExplainTerm) in the unit people read: "3.4 us", "450 GB/s",
/// "1073741824 bytes (1 GiB)", "989.4 TFLOP/s", "1.75"; six significant digits; "inf".
std::string value_text(double value, const std::string& unit);

/// "<n>. title", the formula, one line per term, the notes, "=> result", under `indent`.
void append_step(std::string& out, int number, const ExplainStep& step);

/// {title, formula, terms [{symbol, value, unit, source}], result {symbol, value, unit},
/// notes}; values rounded to 10 significant digits, infinities as null.
nlohmann::ordered_json step_json(const ExplainStep& step);

}  // namespace linksim::report_explain
