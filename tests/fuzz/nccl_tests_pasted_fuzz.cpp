// SPDX-License-Identifier: Apache-2.0
// nccl-tests output as people paste it (with or without its headers, several runs, launcher
// prefixes), read with or without a collective from the caller: every table it returns names a
// collective linksim models, a rank count and where both came from, and finite rows; or one
// positioned refusal. The first byte picks the caller's collective (none for most values).
#include <cmath>

#include "fuzz/fuzz_support.hpp"
#include "linksim/collectives.hpp"
#include "linksim/nccl_tests_output.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linksim;
  if (size == 0) return 0;
  NcclTestsReadOptions options;
  const auto names = collective_names();
  if (data[0] < names.size()) options.collective = std::string(names[data[0]].nccl_tests_name);
  const std::string_view text = fuzz::as_text(data + 1, size - 1);
  try {
    for (const NcclTestsTable& table : parse_nccl_tests_outputs(text, "pasted.txt", options)) {
      if (!parse_collective(table.collective)) fuzz::finding("a table without a known collective", text);
      if (table.ranks < 1) fuzz::finding("a table without ranks", text);
      if (table.collective_source.empty() || table.ranks_source.empty()) {
        fuzz::finding("a table that does not say where its collective or ranks came from", text);
      }
      for (const NcclTestsRow& row : table.rows) {
        if (!std::isfinite(row.size_bytes) || !std::isfinite(row.time_us) ||
            !std::isfinite(row.algbw_GBps) || !std::isfinite(row.busbw_GBps)) {
          fuzz::finding("a row with a non-finite number", text);
        }
      }
    }
  } catch (const ConfigError& error) {
    // The caller's collective is always a known name; every other refusal is positioned.
    fuzz::check_refusal(error, text, "pasted.txt");
  }
  return 0;
}
