// SPDX-License-Identifier: Apache-2.0
// LINKSIM_CHECK: an always-on check of an internal invariant or a REQUIRES clause. A failed
// check throws InternalError (include/linksim/error.hpp) carrying the file and line; the CLI
// reports it as an internal error (exit 3). Not for user input: that is a ConfigError.
#pragma once

#include <string>

#include "linksim/error.hpp"

namespace linksim::detail {

/// Throws InternalError for the check at `file`:`line`. `file` is trimmed to its path inside
/// the source tree ("src/collectives/analytic.cpp").
[[noreturn]] void check_failed(const char* file, int line, const char* condition,
                               const std::string& message);

}  // namespace linksim::detail

/// Throws linksim::InternalError "<message> (<condition>)" at this file and line unless `cond`.
#define LINKSIM_CHECK(cond, message)                                            \
  do {                                                                          \
    if (!(cond)) ::linksim::detail::check_failed(__FILE__, __LINE__, #cond, message); \
  } while (false)
