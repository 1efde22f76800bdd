// SPDX-License-Identifier: Apache-2.0
#include "fuzz/fuzz_support.hpp"

#include <cstdio>
#include <cstdlib>

namespace linksim::fuzz {

std::string source_path(std::string_view relative) {
  return std::string(LINKSIM_SOURCE_DIR) + "/" + std::string(relative);
}

void check_refusal(const ConfigError& error, std::string_view source_text, std::string_view file) {
  const std::string rendered = format_diagnostic(error, source_text);
  if (error.message().empty() || rendered.empty()) finding("a refusal without a message", rendered);
  if (!file.empty() && error.where().file.empty()) {
    finding("a refusal of a file that does not name the file", rendered);
  }
}

void finding(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "linksim fuzz finding: %.*s\n%.*s\n", int(what.size()), what.data(),
               int(detail.size()), detail.data());
  std::abort();
}

}  // namespace linksim::fuzz
