// SPDX-License-Identifier: Apache-2.0
#include "linksim/nccl_version.hpp"

#include <charconv>
#include <fmt/core.h>
#include <vector>

namespace linksim {
namespace {

// A run of decimal digits, no sign, no leading '+', at most 4 digits.
std::optional<int> read_number(std::string_view text) {
  if (text.empty() || text.size() > 4) return std::nullopt;
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::string to_string(NcclVersion v) { return fmt::format("{}.{}", v.major, v.minor); }

std::optional<NcclVersion> parse_nccl_version(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = text.find('.', start);
    parts.push_back(text.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  std::optional<int> numbers[3];
  for (size_t i = 0; i < parts.size(); ++i) {
    numbers[i] = read_number(parts[i]);
    if (!numbers[i]) return std::nullopt;
  }
  const NcclVersion v{*numbers[0], *numbers[1]};
  if (v < kOldestNcclVersion || v > kNewestNcclVersion) return std::nullopt;
  return v;
}

}  // namespace linksim
