// SPDX-License-Identifier: Apache-2.0
// The layout search and sensitivity renderings.
#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <string>

#include "linksim/plan_report.hpp"
#include "linksim/units.hpp"
#include "common/json_numbers.hpp"
#include "report/plan_text_parts.hpp"
#include "report/text_lines.hpp"
#include "report/text_table.hpp"

namespace linksim {
namespace {

using Json = nlohmann::ordered_json;
using json_numbers::count_value;
using json_numbers::rounded;
using report_text::append_line;
using report_text::layout_text;
using report_text::percent_text;
using report_text::TextTable;

}  // namespace

std::string render_search_text(const std::vector<SearchCandidate>& candidates) {
  std::string out;
  if (candidates.empty()) {
    append_line(out, "# layout search: no valid layout for these GPUs");
    return out;
  }
  append_line(out, fmt::format("# layout search: {} layouts on {} GPUs, ranked by tokens/s",
                               candidates.size(), candidates.front().layout.gpus()));
  TextTable t({"rank", "layout", "micro-batch", "fits", "memory", "step", "tokens/s", "verdict"},
              {true, false, true, false, true, true, true, false});
  int rank = 1;
  for (const SearchCandidate& c : candidates) {
    t.add_row({std::to_string(rank++), layout_text(c.layout), std::to_string(c.layout.micro_batch),
               c.fits ? "yes" : "no", format_size(c.memory_bytes), format_duration(c.step_time_s),
               fmt::format("{:.0f}", c.tokens_per_s), c.verdict});
  }
  out += t.render();
  return out;
}

std::string render_search_json(const std::vector<SearchCandidate>& candidates) {
  Json rows = Json::array();
  int rank = 1;
  for (const SearchCandidate& c : candidates) {
    const ParallelLayout& l = c.layout;
    rows.push_back(Json{{"rank", rank++},
                        {"tp", l.tp},
                        {"pp", l.pp},
                        {"dp", l.dp},
                        {"cp", l.cp},
                        {"ep", l.ep},
                        {"etp", l.etp},
                        {"vpp", l.vpp},
                        {"micro_batch", l.micro_batch},
                        {"global_batch", l.global_batch},
                        {"fits", c.fits},
                        {"memory_bytes", count_value(c.memory_bytes)},
                        {"step_time_s", rounded(c.step_time_s)},
                        {"tokens_per_s", rounded(c.tokens_per_s)},
                        {"breakdown",
                         Json{{"compute_s", rounded(c.breakdown.compute_s)},
                              {"exposed_comm_s", rounded(c.breakdown.exposed_comm_s)},
                              {"bubble_s", rounded(c.breakdown.bubble_s)}}},
                        {"verdict", c.verdict}});
  }
  return rows.dump(2) + "\n";
}

std::string render_sensitivity_text(double base_step_time_s,
                                    const std::vector<SensitivityRow>& rows, double factor) {
  std::string out;
  append_line(out, fmt::format("Sensitivity: each resource {:g}× faster, the rest unchanged "
                               "(step {})",
                               factor, format_duration(base_step_time_s)));
  for (const SensitivityRow& row : rows) {
    const std::string effect = row.saving >= 0
                                   ? fmt::format("saves {}", percent_text(row.saving))
                                   : fmt::format("costs {}", percent_text(-row.saving));
    append_line(out, fmt::format("  {} ×{:g}: step {} → {}, {}", row.resource, factor,
                                 format_duration(base_step_time_s),
                                 format_duration(row.step_time_s), effect));
  }
  return out;
}

std::string render_sensitivity_json(double base_step_time_s,
                                    const std::vector<SensitivityRow>& rows, double factor) {
  Json list = Json::array();
  for (const SensitivityRow& row : rows) {
    list.push_back(Json{{"resource", row.resource},
                        {"step_time_s", rounded(row.step_time_s)},
                        {"saving", rounded(row.saving)}});
  }
  const Json document{{"factor", rounded(factor)},
                      {"base_step_time_s", rounded(base_step_time_s)},
                      {"rows", std::move(list)}};
  return document.dump(2) + "\n";
}

}  // namespace linksim
