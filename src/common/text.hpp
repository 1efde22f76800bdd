// SPDX-License-Identifier: Apache-2.0
// Small string helpers shared by the parsers: trimming, splitting, case-insensitive compare.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace linksim::text {

/// `s` without leading and trailing ASCII whitespace (space, tab, CR, LF, FF, VT).
std::string_view trim(std::string_view s);

/// Splits on every `separator`; keeps empty fields ("a,,b" -> {"a", "", "b"}). Fields are not
/// trimmed. An empty input gives one empty field.
std::vector<std::string> split(std::string_view s, char separator);

/// ASCII lower case; other bytes unchanged.
std::string to_lower(std::string_view s);

/// ASCII case-insensitive equality.
bool iequals(std::string_view a, std::string_view b);

/// Joins with `separator` between items: join({"a","b"}, ", ") == "a, b".
std::string join(const std::vector<std::string>& items, std::string_view separator);

/// True when `s` begins / ends with `affix` (case-sensitive).
bool starts_with(std::string_view s, std::string_view affix);
bool ends_with(std::string_view s, std::string_view affix);

}  // namespace linksim::text
