// SPDX-License-Identifier: Apache-2.0
// The calibratable parameters and their ranges (docs/calibration.md#parameters).
#include <algorithm>

#include "linksim/model_calibration.hpp"

namespace linksim {
namespace {

// Factors between 0.1x and 10x: a realized rate a tenth of the model's is a broken machine or
// a wrong topology, not a calibration. The hop latency moves each hop by -20 us to +1 ms.
constexpr CalibrationParameterInfo kParameters[] = {
    {CalibrationParameter::kNvlinkEfficiency, "nvlink_efficiency",
     "factor on NVLink's realized fraction of the lane rate", 1.0, 0.1, 10.0, true},
    {CalibrationParameter::kNvlsEfficiency, "nvls_efficiency",
     "factor on the NVLS AllReduce rate", 1.0, 0.1, 10.0, true},
    {CalibrationParameter::kPcieEfficiency, "pcie_efficiency",
     "factor on PCIe's realized fraction (0.8)", 1.0, 0.1, 10.0, true},
    {CalibrationParameter::kNetworkEfficiency, "network_efficiency",
     "factor on the network links' realized fraction (0.96)", 1.0, 0.1, 10.0, true},
    {CalibrationParameter::kHostStagingRate, "host_staging_rate",
     "factor on the host-staged (SHM) copy rate", 1.0, 0.1, 10.0, true},
    {CalibrationParameter::kHopLatency, "hop_latency_us",
     "microseconds added to each latency hop", 0.0, -20.0, 1000.0, false},
};
static_assert(std::size(kParameters) == kCalibrationParameterCount);

}  // namespace

std::span<const CalibrationParameterInfo> calibration_parameters() { return kParameters; }

const CalibrationParameterInfo& parameter_info(CalibrationParameter p) {
  return kParameters[static_cast<int>(p)];
}

ModelCalibration::ModelCalibration() {
  for (const CalibrationParameterInfo& info : kParameters) (*this)[info.id] = info.neutral;
}

bool ModelCalibration::is_neutral() const { return *this == ModelCalibration(); }

}  // namespace linksim
