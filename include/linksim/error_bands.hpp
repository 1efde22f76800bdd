// SPDX-License-Identifier: Apache-2.0
// How far to trust a prediction: the spread of the shipped validation residuals
// (data/validation/error_bands.yaml, written by scripts/error_bands.py from the real tables
// in data/validation/nccl-tests/) for the prediction's mechanism and machine class.
// docs/calibration.md#error-bands.
#pragma once

#include <string_view>

#include "linksim/collective_rows.hpp"
#include "linksim/collectives.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/topology.hpp"

namespace linksim {

/// A prediction's range: a measurement is expected in [time x low_factor, time x high_factor].
struct ErrorBand {
  double low_factor = 1;   ///< <= 1
  double high_factor = 1;  ///< >= 1
  /// true when the shipped real data cover this mechanism on this machine class
  /// ("validated"); false when the band is borrowed from the mechanism on other machines or
  /// from every row ("extrapolated").
  bool validated = false;
  std::string_view mechanism;      ///< "nvls", "nvlink", "pcie", "host_staging", "network", ...
  std::string_view machine_class;  ///< "nvswitch", "nvlink", "pcie", "cluster"
};

/// "cluster" (several servers), "nvswitch" (one server with NVSwitches), "nvlink" (NVLink
/// between GPUs, no switch) or "pcie".
std::string_view machine_class(const Topology& topology);

/// The mechanism that sets a result's time: "latency" below kLatencyRegimeBytes, else its
/// bottleneck ("nvls", "nvlink", "pcie", "host_staging", "network", "p2p_channels", "c2c",
/// "smp", "none").
std::string_view prediction_mechanism(const CollectiveResult& result, const Topology& topology,
                                       double size_bytes);
/// Messages below 1 MiB are latency-bound on every shipped machine (docs/calibration.md).
inline constexpr double kLatencyRegimeBytes = 1048576;

/// The band of one prediction.
ErrorBand error_band(const CollectiveResult& result, const Topology& topology, double size_bytes);

/// The rows `linksim coll` prints for a sweep run on `topology` (the communicator's): the
/// topology's name, the canonical collective name, the mode, the NCCL release, and per row the
/// names of the resolved algorithm and protocol, the bottleneck in words and the error band
/// (error_band: time_low_s, time_high_s, confidence).
CollectiveReport to_collective_report(const CollectiveSweep& sweep, const Topology& topology);

}  // namespace linksim
