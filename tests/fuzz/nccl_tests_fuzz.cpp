// SPDX-License-Identifier: Apache-2.0
// Published nccl-tests output (docs/validation.md): rows of finite numbers, or one positioned
// refusal. Parsed rows must convert to a report.
#include <cmath>

#include "fuzz/fuzz_support.hpp"
#include "linksim/nccl_tests_output.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linksim;
  const std::string_view text = fuzz::as_text(data, size);
  try {
    const NcclTestsTable table = parse_nccl_tests_output(text, "nccl-tests.txt");
    for (const NcclTestsRow& row : table.rows) {
      if (!std::isfinite(row.size_bytes) || !std::isfinite(row.time_us) ||
          !std::isfinite(row.algbw_GBps) || !std::isfinite(row.busbw_GBps)) {
        fuzz::finding("a row with a non-finite number", text);
      }
    }
    (void)to_collective_report(table, "measured");
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "nccl-tests.txt");
  }
  return 0;
}
