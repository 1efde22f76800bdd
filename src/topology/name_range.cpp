// SPDX-License-Identifier: Apache-2.0
// Expansion of device name ranges such as "gpu[0-7]" and "nic[0-3,6]".
#include "topology/name_range.hpp"

#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "common/text.hpp"

namespace linksim::detail {
namespace {

std::optional<long> parse_index(std::string_view text) {
  long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

// Appends the indices of one item ("3" or "0-7") to `indices`; returns an error or "".
std::string expand_item(std::string_view item, std::vector<long>& indices) {
  item = text::trim(item);
  size_t dash = item.find('-');
  std::string_view low_text = text::trim(item.substr(0, dash));
  std::optional<long> low = parse_index(low_text);
  if (!low) return fmt::format("expected a number, got \"{}\"", low_text);
  long high = *low;
  if (dash != std::string_view::npos) {
    std::string_view high_text = text::trim(item.substr(dash + 1));
    std::optional<long> parsed = parse_index(high_text);
    if (!parsed) return fmt::format("expected a number after \"-\", got \"{}\"", high_text);
    high = *parsed;
    if (high < *low) return fmt::format("expected low <= high, got {}-{}", *low, high);
  }
  if (long(indices.size()) + (high - *low) >= kMaxRangeNames) {
    return fmt::format("expected at most {} names", kMaxRangeNames);
  }
  for (long i = *low; i <= high; ++i) indices.push_back(i);
  return "";
}

}  // namespace

NameRange expand_name_range(std::string_view text) {
  NameRange result;
  auto fail = [&](const std::string& why) {
    result.names.clear();
    result.error = fmt::format("bad range \"{}\": {}", text, why);
    return result;
  };
  size_t open = text.find('[');
  size_t close = text.find(']');
  if (open == std::string_view::npos && close == std::string_view::npos) {
    result.names.emplace_back(text);
    return result;
  }
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return fail("expected a \"[\" and a matching \"]\"");
  }
  std::string_view prefix = text.substr(0, open);
  std::string_view suffix = text.substr(close + 1);
  if (suffix.find_first_of("[]") != std::string_view::npos) {
    return fail("expected one bracket group");
  }
  std::vector<long> indices;
  for (const std::string& item : text::split(text.substr(open + 1, close - open - 1), ',')) {
    std::string why = expand_item(item, indices);
    if (!why.empty()) return fail(why);
  }
  result.names.reserve(indices.size());
  for (long i : indices) result.names.push_back(fmt::format("{}{}{}", prefix, i, suffix));
  return result;
}

}  // namespace linksim::detail
