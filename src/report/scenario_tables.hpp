// SPDX-License-Identifier: Apache-2.0
// The tables of a scenario's report.html, from its case documents.
#pragma once

#include <vector>

#include "linksim/charts.hpp"
#include "report/scenario_charts.hpp"

namespace linksim::detail {

/// Collective cases (peak busbw, the largest size's time, busbw, algorithm, protocol and
/// bottleneck), plans, layout searches (their best layout) and cases without an answer (their
/// error), in case order; a table only when it has rows, at most kMaxHtmlTableRows each (the
/// title says how many there are when more).
std::vector<HtmlTable> scenario_tables(const std::vector<CaseRecord>& cases);

/// Throughput as the tables and summary write it: whole tokens from 100 tokens/s up.
std::string tokens_text(double tokens_per_s);

}  // namespace linksim::detail
