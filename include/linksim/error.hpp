// SPDX-License-Identifier: Apache-2.0
// Positioned input errors and their rendering as "file:line:col: error: ..." diagnostics.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/interned_string.hpp"

namespace linksim {

/// The name of an input file as a position carries it: interned (interned_string.hpp), so
/// that a position is small and copying one allocates nothing (a topology keeps one per
/// device and link).
using SourceFile = InternedString;

/// A 1-based position in an input file. line == 0 means "the whole file" (no position).
struct SourceLocation {
  SourceFile file;
  int line = 0;
  int column = 0;
};

/// The field of a library request an error is about, spelled as the request struct spells it
/// ("gpus", "micro_batch", "size_bytes"). Front ends show it in their own terms: the CLI as its
/// flag ("--gpus", "--micro-batch"), the Python API as the keyword argument.
struct RequestField {
  std::string name;
};

/// Bad user input: malformed or inconsistent YAML, an unknown name, a bad unit, an
/// impossible request. Carries where it happened and what was expected. what() is the
/// one-line form "file:line:col: error: message" (or "linksim: error: message" with no file).
/// The CLI maps it to exit status 2. The library throws it; it never prints or exits.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(SourceLocation where, std::string message, std::vector<std::string> notes = {});
  /// An error about the invocation or a request rather than a file position.
  explicit ConfigError(std::string message, std::vector<std::string> notes = {});
  /// An error about one field of a request; what() is "linksim: error: FIELD: message".
  ConfigError(RequestField field, std::string message, std::vector<std::string> notes = {});

  /// The request field this error is about; empty when it concerns a file position or the
  /// request as a whole.
  const std::string& field() const { return field_; }
  /// This error with its field shown as `spelling` ("--gpus: expected ..."), for front ends
  /// that name fields their own way. Without a field, a copy.
  ConfigError with_field_spelled(std::string_view spelling) const;

  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }
  /// Extra lines such as "in links[3] (gpu7 -> nvswitch2)" or "included from a.yaml:3:1".
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  SourceLocation where_;
  std::string message_;
  std::vector<std::string> notes_;
  std::string field_;
};

/// A broken internal invariant or REQUIRES clause (LINKSIM_CHECK): a bug in linksim or in a
/// library caller, never bad input. what() is "internal error at FILE:LINE: MESSAGE", FILE
/// being the path inside the source tree ("src/collectives/analytic.cpp"). The CLI exits 3.
class InternalError : public std::logic_error {
 public:
  InternalError(std::string file, int line, std::string message);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_ = 0;
  std::string message_;
};

/// Renders an error for a terminal: the one-line form, then (when the file can be read and
/// the error has a line) the offending source line with a caret under the column, then the
/// notes as "  note: ..." lines. No trailing newline. Example (the source line is indented
/// by two spaces, the caret sits under the column and `~` underlines the rest of the token):
///
///     t.yaml:3:16: error: expected a bandwidth such as "450 GB/s", got "900 GBs"
///           bandwidth: 900 GBs
///                      ^~~~~~~
///       note: in links[3] (gpu7 -> nvswitch2)
std::string format_diagnostic(const ConfigError& error);
/// The same, with the source text given instead of read from `error.where().file` (for inputs
/// that are not files, such as text passed to parse_topology or an embedded catalog).
std::string format_diagnostic(const ConfigError& error, std::string_view source_text);

/// Returns the candidate closest to `word` by edit distance if it is close enough to be a
/// likely typo (distance <= max(1, word.size()/3), at most 3), else an empty string.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace linksim
