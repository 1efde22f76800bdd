// SPDX-License-Identifier: Apache-2.0
// The keys of a `collectives:` entry (docs/scenario-format.md#collectives).
#pragma once

#include <string>
#include <vector>

#include "common/yaml_reader.hpp"
#include "linksim/scenario.hpp"

namespace linksim::detail {

/// Every key a collective study accepts.
const std::vector<std::string>& collective_study_keys();

/// True for the keys read once per study (the size sweep) rather than swept.
bool is_fixed_collective_key(const std::string& key);

/// Reads the sizes: `sizes: [1M, 1G]` or `minbytes`/`maxbytes`/`stepfactor` (nccl-tests'
/// -b/-e/-f). Throws ConfigError at the entry when neither or both are given.
std::vector<double> read_collective_sizes(const YamlValue& entry);

/// Applies one value of a sweepable key. Throws ConfigError at `value` for a bad value.
void apply_collective_key(const std::string& key, const YamlValue& value,
                          CollectiveCaseSpec& spec);

}  // namespace linksim::detail
