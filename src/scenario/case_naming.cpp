// SPDX-License-Identifier: Apache-2.0
// Case ids to file names and fingerprints.
#include "scenario/case_naming.hpp"

#include <cctype>
#include <cstdint>

#include <fmt/format.h>

namespace linksim::detail {

std::string fnv1a_hex(std::string_view text) {
  uint64_t hash = 14695981039346656037ull;  // FNV-1a 64-bit offset basis
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;  // FNV-1a 64-bit prime
  }
  return fmt::format("{:016x}", hash);
}

std::string case_file_stem(std::string_view id) {
  std::string stem;
  for (char c : id.substr(0, 96)) {
    const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                      c == '=' || c == ',' || c == '+' || c == '-';
    stem += safe ? c : '_';
  }
  return stem + "-" + fnv1a_hex(id).substr(0, 8);
}

}  // namespace linksim::detail
