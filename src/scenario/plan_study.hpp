// SPDX-License-Identifier: Apache-2.0
// The keys of a `plans:` entry (docs/scenario-format.md#plans).
#pragma once

#include <string>
#include <vector>

#include "common/yaml_reader.hpp"
#include "linksim/scenario.hpp"

namespace linksim::detail {

/// Every key a plan study accepts.
const std::vector<std::string>& plan_study_keys();

/// Checks what one value cannot: a model is named (`model` or `arch`, not both).
void check_plan_entry(const YamlValue& entry);

/// Applies one value of a key. Throws ConfigError at `value` for a bad value (unknown model
/// with did-you-mean, a degree that is neither a positive integer nor `search`, ...).
void apply_plan_key(const std::string& key, const YamlValue& value, PlanCaseSpec& spec);

}  // namespace linksim::detail
