// SPDX-License-Identifier: Apache-2.0
// Fitting the model's mechanisms to a user's measurements: least squares on ln(time) over
// every measured row, by Levenberg-Marquardt on the calibration parameters
// (`linksim calibrate`, docs/calibration.md#fit). Only mechanisms are fitted, never a size.
#pragma once

#include <string>
#include <vector>

#include "linksim/calibration.hpp"
#include "linksim/measured.hpp"
#include "linksim/topology.hpp"

namespace linksim {

/// One measured table with the run it describes on the topology.
struct FitCase {
  NcclTestsTable table;
  MeasuredSetup setup;
  std::vector<DeviceId> ranks;
};

/// One measured row before and after the fit.
struct FitRow {
  size_t table = 0;  ///< index into the cases
  int line = 0;
  double size_bytes = 0;
  double measured_time_s = 0;
  double before_time_s = 0;  ///< predicted with the neutral calibration
  double after_time_s = 0;   ///< predicted with the fitted one
};

struct CalibrationFit {
  ModelCalibration parameters;
  std::vector<CalibrationParameter> fitted;        ///< determined by the data
  std::vector<CalibrationParameter> undetermined;  ///< no row responds: left neutral
  std::vector<CalibrationParameter> at_bound;      ///< fitted to the edge of their range
  std::vector<FitRow> rows;
  double rms_before = 0;  ///< RMS of ln(predicted / measured time), neutral calibration
  double rms_after = 0;   ///< the same, fitted
  int iterations = 0;
};

/// A parameter is undetermined when the RMS response of ln(time) to a 1 % change of it (or
/// 0.1 us for the hop latency) is below this over the rows.
inline constexpr double kMinSensitivity = 1e-5;

/// Fits every determinable parameter to the rows of `cases` on `topology` (the cases' own
/// CommOptions::calibration is ignored: the fit starts from neutral). REQUIRES: cases non-empty, each
/// with at least one row of size > 0 and time > 0.
CalibrationFit fit_calibration(const Topology& topology, const std::vector<FitCase>& cases);

}  // namespace linksim
