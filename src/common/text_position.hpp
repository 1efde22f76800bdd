// SPDX-License-Identifier: Apache-2.0
// Positions in raw input text, and the UTF-8 check every text reader applies before parsing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/error.hpp"

namespace linksim::detail {

/// Line starts of a text, found once, so that many offsets convert to line:column in
/// O(log lines) each (columns count bytes, as every reader's columns do).
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  /// The 1-based position of byte `offset` (an offset past the end is the end).
  SourceLocation at(size_t offset, const std::string& file) const;

 private:
  std::vector<size_t> starts_;
  size_t size_ = 0;
};

/// The offset of the first byte of `text` that is not part of well-formed UTF-8 (RFC 3629:
/// no overlong forms, no surrogates, nothing above U+10FFFF), or nullopt when it is all UTF-8.
std::optional<size_t> first_invalid_utf8(std::string_view text);

/// Throws ConfigError at the first byte that is not UTF-8, e.g.
/// "t.yaml:4:18: error: expected UTF-8 text, got byte 0xff"; `notes` are attached.
void require_utf8(std::string_view text, const std::string& file,
                  std::vector<std::string> notes = {});

}  // namespace linksim::detail
