// SPDX-License-Identifier: Apache-2.0
// InternalError and the failure path of LINKSIM_CHECK.
#include "common/check.hpp"

#include <fmt/core.h>

#include <string_view>

namespace linksim {
namespace {

// The path inside the source tree: from the last "src/", "include/" or "tests/" on, so
// messages do not depend on where the tree was built.
std::string source_relative(std::string_view file) {
  size_t best = std::string_view::npos;
  for (std::string_view root : {"/src/", "/include/", "/tests/"}) {
    const size_t at = file.rfind(root);
    if (at != std::string_view::npos && (best == std::string_view::npos || at > best)) best = at;
  }
  return std::string(best == std::string_view::npos ? file : file.substr(best + 1));
}

}  // namespace

InternalError::InternalError(std::string file, int line, std::string message)
    : std::logic_error(fmt::format("internal error at {}:{}: {}", file, line, message)),
      file_(std::move(file)),
      line_(line),
      message_(std::move(message)) {}

namespace detail {

void check_failed(const char* file, int line, const char* condition, const std::string& message) {
  throw InternalError(source_relative(file), line, fmt::format("{} ({})", message, condition));
}

}  // namespace detail
}  // namespace linksim
