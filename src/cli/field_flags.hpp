// SPDX-License-Identifier: Apache-2.0
// The CLI's spelling of the library's request fields: errors the library raises about a field
// ("gpus", "micro_batch", "min_bytes") are shown under the flag that sets it.
#pragma once

#include <string>
#include <string_view>

#include "linksim/error.hpp"

namespace linksim::cli {

/// The flag that sets request field `field`: nccl-tests' own letters for the sweep
/// ("min_bytes" -> "-b"), the few fields whose flag is named otherwise ("baseline_gpus" ->
/// "--baseline"), and "--" + the field with '_' as '-' for the rest ("micro_batch" ->
/// "--micro-batch").
std::string flag_for_field(std::string_view field);

/// `error` as the CLI shows it: with its field spelled as a flag when it names one.
ConfigError with_flag_names(const ConfigError& error);

}  // namespace linksim::cli
