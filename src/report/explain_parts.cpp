// SPDX-License-Identifier: Apache-2.0
#include "report/explain_parts.hpp"

#include <fmt/core.h>

#include <cmath>

#include "linksim/units.hpp"
#include "common/json_numbers.hpp"
#include "report/text_lines.hpp"
#include "report/text_table.hpp"

namespace linksim::report_explain {

std::string value_text(double v, const std::string& unit) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (unit == "s") {
    const double a = std::fabs(v);
    if (a == 0) return "0 s";
    if (a < 1e-3) return fmt::format("{:.6g} us", v / kMicrosecond);
    if (a < 1) return fmt::format("{:.6g} ms", v * 1e3);
    return fmt::format("{:.6g} s", v);
  }
  if (unit == "B/s") return fmt::format("{:.6g} GB/s", v / kGB);
  if (unit == "bytes") {
    // Whole bytes as they are; a share of a message (a link's part of it) to the byte.
    const std::string bytes = std::floor(v) == v || v >= 1024 ? fmt::format("{:.0f} bytes", v)
                                                              : fmt::format("{:.6g} bytes", v);
    return v >= 1024 ? fmt::format("{} ({})", bytes, format_size(v)) : bytes;
  }
  if (unit == "FLOP/s") return fmt::format("{:.6g} TFLOP/s", v / 1e12);
  if (unit == "FLOP") return fmt::format("{:.6g} TFLOP", v / 1e12);
  return fmt::format("{:.6g}", v);
}

void append_step(std::string& out, int number, const ExplainStep& step) {
  using report_text::append_line;
  append_line(out, fmt::format("{}. {}", number, step.title));
  append_line(out, "   " + step.formula);
  report_text::TextTable terms({"", "", "", ""}, {false, false, true, false});
  for (const ExplainTerm& t : step.terms) {
    terms.add_row({t.symbol, "=", value_text(t.value, t.unit), t.source});
  }
  out += terms.render("     ");
  for (const std::string& note : step.notes) append_line(out, "   " + note);
  append_line(out, fmt::format("   => {} = {}", step.result.symbol,
                               value_text(step.result.value, step.result.unit)));
  out += '\n';
}

namespace {

nlohmann::ordered_json term_json(const ExplainTerm& t) {
  nlohmann::ordered_json j;
  j["symbol"] = t.symbol;
  j["value"] = json_numbers::rounded(t.value);
  j["unit"] = t.unit;
  if (!t.source.empty()) j["source"] = t.source;
  return j;
}

}  // namespace

nlohmann::ordered_json step_json(const ExplainStep& step) {
  nlohmann::ordered_json j;
  j["title"] = step.title;
  j["formula"] = step.formula;
  j["terms"] = nlohmann::ordered_json::array();
  for (const ExplainTerm& t : step.terms) j["terms"].push_back(term_json(t));
  j["result"] = term_json(step.result);
  j["notes"] = step.notes;
  return j;
}

}  // namespace linksim::report_explain
