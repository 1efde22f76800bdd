// SPDX-License-Identifier: Apache-2.0
// The per-mechanism corrections the collective model applies (docs/calibration.md): each
// parameter scales one mechanism everywhere it acts (a link class, the host-staging rate, the
// per-hop latency), never one message size; the neutral value leaves the model as documented
// in docs/model.md. A communicator takes them in CommOptions::calibration; profiles that
// hold them are read and written by linksim/calibration.hpp.
#pragma once

#include <array>
#include <span>
#include <string_view>

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

}  // namespace linksim
