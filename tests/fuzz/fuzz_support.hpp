// SPDX-License-Identifier: Apache-2.0
// What every fuzz target checks about a refusal, and the invariants a finding breaks.
//
// A target feeds its input to one parser. The input must end in a result or a ConfigError;
// any other exception escapes LLVMFuzzerTestOneInput and libFuzzer reports it as a crash, as
// it does sanitizer reports, leaks and timeouts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "linksim/error.hpp"

namespace linksim::fuzz {

/// The input as text (bytes as given, NULs included).
inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A path inside the source tree ("topologies/fuzz.yaml"): inputs named there resolve their
/// relative includes and machine files the way the repository's own files do.
std::string source_path(std::string_view relative);

/// Renders a refusal as the CLI prints it (exercising the caret and notes code) and checks it
/// names `file` with a message, as every error of a file parser must.
void check_refusal(const ConfigError& error, std::string_view source_text, std::string_view file);

/// Ends the run as a finding: prints what broke and the text involved, then aborts.
[[noreturn]] void finding(std::string_view what, std::string_view detail);

}  // namespace linksim::fuzz
