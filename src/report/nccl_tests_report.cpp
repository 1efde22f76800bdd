// SPDX-License-Identifier: Apache-2.0
// Measured nccl-tests rows as a CollectiveReport, to render them like predictions.
#include "linksim/nccl_tests_output.hpp"
#include "linksim/units.hpp"

namespace linksim {

CollectiveReport to_collective_report(const NcclTestsTable& table, const std::string& label) {
  CollectiveReport report;
  report.topology = label;
  report.collective = table.collective;
  report.ranks = table.ranks;
  report.mode = "measured";
  for (const NcclTestsRow& measured : table.rows) {
    CollectiveRow row;
    row.size_bytes = measured.size_bytes;
    row.count = measured.count.value_or(0);
    row.type = measured.type;
    row.redop = measured.redop;
    row.root = measured.root.value_or(-1);
    row.time_s = measured.time_us * kMicrosecond;
    row.algbw_Bps = measured.algbw_GBps * kGB;
    row.busbw_Bps = measured.busbw_GBps * kGB;
    row.algorithm = "measured";
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace linksim
