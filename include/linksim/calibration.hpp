// SPDX-License-Identifier: Apache-2.0
// A calibration profile: the per-mechanism corrections (linksim/model_calibration.hpp) fitted
// to a user's own measurements (`linksim calibrate`, docs/calibration.md), as a file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "linksim/model_calibration.hpp"

namespace linksim {

/// A calibration profile as `linksim calibrate` writes it (docs/calibration.md#profile).
struct CalibrationProfile {
  ModelCalibration parameters;
  std::string topology;                   ///< the topology file it was fitted on
  std::vector<std::string> measurements;  ///< the nccl-tests files it was fitted to
  /// Parameters the measurements could not determine; left neutral.
  std::vector<CalibrationParameter> undetermined;
  double rms_log_error_before = 0;  ///< RMS of ln(predicted/measured time) before the fit
  double rms_log_error_after = 0;   ///< and after
};

/// The profile as YAML text; load_calibration_profile reads it back unchanged.
std::string render_calibration_profile(const CalibrationProfile& profile);
/// Parses a profile. Throws ConfigError at file:line:column for YAML errors, a missing or
/// unknown key, a value that is not a number, or one outside its parameter's range.
CalibrationProfile parse_calibration_profile(const std::string& text, const std::string& file);
/// Reads and parses a file; ConfigError when it cannot be read or does not parse.
CalibrationProfile load_calibration_profile(const std::string& path);

}  // namespace linksim
