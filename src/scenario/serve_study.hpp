// SPDX-License-Identifier: Apache-2.0
// The keys of a `serving:` entry (docs/scenario-format.md#serving).
#pragma once

#include <string>
#include <vector>

#include "common/yaml_reader.hpp"
#include "linksim/scenario.hpp"

namespace linksim::detail {

/// Every key a serving study accepts: the model and layout keys of a plan study (but mode,
/// batch sizes and search), and the workload, engine and SLO.
const std::vector<std::string>& serve_study_keys();

/// Checks what one value cannot: a model is named, one workload (rate or concurrency).
void check_serve_entry(const YamlValue& entry);

/// Applies one value of a key. Throws ConfigError at `value` for a bad value.
void apply_serve_key(const std::string& key, const YamlValue& value, ServeCaseSpec& spec);

}  // namespace linksim::detail
