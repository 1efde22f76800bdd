// SPDX-License-Identifier: Apache-2.0
// The CSV rendering of a CollectiveReport: one line per message size, run fields repeated
// so several runs can be concatenated into one sheet. The error band's columns
// (time_low_us, time_high_us, confidence; docs/calibration.md#error-bands) are empty for a row
// without one.
#include <fmt/core.h>

#include <string>
#include <string_view>

#include "linksim/report.hpp"
#include "linksim/units.hpp"
#include "report/data_format.hpp"

namespace linksim {
using report_data::csv_field;

std::string render_csv(const CollectiveReport& report) {
  std::string out =
      "topology,collective,ranks,mode,size_bytes,count,type,redop,root,time_us,algbw_GBps,"
      "busbw_GBps,algorithm,protocol,bottleneck,nccl_version,time_low_us,time_high_us,confidence\n";
  const std::string run_fields =
      fmt::format("{},{},{},{}", csv_field(report.topology), csv_field(report.collective),
                  report.ranks, csv_field(report.mode));
  for (const CollectiveRow& row : report.rows) {
    const std::string band =
        row.confidence.empty()
            ? std::string(",,")
            : fmt::format("{:.10g},{:.10g},{}", row.time_low_s / kMicrosecond,
                          row.time_high_s / kMicrosecond, csv_field(row.confidence));
    out +=
        fmt::format("{},{:.0f},{:.0f},{},{},{},{:.10g},{:.10g},{:.10g},{},{},{},{},{}\n", run_fields,
                    row.size_bytes, row.count, csv_field(row.type), csv_field(row.redop), row.root,
                    row.time_s / kMicrosecond, row.algbw_Bps / kGB, row.busbw_Bps / kGB,
                    csv_field(row.algorithm), csv_field(row.protocol), csv_field(row.bottleneck),
                    csv_field(report.nccl_version), band);
  }
  return out;
}

}  // namespace linksim
