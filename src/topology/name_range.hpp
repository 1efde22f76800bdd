// SPDX-License-Identifier: Apache-2.0
// Expansion of device name ranges: "gpu[0-7]", "sw[0,2,5]", "nic[0-3,6]" (docs/topology-format.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace linksim::detail {

/// The names a range text stands for, or why it is malformed.
struct NameRange {
  std::vector<std::string> names;  ///< in the order written; empty when `error` is set
  std::string error;               ///< "" on success, else a terse lower-case message
};

/// The most names one range may expand to; guards against typos such as gpu[0-80000000].
inline constexpr long kMaxRangeNames = 1'000'000;

/// Expands `text`: a plain name gives itself; `prefix[items]suffix` gives prefix+i+suffix for
/// every i of the comma-separated items, each a number or an inclusive low-high range.
/// Whitespace around items is ignored. At most one bracket group. Never throws.
NameRange expand_name_range(std::string_view text);

}  // namespace linksim::detail
