// SPDX-License-Identifier: Apache-2.0
// Line:column from byte offsets; the UTF-8 well-formedness check (RFC 3629, section 4).
#include "common/text_position.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace linksim::detail {

LineIndex::LineIndex(std::string_view text) : size_(text.size()) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts_.push_back(i + 1);
  }
}

SourceLocation LineIndex::at(size_t offset, const std::string& file) const {
  offset = std::min(offset, size_);
  const auto after = std::upper_bound(starts_.begin(), starts_.end(), offset);
  const size_t line = size_t(after - starts_.begin());  // >= 1: starts_[0] == 0 <= offset
  return {file, int(line), int(offset - starts_[line - 1]) + 1};
}

std::optional<size_t> first_invalid_utf8(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char lead = byte(i);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // The well-formed sequences of RFC 3629's grammar: the lead byte fixes the length and the
    // range of the second byte (which excludes overlong forms, surrogates and > U+10FFFF).
    size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    if (byte(i + 1) < low || byte(i + 1) > high) return i;
    for (size_t k = 2; k < length; ++k) {
      if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return i;
    }
    i += length;
  }
  return std::nullopt;
}

void require_utf8(std::string_view text, const std::string& file,
                  std::vector<std::string> notes) {
  const std::optional<size_t> bad = first_invalid_utf8(text);
  if (!bad) return;
  throw ConfigError(LineIndex(text).at(*bad, file),
                    fmt::format("expected UTF-8 text, got byte 0x{:02x}",
                                static_cast<unsigned char>(text[*bad])),
                    std::move(notes));
}

}  // namespace linksim::detail
