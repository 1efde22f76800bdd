// SPDX-License-Identifier: Apache-2.0
// Stable names for cases: ids, file names and fingerprints (docs/scenario-format.md#case-ids).
#pragma once

#include <string>
#include <string_view>

namespace linksim::detail {

/// 64-bit FNV-1a of `text` as 16 lower-case hex digits (http://www.isthe.com/chongo/tech/comp/fnv/).
std::string fnv1a_hex(std::string_view text);

/// A file-system-safe, unique name for a case id: the id with every character outside
/// [A-Za-z0-9._=,+-] replaced by '_' (at most 96 of them), then '-' and the first 8 hex
/// digits of fnv1a_hex(id), so distinct ids never share a name.
std::string case_file_stem(std::string_view id);

}  // namespace linksim::detail
