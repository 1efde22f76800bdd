// SPDX-License-Identifier: Apache-2.0
// Line assembly shared by the text renderings.
#pragma once

#include <string>
#include <string_view>

namespace linksim::report_text {

/// Appends `line` without its trailing spaces, then '\n'. Padding for alignment leaves
/// trailing spaces on short last cells; golden files should not depend on them.
inline void append_line(std::string& out, std::string_view line) {
  const size_t end = line.find_last_not_of(' ');
  out.append(line.substr(0, end == std::string_view::npos ? 0 : end + 1));
  out += '\n';
}

}  // namespace linksim::report_text
