// SPDX-License-Identifier: Apache-2.0
// A calibration: per-mechanism corrections of the collective model fitted to a user's own
// measurements (`linksim calibrate`, docs/calibration.md). Each parameter scales one
// mechanism everywhere it acts (a link class, the host-staging rate, the per-hop latency),
// never one message size; the neutral value leaves the model as documented in docs/model.md.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace linksim {

/// The model's calibratable mechanisms.
enum class CalibrationParameter {
  kNvlinkEfficiency,   ///< factor on NVLink's realized fraction (links, p2p channels, NVLS gather)
  kNvlsEfficiency,     ///< factor on the NVLS AllReduce rate
  kPcieEfficiency,     ///< factor on PCIe's realized fraction (0.8)
  kNetworkEfficiency,  ///< factor on the network links' realized fraction (0.96)
  kHostStagingRate,    ///< factor on the host-staged (SHM) copy rate
  kHopLatency,         ///< microseconds added per latency hop (may be negative)
};
inline constexpr int kCalibrationParameterCount = 6;

/// What a parameter means and where it may lie.
struct CalibrationParameterInfo {
  CalibrationParameter id;
  std::string_view name;     ///< the profile's key: "nvlink_efficiency", ...
  std::string_view meaning;  ///< one line for reports
  double neutral;            ///< the value that leaves the model unchanged (1, or 0 us)
  double min, max;           ///< accepted range (profile and fit)
  bool multiplicative;       ///< a factor (fitted on its logarithm) or an additive offset
};

/// Every parameter, in enum order.
std::span<const CalibrationParameterInfo> calibration_parameters();
const CalibrationParameterInfo& parameter_info(CalibrationParameter p);

/// The values of every parameter; neutral by default.
class ModelCalibration {
 public:
  ModelCalibration();
  double operator[](CalibrationParameter p) const { return values_[static_cast<int>(p)]; }
  double& operator[](CalibrationParameter p) { return values_[static_cast<int>(p)]; }
  bool is_neutral() const;
  /// The hop latency in seconds (the profile holds microseconds).
  double hop_latency_s() const { return (*this)[CalibrationParameter::kHopLatency] * 1e-6; }
  friend bool operator==(const ModelCalibration&, const ModelCalibration&) = default;

 private:
  std::array<double, kCalibrationParameterCount> values_;
};

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
