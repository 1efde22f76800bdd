// SPDX-License-Identifier: Apache-2.0
// The first pass of the NCCL log reader: one physical line into its launcher prefixes, NCCL's
// "host:pid:tid [dev]" header and the message after "NCCL INFO" (docs/diagnose.md#prefixes).
#pragma once

#include <optional>
#include <string_view>

namespace linksim::sysimport {

/// A line of a log, split. Views into the line given to split_log_line.
struct LogLineParts {
  /// The line without launcher prefixes ("[1,0]<stdout>:", "[0]<stdout>:", "0: ",
  /// "[rank0]:", "[default0]:").
  std::string_view body;
  /// Where `body` starts in the line, 0-based.
  size_t body_offset = 0;
  bool nccl = false;         ///< "NCCL INFO" or "NCCL WARN" in the body, or "NCCL version"
  bool warn = false;         ///< "NCCL WARN"
  std::string_view host;     ///< "host" of "host:pid:tid"; empty when the header has none
  std::optional<long long> pid;
  std::optional<int> dev;    ///< the "[dev]" of the header
  std::string_view message;  ///< after "NCCL INFO " (or the whole "NCCL version ..." text)
  size_t message_offset = 0; ///< where `message` starts in the line, 0-based
};

/// Splits one line (without its line end). Never throws.
LogLineParts split_log_line(std::string_view line);

}  // namespace linksim::sysimport
