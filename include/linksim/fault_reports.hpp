// SPDX-License-Identifier: Apache-2.0
// Rendering of an acceptance sheet and its check (`linksim accept`) and of an N-1
// contingency (`linksim topo contingency`): text and JSON (fields in docs/cli.md).
#pragma once

#include <string>

#include "linksim/acceptance.hpp"
#include "linksim/contingency.hpp"

namespace linksim {

/// Per collective: the nccl-tests command, then per size the predicted busbw, the threshold
/// and the band it comes from.
std::string render_acceptance_sheet_text(const AcceptanceSheet& sheet);
std::string render_acceptance_sheet_json(const AcceptanceSheet& sheet);

/// One line per judged row (PASS / FAIL with the likeliest mechanism), then the tally.
std::string render_acceptance_check_text(const AcceptanceCheck& check);
std::string render_acceptance_check_json(const AcceptanceCheck& check);

/// The costliest fault of each class, then every fault tried, costliest first.
std::string render_contingency_text(const ContingencyReport& report);
std::string render_contingency_json(const ContingencyReport& report);

}  // namespace linksim
