// SPDX-License-Identifier: Apache-2.0
// A library sweep (run_sweep) as the rows every collective renderer reads, with their bands.
#include <string>

#include "linksim/error_bands.hpp"

namespace linksim {

CollectiveReport to_collective_report(const CollectiveSweep& sweep, const Topology& topology) {
  CollectiveReport report;
  report.topology = topology.name();
  report.collective = std::string(to_string(sweep.op));
  report.ranks = sweep.ranks;
  report.mode = std::string(to_string(sweep.mode));
  report.nccl_version = to_string(sweep.nccl_version);
  for (const SweepRow& s : sweep.rows) {
    CollectiveRow row;
    row.size_bytes = s.size_bytes;
    row.count = s.count;
    row.type = std::string(s.type);
    row.redop = std::string(s.redop);
    row.root = s.root;
    row.time_s = s.result.time_s;
    row.algbw_Bps = s.result.algbw_Bps;
    row.busbw_Bps = s.result.busbw_Bps;
    row.algorithm = std::string(to_string(s.result.algorithm));
    row.protocol = std::string(to_string(s.result.protocol));
    row.bottleneck = describe_bottleneck(s.result, topology);
    const ErrorBand band = error_band(s.result, topology, s.size_bytes);
    row.time_low_s = s.result.time_s * band.low_factor;
    row.time_high_s = s.result.time_s * band.high_factor;
    row.confidence = band.validated ? "validated" : "extrapolated";
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace linksim
