// SPDX-License-Identifier: Apache-2.0
// The `questions:` section of a scenario (docs/scenario-format.md#questions).
#pragma once

#include <string>
#include <vector>

#include "common/yaml_reader.hpp"
#include "linksim/scenario.hpp"

namespace linksim::detail {

/// What a question may compare, by study kind.
const std::vector<std::string>& plan_question_metrics();
const std::vector<std::string>& collective_question_metrics();
/// Serving studies: ttft_p50, ttft_p99, tpot_p50, tpot_p99, goodput, max_rate.
const std::vector<std::string>& serve_question_metrics();

/// Reads every question. `study_kinds` holds (study name, "collective" | "plan") for every
/// study of the scenario. Throws ConfigError at the offending value: an unknown key or
/// metric, a study that does not exist (with did-you-mean), a metric that does not apply to
/// the study's kind, a size on a plan metric.
std::vector<ScenarioQuestion> read_questions(
    const YamlValue& list, const std::vector<std::pair<std::string, std::string>>& study_kinds);

}  // namespace linksim::detail
